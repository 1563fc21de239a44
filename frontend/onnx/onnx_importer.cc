#include "frontend/onnx/onnx_importer.h"

#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/limits.h"
#include "core/proto_io.h"
#include "core/registry.h"
#include "core/tensor.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"
#include "onnx/onnx-data_pb.h"
#include "onnx/onnx_pb.h"
#include "frontend/onnx/external_data.h"
#include "frontend/onnx/isolated_shape_inference.h"
#include "frontend/onnx/legacy_ops.h"

namespace loom {
namespace onnx_import {
namespace {

// ONNX Runtime's contrib ops that Loom defines in its own domain with the
// same inputs, attributes and semantics: what ONNX Runtime's
// quantize_dynamic writes (DynamicQuantizeLSTM) and what its optimizer
// saves (DynamicQuantizeMatMul) run in both runtimes.
bool OrtContribAsLoom(const onnx::NodeProto& node) {
  return node.domain() == "com.microsoft" &&
         (node.op_type() == "DynamicQuantizeLSTM" || node.op_type() == "DynamicQuantizeMatMul");
}

// `copy_raw` false: raw_data is left out (the caller moves it in).
absl::StatusOr<TensorProto> ConvertTensor(const onnx::TensorProto& in, bool copy_raw = true) {
  if (in.data_location() == onnx::TensorProto::EXTERNAL) {
    // LoadExternalData checked it and named its file by absolute path; the
    // bytes are mapped or read when the net is made (TensorFromProto).
    TensorProto out;
    out.set_name(in.name());
    out.set_data_type(in.data_type());
    for (int64_t d : in.dims()) out.add_dims(d);
    ExternalData* e = out.mutable_external_data();
    int64_t offset = -1, length = -1;
    for (const onnx::StringStringEntryProto& kv : in.external_data()) {
      if (kv.key() == "location") e->set_location(kv.value());
      if (kv.key() == "offset" && !absl::SimpleAtoi(kv.value(), &offset)) offset = -1;
      if (kv.key() == "length" && !absl::SimpleAtoi(kv.value(), &length)) length = -1;
    }
    e->set_offset(offset);
    e->set_length(length);
    if (e->location().empty() || e->location()[0] != '/' || offset < 0 || length < 0) {
      return absl::InvalidArgumentError(absl::StrCat("tensor '", in.name(), "': external data outside a model file"));
    }
    return out;
  }
  // A hostile tensor declares dims its data does not fill (or that
  // overflow): refused here, before anything is sized from the dims.
  const std::string label = absl::StrCat("tensor '", in.name(), "'");
  std::vector<int64_t> dims(in.dims().begin(), in.dims().end());
  if (in.data_type() != onnx::TensorProto::STRING && IsSupportedDataType(in.data_type())) {
    const DataType dt = static_cast<DataType>(in.data_type());
    absl::StatusOr<int64_t> bytes = CheckedNumBytes(dt, dims);
    if (!bytes.ok()) return absl::InvalidArgumentError(absl::StrCat(label, ": dims: ", bytes.status().message()));
    const int64_t n = *bytes / static_cast<int64_t>(DataTypeSize(dt));
    int64_t have = 0;
    const char* field = "int32_data";
    if (in.has_raw_data()) {
      if (static_cast<int64_t>(in.raw_data().size()) != *bytes) {
        return absl::InvalidArgumentError(absl::StrCat(label, ": raw_data has ", in.raw_data().size(), " bytes; ",
                                                       DataTypeName(dt), ShapeToString(dims), " needs ", *bytes));
      }
    } else {
      switch (in.data_type()) {
        case onnx::TensorProto::FLOAT: have = in.float_data_size(); field = "float_data"; break;
        case onnx::TensorProto::DOUBLE: have = in.double_data_size(); field = "double_data"; break;
        case onnx::TensorProto::INT64: have = in.int64_data_size(); field = "int64_data"; break;
        case onnx::TensorProto::UINT32:
        case onnx::TensorProto::UINT64: have = in.uint64_data_size(); field = "uint64_data"; break;
        default: have = in.int32_data_size(); break;
      }
      if (have != n) {
        return absl::InvalidArgumentError(absl::StrCat(label, ": ", field, " has ", have, " values; ", DataTypeName(dt),
                                                       ShapeToString(dims), " needs ", n));
      }
    }
  } else if (in.data_type() != onnx::TensorProto::STRING) {
    for (int64_t d : dims) {
      if (d < 0) return absl::InvalidArgumentError(absl::StrCat(label, ": negative dimension in ", ShapeToString(dims)));
    }
  }
  TensorProto out;
  out.set_name(in.name());
  out.set_data_type(in.data_type());
  for (int64_t d : in.dims()) out.add_dims(d);
  if (in.has_raw_data()) {
    if (copy_raw) out.set_raw_data(in.raw_data());
    return out;
  }
  switch (in.data_type()) {
    case onnx::TensorProto::FLOAT:
      for (float v : in.float_data()) out.add_float_data(v);
      break;
    case onnx::TensorProto::DOUBLE:
      for (double v : in.double_data()) out.add_double_data(v);
      break;
    case onnx::TensorProto::INT64:
      for (int64_t v : in.int64_data()) out.add_int64_data(v);
      break;
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::UINT64: {
      // ONNX keeps these in uint64_data; re-encode as raw little-endian bytes.
      std::string raw;
      size_t size = in.data_type() == onnx::TensorProto::UINT32 ? 4 : 8;
      for (uint64_t v : in.uint64_data()) raw.append(reinterpret_cast<const char*>(&v), size);
      out.set_raw_data(raw);
      break;
    }
    case onnx::TensorProto::STRING: {
      // As many strings as the dims say (checked here: the dims were not).
      int64_t n = 1;
      for (int64_t d : dims) {
        if (d < 0 || (d > 0 && n > std::numeric_limits<int64_t>::max() / d)) {
          return absl::InvalidArgumentError(absl::StrCat(label, ": bad dims ", ShapeToString(dims)));
        }
        n *= d;
      }
      if (in.string_data_size() != n) {
        return absl::InvalidArgumentError(absl::StrCat(label, ": string_data has ", in.string_data_size(),
                                                       " values; string", ShapeToString(dims), " needs ", n));
      }
      for (const std::string& s : in.string_data()) out.add_string_data(s);
      break;
    }
    default:  // int32, int16, int8, uint16, uint8, bool, float16, bfloat16
      for (int32_t v : in.int32_data()) out.add_int32_data(v);
      break;
  }
  return out;
}

// Attributes of older opsets that have no effect on inference (or that the
// importer rewrites away, like the legacy broadcast above).
bool Droppable(const onnx::NodeProto& node, const onnx::AttributeProto& a) {
  const std::string& op = node.op_type();
  if ((a.name() == "broadcast" || a.name() == "axis") && IsLegacyBinary(node)) return true;
  if (a.name() == "consumed_inputs") return true;
  if (a.name() == "is_test" && (op == "BatchNormalization" || op == "Dropout")) return true;
  if (a.name() == "spatial" && op == "BatchNormalization" && a.i() == 1) return true;
  return false;
}

// `take_data` (the same graph, mutable; may be null): move initializers'
// raw bytes out of it instead of copying them.
absl::StatusOr<NetDef> ConvertGraph(const onnx::GraphProto& g, int64_t opset, bool subgraph,
                                    onnx::GraphProto* take_data = nullptr);

int32_t TypeCode(const onnx::TypeProto& t);

absl::Status ConvertAttribute(const onnx::AttributeProto& a, int64_t opset, Argument* out) {
  out->set_name(a.name());
  switch (a.type()) {
    case onnx::AttributeProto::FLOAT: out->set_f(a.f()); break;
    case onnx::AttributeProto::INT: out->set_i(a.i()); break;
    case onnx::AttributeProto::STRING: out->set_s(a.s()); break;
    case onnx::AttributeProto::FLOATS: for (float f : a.floats()) out->add_floats(f); break;
    case onnx::AttributeProto::INTS: for (int64_t i : a.ints()) out->add_ints(i); break;
    case onnx::AttributeProto::STRINGS: for (const auto& s : a.strings()) out->add_strings(s); break;
    case onnx::AttributeProto::TENSOR: {
      auto t = ConvertTensor(a.t());
      if (!t.ok()) return t.status();
      *out->mutable_t() = *t;
      break;
    }
    case onnx::AttributeProto::GRAPH: {
      auto n = ConvertGraph(a.g(), opset, /*subgraph=*/true);
      if (!n.ok()) return n.status();
      *out->mutable_n() = *n;
      break;
    }
    case onnx::AttributeProto::GRAPHS:
      for (const auto& g : a.graphs()) {
        auto n = ConvertGraph(g, opset, /*subgraph=*/true);
        if (!n.ok()) return n.status();
        *out->add_nets() = *n;
      }
      break;
    case onnx::AttributeProto::TYPE_PROTO: {  // Optional's `type`: Loom's type code
      const int32_t code = TypeCode(a.tp());
      if (code == 0) {
        return absl::InvalidArgumentError(absl::StrCat("attribute '", a.name(),
                                                       "' names a type Loom does not hold (a tensor, sequence of "
                                                       "tensors or optional of either, of a numeric or bool dtype)"));
      }
      out->set_i(code);
      break;
    }
    default:
      return absl::InvalidArgumentError(absl::StrCat("attribute '", a.name(), "' has ONNX type ", a.type(),
                                                     ", which Loom does not hold"));
  }
  return absl::OkStatus();
}

const char* DtypeName(int32_t code) {
  switch (code) {
    case 1: return "float32";
    case 2: return "uint8";
    case 3: return "int8";
    case 5: return "int16";
    case 6: return "int32";
    case 7: return "int64";
    case 9: return "bool";
    case 10: return "float16";
    case 11: return "float64";
    case 16: return "bfloat16";
    default: return "";
  }
}

// A value's type code (core/dtype.h): a tensor's dtype, sequence(tensor(E))
// as LOOM_DTYPE_SEQUENCE | E, optional(X) as LOOM_DTYPE_OPTIONAL | X's; 0
// for what Loom does not hold (strings, maps, sparse tensors).
int32_t TypeCode(const onnx::TypeProto& t) {
  if (t.has_tensor_type()) return *DtypeName(t.tensor_type().elem_type()) ? t.tensor_type().elem_type() : 0;
  if (t.has_sequence_type()) {
    const onnx::TypeProto& e = t.sequence_type().elem_type();
    const int32_t element = e.has_tensor_type() ? TypeCode(e) : 0;
    return element != 0 ? element | LOOM_DTYPE_SEQUENCE : 0;
  }
  if (t.has_optional_type()) {
    const int32_t inner = TypeCode(t.optional_type().elem_type());
    return inner != 0 && (inner & LOOM_DTYPE_OPTIONAL) == 0 ? inner | LOOM_DTYPE_OPTIONAL : 0;
  }
  return 0;
}

// The type's name as core/dtype.h's DataTypeName writes it ("float32",
// "seq(int64)", "optional(seq(float32))"); "" for what Loom does not hold.
std::string TypeName(const onnx::TypeProto& t) {
  const int32_t code = TypeCode(t);
  return code == 0 ? "" : DataTypeName(static_cast<DataType>(code));
}

// Names a subgraph reads from enclosing graphs (ONNX outer-scope values):
// read by its nodes, its nested subgraphs or its outputs, and defined by none
// of its inputs, initializers or nodes. In order of first use.
std::vector<std::string> OuterScopeNames(const onnx::GraphProto& g, const NetDef& net) {
  std::set<std::string> defined;
  for (const auto& t : g.initializer()) defined.insert(t.name());
  for (const auto& in : g.input()) defined.insert(in.name());
  std::vector<std::string> outer;
  std::set<std::string> seen;
  auto use = [&](const std::string& name) {
    if (!name.empty() && !defined.count(name) && seen.insert(name).second) outer.push_back(name);
  };
  for (const OperatorDef& op : net.op()) {
    for (const std::string& in : op.input()) use(in);
    for (const Argument& a : op.arg()) {
      std::vector<const NetDef*> nested;
      if (a.has_n()) nested.push_back(&a.n());
      for (const NetDef& n : a.nets()) nested.push_back(&n);
      for (const NetDef* n : nested) {
        for (const Argument& na : n->arg()) {
          if (na.name() == "outer_scope_inputs") for (const std::string& o : na.strings()) use(o);
        }
      }
    }
    for (const std::string& out : op.output()) defined.insert(out);
  }
  for (const auto& out : g.output()) use(out.name());
  return outer;
}

absl::StatusOr<NetDef> ConvertGraph(const onnx::GraphProto& g, int64_t opset, bool subgraph,
                                    onnx::GraphProto* take_data) {
  NetDef net;
  net.set_name(g.name());
  std::set<std::string> inits;
  for (int i = 0; i < g.initializer_size(); ++i) {
    const onnx::TensorProto& t = g.initializer(i);
    const bool take = take_data != nullptr && t.has_raw_data();
    auto c = ConvertTensor(t, /*copy_raw=*/!take);
    if (!c.ok()) return c.status();
    // With `take_data`, raw bytes move from the model instead of being
    // copied (its initializers keep name, type and dims).
    if (take) c->set_raw_data(std::move(*take_data->mutable_initializer(i)->mutable_raw_data()));
    *net.add_initializer() = std::move(*c);
    inits.insert(t.name());
  }
  if (g.sparse_initializer_size() > 0) return absl::InvalidArgumentError("sparse initializers are not supported");
  // Ranks known from the model (inputs, initializers, value_info that ONNX
  // shape inference filled), for rewrites of older opsets' broadcasting.
  std::map<std::string, int64_t> ranks;
  auto note_rank = [&](const onnx::ValueInfoProto& v) {
    if (v.type().has_tensor_type() && v.type().tensor_type().has_shape()) {
      ranks[v.name()] = v.type().tensor_type().shape().dim_size();
    }
  };
  for (const auto& v : g.input()) note_rank(v);
  for (const auto& v : g.value_info()) note_rank(v);
  for (const auto& t : g.initializer()) ranks[t.name()] = t.dims_size();
  for (const auto& in : g.input()) {
    if (inits.count(in.name())) continue;
    net.add_external_input(in.name());
    if (in.type().has_tensor_type()) {
      const auto& tt = in.type().tensor_type();
      if (tt.has_shape()) {
        bool static_shape = true;
        Argument shape;
        shape.set_name("input_shape." + in.name());
        for (const auto& d : tt.shape().dim()) {
          if (!d.has_dim_value()) static_shape = false;
          shape.add_ints(d.dim_value());
        }
        if (static_shape) *net.add_arg() = shape;
      }
    }
    if (!TypeName(in.type()).empty()) {
      Argument* dt = net.add_arg();
      dt->set_name("input_dtype." + in.name());
      dt->set_s(TypeName(in.type()));
    }
  }
  for (const auto& out : g.output()) {
    net.add_external_output(out.name());
    // Output dtypes let control-flow ops infer theirs before the body runs.
    if (!TypeName(out.type()).empty()) {
      Argument* dt = net.add_arg();
      dt->set_name("output_dtype." + out.name());
      dt->set_s(TypeName(out.type()));
    }
  }
  // ONNX requires nodes in topological order. A node that reads what only
  // it or a later node writes (a cycle, or an unsorted graph) is refused
  // here by name rather than later as a missing input.
  {
    std::map<std::string, int> producer;
    for (int i = 0; i < g.node_size(); ++i) {
      for (const auto& out : g.node(i).output()) {
        if (!out.empty()) producer.emplace(out, i);
      }
    }
    std::set<std::string> defined = inits;
    for (const auto& in : g.input()) defined.insert(in.name());
    for (int i = 0; i < g.node_size(); ++i) {
      const onnx::NodeProto& node = g.node(i);
      for (const auto& in : node.input()) {
        if (in.empty() || defined.count(in)) continue;
        auto p = producer.find(in);
        if (p == producer.end() || p->second < i) continue;
        const onnx::NodeProto& later = g.node(p->second);
        return absl::InvalidArgumentError(absl::StrCat(
            "node #", i, " '", node.name(), "' (", node.op_type(), "): input '", in, "' is produced by ",
            p->second == i ? "this node itself"
                           : absl::StrCat("a later node, #", p->second, " '", later.name(), "' (", later.op_type(), ")"),
            "; expected nodes in topological order (ONNX requires it): the graph has a cycle or is unsorted"));
      }
      for (const auto& out : node.output()) {
        if (!out.empty()) defined.insert(out);
      }
    }
  }
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& node = g.node(i);
    if (node.op_type() == "Scan" && opset < 9) {
      return absl::UnimplementedError(absl::StrCat("node #", i, " '", node.name(),
                                                   "' (Scan): opset 8's batched Scan (with sequence_lens) is not "
                                                   "supported; Loom runs Scan as defined from opset 9"));
    }
    // Inputs that older opsets broadcast differently get an Unsqueeze that
    // makes numpy broadcasting give the old result.
    std::vector<std::string> inputs(node.input().begin(), node.input().end());
    auto unsqueeze_trailing = [&](int k, int64_t extra) {
      if (extra <= 0 || k >= static_cast<int>(inputs.size())) return;
      int64_t rank = ranks.count(inputs[k]) ? ranks[inputs[k]] : -1;
      if (rank < 0) return;
      OperatorDef* u = net.add_op();
      u->set_type("Unsqueeze");
      u->set_name(absl::StrCat(node.name().empty() ? node.op_type() : node.name(), "_legacy_broadcast_", k));
      u->add_input(inputs[k]);
      inputs[k] = absl::StrCat(inputs[k], "__", u->name());
      u->add_output(inputs[k]);
      Argument* axes = u->add_arg();
      axes->set_name("axes");
      for (int64_t d = 0; d < extra; ++d) axes->add_ints(rank + d);
    };
    if (IsLegacyBinary(node) && inputs.size() == 2 && ranks.count(inputs[0]) && ranks.count(inputs[1])) {
      int64_t axis = -1;
      for (const auto& a : node.attribute()) {
        if (a.name() == "axis") axis = a.i();
      }
      int64_t ra = ranks[inputs[0]], rb = ranks[inputs[1]];
      if (axis < 0 && HasAttribute(node, "axis")) axis += ra;
      if (axis >= 0) unsqueeze_trailing(1, ra - axis - rb);
    }
    if (node.op_type() == "PRelu" && opset < 7 && inputs.size() == 2 && ranks.count(inputs[0]) &&
        ranks.count(inputs[1]) && ranks[inputs[1]] == 1 && ranks[inputs[0]] > 2) {
      // PRelu-6's slope [C] is per channel (dimension 1).
      unsqueeze_trailing(1, ranks[inputs[0]] - 2);
    }
    if (IsSoftmaxFamily(node.op_type()) && opset < 13 &&
        !inputs.empty() && node.output_size() == 1) {
      // Before opset 13 these flatten the input to 2-D at `axis` (default 1)
      // and normalize each row; from 13 they normalize along `axis` alone.
      // Same result when axis is the last dimension; otherwise spell the old
      // semantics out: Flatten, the op on the last axis, Reshape back.
      int64_t axis = 1;
      for (const auto& a : node.attribute()) {
        if (a.name() == "axis") axis = a.i();
      }
      int64_t rank = ranks.count(inputs[0]) ? ranks[inputs[0]] : -1;
      if (rank < 0 || (axis < 0 ? axis + rank : axis) != rank - 1) {
        std::string base = node.name().empty() ? absl::StrCat(node.op_type(), "_", i) : node.name();
        auto add = [&](const std::string& type, std::vector<std::string> ins, const std::string& out) {
          OperatorDef* o = net.add_op();
          o->set_type(type);
          o->set_name(absl::StrCat(base, "_legacy_", type));
          for (const std::string& in : ins) o->add_input(in);
          o->add_output(out);
          return o;
        };
        std::string shape = base + "__shape", flat = base + "__flat", norm = base + "__2d";
        add("Shape", {inputs[0]}, shape);
        Argument* fa = add("Flatten", {inputs[0]}, flat)->add_arg();
        fa->set_name("axis");
        fa->set_i(axis);
        Argument* sa = add(node.op_type(), {flat}, norm)->add_arg();
        sa->set_name("axis");
        sa->set_i(-1);
        add("Reshape", {norm, shape}, node.output(0));
        continue;
      }
    }
    OperatorDef* op = net.add_op();
    op->set_type(node.op_type());
    op->set_name(node.name().empty() ? absl::StrCat(node.op_type(), "_", i) : node.name());
    // Stated, so that the op resolves in its own domain only (Registry::ResolveSchema).
    op->set_domain(node.domain().empty() ? "ai.onnx" : OrtContribAsLoom(node) ? kLoomDomain : node.domain());
    for (const auto& in : inputs) op->add_input(in);
    for (const auto& out : node.output()) op->add_output(out);
    for (const auto& a : node.attribute()) {
      if (Droppable(node, a)) continue;
      absl::Status s = ConvertAttribute(a, opset, op->add_arg());
      if (!s.ok()) {
        return absl::Status(s.code(), absl::StrCat("node #", i, " '", node.name(), "' (", node.op_type(), "): ", s.message()));
      }
    }
    // Opsets 9-13 have no training_mode: outputs past Y mean training.
    if (node.op_type() == "BatchNormalization" && opset >= 9 && opset < 14 && !HasAttribute(node, "training_mode")) {
      int outputs = 0;
      for (const std::string& o : node.output()) outputs += !o.empty();
      if (outputs > 1) {
        Argument* t = op->add_arg();
        t->set_name("training_mode");
        t->set_i(1);
      }
    }
    // RoiAlign-10 has no coordinate_transformation_mode and samples as
    // opset 16's "output_half_pixel"; 16's default is "half_pixel".
    if (node.op_type() == "RoiAlign" && opset < 16 && !HasAttribute(node, "coordinate_transformation_mode")) {
      Argument* m = op->add_arg();
      m->set_name("coordinate_transformation_mode");
      m->set_s("output_half_pixel");
    }
  }
  if (subgraph) {
    // Outer-scope values become external inputs after the formal ones (the
    // child workspace the body runs in sees them), listed again in
    // "outer_scope_inputs" so the enclosing graph can tell them apart.
    std::vector<std::string> outer = OuterScopeNames(g, net);
    if (!outer.empty()) {
      Argument* a = net.add_arg();
      a->set_name("outer_scope_inputs");
      for (const std::string& o : outer) {
        net.add_external_input(o);
        a->add_strings(o);
      }
    }
  }
  return net;
}

// Turns top-level Constant ops holding a tensor `value` into initializers of
// the same name (what they are: exporters such as paddle2onnx emit weights
// this way), so they cost no op per run and count as constants for folding.
void ConstantsToInitializers(NetDef* net) {
  std::set<std::string> outputs(net->external_output().begin(), net->external_output().end());
  // Ops and tensors move (Swap), never copy: the weights are held once (a
  // copy of the NetDef here doubled a 2 GB model's peak memory).
  google::protobuf::RepeatedPtrField<OperatorDef> ops;
  ops.Swap(net->mutable_op());
  for (int j = 0; j < ops.size(); ++j) {
    OperatorDef* op = ops.Mutable(j);
    const bool constant = op->type() == "Constant" && op->output_size() == 1 && op->arg_size() == 1 &&
                          op->arg(0).name() == "value" && op->arg(0).has_t() &&
                          !outputs.count(op->output(0));  // a net output stays an op's output
    if (!constant) {
      net->add_op()->Swap(op);
      continue;
    }
    TensorProto* t = net->add_initializer();
    t->Swap(op->mutable_arg(0)->mutable_t());
    t->set_name(op->output(0));
  }
}

// Every (domain as stated, op type) of `net` and the nets nested in it.
void CollectOps(const NetDef& net, std::set<std::pair<std::string, std::string>>* ops) {
  for (const OperatorDef& op : net.op()) {
    ops->insert({op.domain(), op.type()});
    for (const Argument& a : op.arg()) {
      if (a.has_n()) CollectOps(a.n(), ops);
      for (const NetDef& n : a.nets()) CollectOps(n, ops);
    }
  }
}

}  // namespace

// The import proper, from a parsed model (initializer bytes move out of it).
static absl::StatusOr<NetDef> ImportParsed(onnx::ModelProto& model);

absl::StatusOr<NetDef> ImportOnnxModel(const std::string& serialized, const std::string& external_data_dir) {
  if (serialized.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return absl::InvalidArgumentError("ONNX model over 2 GiB (protobuf's limit): save its weights as external data");
  }
  // Deep but valid models parse (ParseBinaryProto's recursion limit); the
  // runtime's max_nesting_depth (core/limits.h) is the limit that names the op.
  onnx::ModelProto model;
  if (!ParseBinaryProto(serialized, &model)) return absl::InvalidArgumentError("not an ONNX ModelProto");
  if (absl::Status s = LoadExternalData(&model, external_data_dir); !s.ok()) return s;
  return ImportParsed(model);
}

namespace {

// A model's opset imports, domain -> version, with ONNX's default domain
// spelled "ai.onnx" ("" and "ai.onnx" are the same domain).
using OpsetImports = std::map<std::string, int64_t>;

std::string DomainName(const std::string& domain) { return domain.empty() ? "ai.onnx" : domain; }

// ONNX's rule (onnx.checker: "No opset import for domain"): every node's
// domain, in subgraphs too, is one the model imports. The default domain is
// exempt, as it always was here: models of IR version < 3 have no imports.
absl::Status CheckNodeDomains(const onnx::GraphProto& g, const OpsetImports& imports) {
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& node = g.node(i);
    const std::string domain = DomainName(node.domain());
    if (domain != "ai.onnx" && imports.count(domain) == 0) {
      std::vector<std::string> listed;
      for (const auto& [d, v] : imports) listed.push_back(absl::StrCat(d, " ", v));
      return absl::InvalidArgumentError(absl::StrCat(
          "node #", i, " '", node.name(), "' (", node.op_type(), ") is in domain '", domain,
          "', which the model's opset_import does not list (it lists: ",
          listed.empty() ? "nothing" : absl::StrJoin(listed, ", "), ")"));
    }
    for (const onnx::AttributeProto& a : node.attribute()) {
      if (a.has_g()) {
        if (absl::Status s = CheckNodeDomains(a.g(), imports); !s.ok()) return s;
      }
      for (const onnx::GraphProto& sub : a.graphs()) {
        if (absl::Status s = CheckNodeDomains(sub, imports); !s.ok()) return s;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

static absl::StatusOr<NetDef> ImportParsed(onnx::ModelProto& model) {
  OpsetImports imports;
  for (const auto& o : model.opset_import()) imports[DomainName(o.domain())] = o.version();
  const auto default_domain = imports.find("ai.onnx");
  const int64_t opset = default_domain != imports.end() ? default_domain->second : 0;
  if (absl::Status s = CheckNodeDomains(model.graph(), imports); !s.ok()) return s;
  // ONNX's own shape inference fills the types that exporters leave out
  // (e.g. untyped outputs of If branches), which control-flow ops need, and
  // the ranks older opsets' rewrites use. Best effort, and isolated: a model
  // it rejects, crashes on or hangs is imported as it is.
  if (NeedsShapeInference(model, opset)) {
    (void)InferShapesIsolated(&model, absl::Seconds(30));
  }
  auto net = ConvertGraph(model.graph(), opset, /*subgraph=*/false, model.mutable_graph());
  if (!net.ok()) return net.status();
  if (net->name().empty()) net->set_name("onnx_model");
  ConstantsToInitializers(&*net);
  // PyTorch's BatchNormalization keeps its running variance with the
  // unbiased batch variance; ONNX's rule is the population variance. A
  // model PyTorch exported trains as it did there.
  if (model.producer_name() == "pytorch") {
    for (OperatorDef& op : *net->mutable_op()) {
      if (op.type() != "BatchNormalization") continue;
      Argument* a = op.add_arg();
      a->set_name("running_var_unbiased");
      a->set_i(1);
    }
  }
  Argument* a = net->add_arg();
  a->set_name("onnx_opset");
  a->set_i(opset);
  Argument* all = net->add_arg();
  all->set_name("opset_import");
  for (const auto& [domain, version] : imports) {
    all->add_strings(domain);
    all->add_ints(version);
  }
  return net;
}

namespace {

// A tensor outside a model (a test's input file, a sequence's item).
absl::StatusOr<TensorProto> ConvertLoneTensor(const onnx::TensorProto& t) {
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {  // a lone tensor has no folder
    return absl::InvalidArgumentError(absl::StrCat("tensor '", t.name(), "': external data outside a model file"));
  }
  return ConvertTensor(t);
}

}  // namespace

absl::StatusOr<TensorProto> ImportOnnxTensor(const std::string& serialized) {
  onnx::TensorProto t;
  if (!t.ParseFromString(serialized)) return absl::InvalidArgumentError("not an ONNX TensorProto");
  return ConvertLoneTensor(t);
}

namespace {

onnx::TensorProto ToOnnxTensor(const Tensor& t, const std::string& name) {
  onnx::TensorProto p;
  p.set_name(name);
  p.set_data_type(static_cast<int32_t>(t.dtype()));
  for (int64_t d : t.dims()) p.add_dims(d);
  if (t.dtype() == DataType::kString) {
    for (const std::string& s : t.strings()) p.add_string_data(s);
  } else {
    p.set_raw_data(std::string(static_cast<const char*>(t.raw_data()), t.nbytes()));
  }
  return p;
}

onnx::SequenceProto ToOnnxSequence(const Tensor& t, const std::string& name) {
  onnx::SequenceProto s;
  s.set_name(name);
  s.set_elem_type(onnx::SequenceProto::TENSOR);
  for (const Tensor& item : t.values()) *s.add_tensor_values() = ToOnnxTensor(item, "");
  return s;
}

absl::StatusOr<Tensor> TensorFromOnnx(const onnx::TensorProto& t) {
  if (t.data_type() == onnx::TensorProto::UNDEFINED) {
    return absl::InvalidArgumentError("not an ONNX TensorProto (no data_type; maps are not supported)");
  }
  absl::StatusOr<TensorProto> p = ConvertLoneTensor(t);
  if (!p.ok()) return p.status();
  return TensorFromProto(*std::move(p));
}

absl::StatusOr<Tensor> SequenceFromOnnx(const onnx::SequenceProto& s, DataType type) {
  if (s.elem_type() != onnx::SequenceProto::TENSOR && s.tensor_values_size() + s.sequence_values_size() +
                                                              s.map_values_size() + s.optional_values_size() > 0) {
    return absl::InvalidArgumentError("a sequence of other than tensors is not a Loom value");
  }
  std::vector<Tensor> items;
  for (const onnx::TensorProto& t : s.tensor_values()) {
    absl::StatusOr<Tensor> v = TensorFromOnnx(t);
    if (!v.ok()) return v.status();
    items.push_back(*std::move(v));
  }
  return Tensor::MakeValue(type, std::move(items));
}

DataType DeclaredType(const NetDef& net, const std::string& key) {
  for (const Argument& a : net.arg()) {
    if (a.name() != key) continue;
    absl::StatusOr<DataType> t = ParseDataType(a.s());
    return t.ok() ? *t : DataType::kUndefined;
  }
  return DataType::kUndefined;
}

}  // namespace

std::string ExportOnnxTensor(const Tensor& t, const std::string& name) {
  return ToOnnxTensor(t, name).SerializeAsString();
}

std::string ExportOnnxValue(const Tensor& t, const std::string& name) {
  if (!t.is_value()) return ExportOnnxTensor(t, name);
  if (IsSequenceType(t.dtype())) return ToOnnxSequence(t, name).SerializeAsString();
  onnx::OptionalProto o;
  o.set_name(name);
  const bool of_sequence = IsSequenceType(ValueElementType(t.dtype()));
  o.set_elem_type(of_sequence ? onnx::OptionalProto::SEQUENCE : onnx::OptionalProto::TENSOR);
  if (!t.values().empty()) {
    if (of_sequence) {
      *o.mutable_sequence_value() = ToOnnxSequence(t.values()[0], "");
    } else {
      *o.mutable_tensor_value() = ToOnnxTensor(t.values()[0], "");
    }
  }
  return o.SerializeAsString();
}

absl::StatusOr<Tensor> ImportOnnxValue(const std::string& serialized, DataType type) {
  if (IsSequenceType(type)) {
    onnx::SequenceProto s;
    if (!s.ParseFromString(serialized)) return absl::InvalidArgumentError("not an ONNX SequenceProto");
    return SequenceFromOnnx(s, type);
  }
  if (IsOptionalType(type)) {
    onnx::OptionalProto o;
    if (!o.ParseFromString(serialized)) return absl::InvalidArgumentError("not an ONNX OptionalProto");
    std::vector<Tensor> items;
    if (o.has_tensor_value() || o.has_sequence_value()) {
      absl::StatusOr<Tensor> v = o.has_tensor_value() ? TensorFromOnnx(o.tensor_value())
                                                       : SequenceFromOnnx(o.sequence_value(), ValueElementType(type));
      if (!v.ok()) return v.status();
      items.push_back(*std::move(v));
    }
    return Tensor::MakeValue(type, std::move(items));
  }
  onnx::TensorProto t;
  if (!t.ParseFromString(serialized)) return absl::InvalidArgumentError("not an ONNX TensorProto");
  return TensorFromOnnx(t);
}

absl::StatusOr<Tensor> ReadOnnxValue(const std::string& path, DataType type) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open '", path, "'"));
  std::stringstream bytes;
  bytes << in.rdbuf();
  absl::StatusOr<Tensor> v = ImportOnnxValue(bytes.str(), type);
  if (!v.ok()) return absl::Status(v.status().code(), absl::StrCat(path, ": ", v.status().message()));
  return v;
}

DataType DeclaredInputType(const NetDef& net, const std::string& name) {
  return DeclaredType(net, "input_dtype." + name);
}
DataType DeclaredOutputType(const NetDef& net, const std::string& name) {
  return DeclaredType(net, "output_dtype." + name);
}

absl::StatusOr<NetDef> ImportOnnxFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return absl::NotFoundError(absl::StrCat("cannot open '", path, "'"));
  // Parsed from the stream: the file's bytes are never all in memory next
  // to the parsed model (weights once; see ImportOnnxModel for the limit).
  onnx::ModelProto model;
  google::protobuf::io::IstreamInputStream stream(&file);
  if (!ParseBinaryProto(&stream, &model)) return absl::InvalidArgumentError(absl::StrCat(path, ": not an ONNX ModelProto"));
  if (absl::Status s = LoadExternalData(&model, FolderOf(path)); !s.ok()) {  // external data lives beside the model
    return absl::Status(s.code(), absl::StrCat(path, ": ", s.message()));
  }
  auto net = ImportParsed(model);
  if (!net.ok()) return absl::Status(net.status().code(), absl::StrCat(path, ": ", net.status().message()));
  return net;
}

absl::Status CheckSupported(const NetDef& net, const Registry& registry, const std::string& device) {
  std::set<std::pair<std::string, std::string>> ops;
  CollectOps(net, &ops);
  OpsetImports imports;
  for (const Argument& a : net.arg()) {
    // opset_import wins; onnx_opset alone: a NetDef imported before it existed.
    if (a.name() == "onnx_opset") imports.emplace("ai.onnx", a.i());
    if (a.name() != "opset_import") continue;
    for (int i = 0; i < a.strings_size() && i < a.ints_size(); ++i) imports[a.strings(i)] = a.ints(i);
  }
  std::vector<std::string> missing;
  for (const auto& [domain, op] : ops) {
    absl::StatusOr<const OpSchema*> schema = registry.ResolveSchema(domain, op);
    if (!schema.ok() || !registry.HasKernelForDevice((*schema)->key(), device)) {
      auto version = imports.find(DomainName(domain));
      missing.push_back(absl::StrCat("(", DomainName(domain), ", ", op,
                                     version == imports.end() ? "" : absl::StrCat(", opset ", version->second), ")"));
    }
  }
  if (missing.empty()) return absl::OkStatus();
  return absl::UnimplementedError(absl::StrCat("the model uses ", missing.size(), " operator(s) with no ", device,
                                               " kernel in Loom: ", absl::StrJoin(missing, ", ")));
}

}  // namespace onnx_import
}  // namespace loom
