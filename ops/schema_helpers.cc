#include "ops/schema_helpers.h"

#include <algorithm>
#include <cstdlib>
#include <tuple>
#include <utility>

#include "ops/dtype_sets.h"
#include "ops/gradients.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

// ReduceX output shape; errors name the op.
sdk::Status InferReduce(sdk::InferenceContext& ctx) { return InferReduceShape(ctx, ctx.info().op_type() + ": "); }

// Splits "text|doc" at the first '|'.
std::pair<std::string, std::string> SplitDoc(const std::string& text) {
  const size_t bar = text.find('|');
  if (bar == std::string::npos) return {text, ""};
  return {text.substr(0, bar), text.substr(bar + 1)};
}

// Reads "name:type[?|*][|doc]" into its parts.
bool ParseParam(const std::string& text, std::string* name, std::string* type, LoomParamOption* opt, std::string* doc) {
  std::string head;
  std::tie(head, *doc) = SplitDoc(text);
  const size_t colon = head.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == head.size()) return false;
  *name = head.substr(0, colon);
  *type = head.substr(colon + 1);
  *opt = LOOM_PARAM_SINGLE;
  if (type->back() == '?' || type->back() == '*') {
    *opt = type->back() == '?' ? LOOM_PARAM_OPTIONAL : LOOM_PARAM_VARIADIC;
    type->pop_back();
  }
  return !type->empty();
}

// The attribute kinds an OpSpec names.
const std::pair<const char*, LoomAttrType> kAttrKinds[] = {
    {"int", LOOM_ATTR_INT},         {"float", LOOM_ATTR_FLOAT},     {"string", LOOM_ATTR_STRING},
    {"ints", LOOM_ATTR_INTS},       {"floats", LOOM_ATTR_FLOATS},   {"strings", LOOM_ATTR_STRINGS},
    {"tensor", LOOM_ATTR_TENSOR},   {"net", LOOM_ATTR_NET}};

// Adds the attribute "name:kind(=value|!|?)[|doc]" to `s`.
bool AddAttr(sdk::SchemaBuilder& s, const std::string& text) {
  std::string head, doc;
  std::tie(head, doc) = SplitDoc(text);
  const size_t colon = head.find(':');
  const size_t mark = head.find_first_of("=!?", colon);
  if (colon == std::string::npos || colon == 0 || mark == std::string::npos) return false;
  const std::string name = head.substr(0, colon), kind = head.substr(colon + 1, mark - colon - 1);
  const std::string value = head.substr(mark + 1);
  LoomAttrType type = LOOM_ATTR_UNDEFINED;
  for (const auto& k : kAttrKinds) if (kind == k.first) type = k.second;
  if (type == LOOM_ATTR_UNDEFINED) return false;
  if (head[mark] != '=') {
    if (!value.empty()) return false;
    s.Attr(name, type, head[mark] == '!', doc);
    return true;
  }
  char* end = nullptr;
  if (type == LOOM_ATTR_STRING) {
    s.AttrString(name, value, doc);
  } else if (type == LOOM_ATTR_INT) {
    s.AttrInt(name, std::strtoll(value.c_str(), &end, 10), doc);
  } else if (type == LOOM_ATTR_FLOAT) {
    s.AttrFloat(name, std::strtof(value.c_str(), &end), doc);
  } else {
    return false;
  }
  return end == nullptr || (*end == '\0' && !value.empty());
}

}  // namespace

sdk::Status Describe(sdk::SchemaBuilder& s, const OpSpec& spec) {
  std::string name, type, doc;
  LoomParamOption opt;
  for (const std::string& in : spec.inputs) {
    if (!ParseParam(in, &name, &type, &opt, &doc)) {
      return sdk::InvalidArgument(spec.op + ": bad input \"" + in + "\"");
    }
    s.Input(name, type, opt, doc);
  }
  for (const std::string& out : spec.outputs) {
    if (!ParseParam(out, &name, &type, &opt, &doc)) {
      return sdk::InvalidArgument(spec.op + ": bad output \"" + out + "\"");
    }
    s.Output(name, type, opt, doc);
  }
  for (const TypeSet& t : spec.types) s.TypeConstraint(t.name, t.types, t.doc);
  for (const std::string& a : spec.attrs) {
    if (!AddAttr(s, a)) return sdk::InvalidArgument(spec.op + ": bad attribute \"" + a + "\"");
  }
  if (spec.inplace) s.InPlace(0, 0);
  if (spec.infer != nullptr) s.Infer(spec.infer);
  return sdk::Status::Ok();
}

sdk::Status RegisterOps(sdk::Registrar& reg, const std::vector<OpSpec>& specs) {
  for (const OpSpec& spec : specs) {
    sdk::SchemaBuilder s = Schema(spec.op, spec.since, spec.doc);
    if (!spec.domain.empty()) s.Domain(spec.domain);
    s.Fold(spec.fold);
    LOOM_SDK_RETURN_IF_ERROR(Describe(s, spec));
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  return sdk::Status::Ok();
}

std::vector<OpSpec> InDomain(const char* domain, std::vector<OpSpec> specs) {
  for (OpSpec& s : specs) s.domain = domain;
  return specs;
}

sdk::Status SetFold(LoomFoldKind kind, const std::vector<std::string>& ops, std::vector<OpSpec>* specs) {
  for (const std::string& op : ops) {
    auto it = std::find_if(specs->begin(), specs->end(), [&](const OpSpec& s) { return s.op == op; });
    if (it == specs->end()) return sdk::Status(LOOM_INTERNAL, "SetFold: op '" + op + "' is not in the table");
    it->fold = kind;
  }
  return sdk::Status::Ok();
}

std::string OnnxDoc(const std::string& op, int since, const std::string& what) {
  return "ONNX " + op + "-" + std::to_string(since) + (what.empty() ? "." : ": " + what);
}

sdk::SchemaBuilder Schema(const std::string& op, int since, const std::string& doc) {
  sdk::SchemaBuilder s(op);
  s.Doc(doc).SinceVersion(since);
  if (LoomGradientFn g = StandardGradient(op)) s.Gradient(g);
  return s;
}

SchemaExtra FloatAttrs(std::vector<FloatAttr> attrs) {
  return [attrs](sdk::SchemaBuilder& s) {
    for (const FloatAttr& a : attrs) s.AttrFloat(a.name, a.dflt, a.doc);
  };
}

namespace {

// Registers `spec` with `extra` added.
sdk::Status RegisterWithExtra(sdk::Registrar& reg, const OpSpec& spec, const SchemaExtra& extra) {
  sdk::SchemaBuilder s = Schema(spec.op, spec.since, spec.doc);
  LOOM_SDK_RETURN_IF_ERROR(Describe(s, spec));
  if (extra) extra(s);
  return reg.Register(s);
}

}  // namespace

sdk::Status RegisterUnary(sdk::Registrar& reg, const std::vector<ElementwiseOp>& ops, bool inplace) {
  for (const ElementwiseOp& u : ops) {
    const OpSpec spec = {u.op, u.since, OnnxDoc(u.op, u.since, u.what) + " Elementwise; Y has X's shape and dtype.",
                         {"X:T|input, any shape"}, {"Y:T|output, X's shape"}, {{"T", u.types}}, {},
                         &SameShapeAsInput0, inplace};
    LOOM_SDK_RETURN_IF_ERROR(RegisterWithExtra(reg, spec, u.extra));
  }
  return sdk::Status::Ok();
}

sdk::Status RegisterBinary(sdk::Registrar& reg, const std::vector<ElementwiseOp>& ops, bool bool_out) {
  for (const ElementwiseOp& b : ops) {
    const std::string doc = OnnxDoc(b.op, b.since, b.what) + " Numpy-style (multidirectional) broadcasting of A and B.";
    OpSpec spec = {b.op, b.since, doc,
                   {"A:T|first operand", "B:T|second operand"}, {"C:T|result, the broadcast shape"}, {{"T", b.types}},
                   {}, &BroadcastShapes};
    if (bool_out) {
      spec.outputs = {"C:T1|bool result, the broadcast shape"};
      spec.types.push_back({"T1", {LOOM_DTYPE_BOOL}});
      spec.infer = &BroadcastShapesAs<LOOM_DTYPE_BOOL>;
    }
    LOOM_SDK_RETURN_IF_ERROR(RegisterWithExtra(reg, spec, b.extra));
  }
  return sdk::Status::Ok();
}

sdk::Status RegisterReduce(sdk::Registrar& reg, const std::vector<ReduceOp>& ops, const std::string& note) {
  std::vector<OpSpec> specs;
  for (const ReduceOp& r : ops) {
    const std::string doc =
        OnnxDoc(r.op, r.since, r.what) +
        " of `data` over `axes`. The axes are the optional int64 input or, in the older opsets' form, the `axes` "
        "attribute (not both); negative axes count from the end. Empty or absent axes reduce every dim unless "
        "noop_with_empty_axes, which then copies the input. An empty reduction gives " + r.empty + "." + note;
    specs.push_back({r.op, r.since, doc,
                     {"data:T|any shape", "axes:tensor(int64)?|1-D, the axes to reduce, in [-r, r-1]"},
                     {"reduced:T|data's shape with the reduced dims 1 (keepdims) or removed"}, {{"T", NumericTypes()}},
                     {"keepdims:int=1|1: keep the reduced dims with size 1; 0: remove them",
                      "noop_with_empty_axes:int=0|1: empty axes mean no reduction (a copy) instead of reducing all",
                      "axes:ints?|the axes, in the form of the opsets before the axes input"},
                     Fn<InferReduce>()});
  }
  return RegisterOps(reg, specs);
}

std::vector<std::string> WindowAttrs(bool kernel_shape_required) {
  return {"auto_pad:string=NOTSET|NOTSET (use pads), SAME_UPPER / SAME_LOWER (output ceil(in / stride), odd padding "
          "at the end / beginning) or VALID (no padding)",
          std::string("kernel_shape:ints") + (kernel_shape_required ? "!" : "?") + "|spatial kernel size per axis",
          "pads:ints?|[x1_begin, x2_begin, ..., x1_end, x2_end, ...] (default 0)",
          "strides:ints?|stride per spatial axis (default 1)", "dilations:ints?|dilation per spatial axis (default 1)"};
}

std::vector<std::string> ConvTransposeWindowAttrs() {
  return {"auto_pad:string=NOTSET|NOTSET (use pads), SAME_UPPER / SAME_LOWER (output D * stride, odd padding at the "
          "end / beginning) or VALID (no padding)",
          "kernel_shape:ints?|spatial kernel size per axis (default: from W)",
          "pads:ints?|[x1_begin, ..., x1_end, ...] (default 0); ignored with output_shape",
          "strides:ints?|stride per spatial axis (default 1)", "dilations:ints?|dilation per spatial axis (default 1)",
          "output_padding:ints?|extra size added at the end of each spatial axis (default 0)",
          "output_shape:ints?|spatial output size (or the full [N, M, D'...]); pads are then computed from it"};
}

OpSpec PoolSpec(const std::string& op, int since, const std::string& doc, std::vector<LoomDataType> types,
                bool kernel_shape_required) {
  OpSpec spec = {op, since, doc, {"X:T|[N, C, D1, ..., Dn]"}, {"Y:T|[N, C, D1', ..., Dn']"}, {{"T", std::move(types)}},
                 WindowAttrs(kernel_shape_required), &PoolShapes};
  spec.attrs.push_back("ceil_mode:int=0|nonzero: output sizes rounded up instead of down");
  return spec;
}

OpSpec ConvSpec(const std::string& op, int since, const std::string& doc, const std::string& w_doc,
                const std::string& group_doc, LoomInferFn infer) {
  return {op, since, doc, {"X:T|[N, C, D1, ..., Dn]", "W:T|" + w_doc, "B:T?|[M]"}, {"Y:T|[N, M, D1', ..., Dn']"},
          {{"T", FloatTypes()}}, {"group:int=1|" + group_doc}, infer};
}

}  // namespace ops
}  // namespace loom
