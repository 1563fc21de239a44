// Target 5: check, plan and run a fuzzed NetDef (structure-aware).
// Feeds: FuzzedDataProvider choices build a NetDef of 1-3 ops whose types
// come from the registry (the standard schemas, LoomStdOpsInit, plus the
// CPU plugin dlopen'ed from the same build: fuzz_common.h) and a few that
// do not exist; per op: input counts around the schema's arity (absent
// optionals, one too few or too many), attributes of the schema with the
// right type or a wrong one (edge values: negative, zero, huge, NaN) plus
// unknown ones, outputs (sometimes reusing a name), engine and device. The
// net's inputs are fed with chosen dtypes (mostly those the schema allows;
// a sequence or optional type gets a value of 0-2 such tensors),
// shapes of rank 0-5 with zero, small and large dims (at most kMaxFedElements
// elements) and values including negatives and extremes (shape, axes and
// index inputs); sometimes an input is an initializer instead, with a
// negative dim or a wrong byte count. Then Net::Create + Net::Run (twice:
// the cached plan), and again after refeeding an input with a new shape.
// Must hold: every error is a status (never a crash, sanitizer report or
// hang), and after a successful Run every external output is in the
// workspace. Memory: NetOptions::max_tensor_bytes = kMaxTensorBytes.
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/net.h"
#include "core/proto_io.h"
#include "core/registry.h"
#include "core/tensor.h"
#include "core/workspace.h"
#include "tools/fuzz/fuzz_common.h"
#include "tools/fuzz/fuzz_entry.h"

namespace loom {
namespace fuzz {
namespace {

constexpr int64_t kMaxFedElements = int64_t{1} << 16;
constexpr int kMaxOps = 3;

const DataType kAllTypes[] = {DataType::kFloat32, DataType::kUInt8,   DataType::kInt8,   DataType::kUInt16,
                              DataType::kInt16,   DataType::kInt32,   DataType::kInt64,  DataType::kBool,
                              DataType::kFloat16, DataType::kFloat64, DataType::kUInt32, DataType::kUInt64,
                              DataType::kBFloat16};

const char* const kStrings[] = {"",        "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID",   "constant",
                                "reflect", "edge",   "nearest",    "linear",     "cubic",   "half_pixel",
                                "asymmetric", "align_corners", "round_prefer_floor", "floor", "DCR", "CRD",
                                "Relu",    "Tanh",   "Sigmoid",    "forward",    "reverse", "bidirectional",
                                "sum",     "mean",   "none",       "CPU",        "float",   "int64"};

// Ops with a schema and a CPU kernel, sorted (stable across runs), plus two
// names that resolve to nothing.
const std::vector<std::string>& OpTypes() {
  static const std::vector<std::string>* ops = [] {
    auto* v = new std::vector<std::string>();
    const Registry* r = CpuRegistry();
    for (const OpSchema* s : r->Schemas()) {
      // Ops a NetDef names by type alone (the fuzzer sets no domain).
      if (r->FindSchema(s->op_type) == s && r->HasKernelForDevice(s->key(), "CPU")) v->push_back(s->op_type);
    }
    LOOM_FUZZ_CHECK(!v->empty(), "the CPU registry has no runnable ops");
    return v;
  }();
  return *ops;
}

class Builder {
 public:
  explicit Builder(FuzzedDataProvider* fdp) : fdp_(*fdp) {}

  int64_t SmallInt() {
    switch (fdp_.ConsumeIntegralInRange(0, 15)) {
      case 0: return std::numeric_limits<int64_t>::max();
      case 1: return std::numeric_limits<int64_t>::min();
      case 2: return int64_t{1} << 31;
      case 3: return fdp_.ConsumeIntegralInRange<int64_t>(9, 1 << 20);
      default: return fdp_.ConsumeIntegralInRange<int64_t>(-3, 8);
    }
  }

  float AnyFloat() {
    switch (fdp_.ConsumeIntegralInRange(0, 11)) {
      case 0: return std::numeric_limits<float>::quiet_NaN();
      case 1: return std::numeric_limits<float>::infinity();
      case 2: return -std::numeric_limits<float>::infinity();
      case 3: return 1e30f;
      case 4: return 0.0f;
      case 5: return 1e-5f;
      default: return fdp_.ConsumeFloatingPointInRange<float>(-4.0f, 4.0f);
    }
  }

  DataType AnyType() { return fdp_.PickValueInArray(kAllTypes); }

  // A dtype for formal parameter `p` of `schema`: mostly one it allows.
  DataType TypeFor(const OpSchema& schema, const FormalParam* p) {
    if (p != nullptr && fdp_.ConsumeIntegralInRange(0, 7) != 0) {
      if (const TypeConstraint* tc = schema.FindConstraint(p->type_str)) {
        if (!tc->allowed.empty()) return tc->allowed[fdp_.ConsumeIntegralInRange<size_t>(0, tc->allowed.size() - 1)];
      } else if (p->type_str.size() > 8 && p->type_str.compare(0, 7, "tensor(") == 0) {
        auto dt = ParseDataType(p->type_str.substr(7, p->type_str.size() - 8));
        if (dt.ok()) return *dt;
      }
    }
    return AnyType();
  }

  Shape AnyShape() {
    int rank = fdp_.ConsumeIntegralInRange(0, 5);
    Shape dims;
    int64_t n = 1;
    for (int i = 0; i < rank; ++i) {
      int64_t d;
      switch (fdp_.ConsumeIntegralInRange(0, 9)) {
        case 0: d = 0; break;
        case 1: d = fdp_.ConsumeIntegralInRange<int64_t>(17, kMaxFedElements); break;
        default: d = fdp_.ConsumeIntegralInRange<int64_t>(1, 5); break;
      }
      if (d != 0 && n * d > kMaxFedElements) d = 1;  // the memory bound
      n *= d == 0 ? 1 : d;
      dims.push_back(d);
    }
    return dims;
  }

  // Values: the first few from the input, then repeated.
  Tensor AnyTensor(DataType dtype, Shape dims) {
    if (IsValueType(dtype)) {  // a sequence of 0-2 tensors, an optional none or holding one
      std::vector<Tensor> items;
      const int count = fdp_.ConsumeIntegralInRange(0, IsOptionalType(dtype) ? 1 : 2);
      for (int i = 0; i < count; ++i) items.push_back(AnyTensor(ValueElementType(dtype), dims));
      absl::StatusOr<Tensor> v = Tensor::MakeValue(dtype, std::move(items));
      return v.ok() ? *std::move(v) : Tensor();
    }
    Tensor t = Tensor::Zeros(dtype, std::move(dims));
    int64_t n = t.num_elements();
    if (dtype == DataType::kString) {  // elements, not bytes: short strings from the input
      for (std::string& e : *t.mutable_strings()) e = fdp_.ConsumeRandomLengthString(4);
      return t;
    }
    size_t es = DataTypeSize(dtype);
    int64_t fresh = std::min<int64_t>(n, 8);
    char* base = static_cast<char*>(t.raw_data());
    for (int64_t i = 0; i < fresh; ++i) {
      char* p = base + i * es;
      switch (dtype) {
        case DataType::kFloat32: { float v = AnyFloat(); std::memcpy(p, &v, es); break; }
        case DataType::kFloat64: { double v = AnyFloat(); std::memcpy(p, &v, es); break; }
        case DataType::kBool: *p = fdp_.ConsumeBool(); break;
        case DataType::kInt64: case DataType::kUInt64: { int64_t v = SmallInt(); std::memcpy(p, &v, es); break; }
        case DataType::kInt32: case DataType::kUInt32: { int32_t v = static_cast<int32_t>(SmallInt()); std::memcpy(p, &v, es); break; }
        default: { uint16_t v = fdp_.ConsumeIntegral<uint16_t>(); std::memcpy(p, &v, es); break; }
      }
    }
    for (int64_t i = fresh; i < n && fresh > 0; ++i) std::memcpy(base + i * es, base + (i % fresh) * es, es);
    return t;
  }

  TensorProto AnyTensorProto() {
    DataType dt = AnyType();
    Shape dims;
    for (int r = fdp_.ConsumeIntegralInRange(0, 2); r > 0; --r) dims.push_back(fdp_.ConsumeIntegralInRange(0, 3));
    return TensorToProto(AnyTensor(dt, dims), "attr");
  }

  NetDef SmallNet() {
    NetDef n;
    n.set_name("body");
    if (fdp_.ConsumeBool()) {
      OperatorDef* op = n.add_op();
      op->set_type(fdp_.ConsumeBool() ? "Relu" : OpTypes()[fdp_.ConsumeIntegralInRange<size_t>(0, OpTypes().size() - 1)]);
      op->add_input("x");
      op->add_output("y");
      n.add_external_input("x");
      n.add_external_output("y");
    }
    return n;
  }

  void FillArg(LoomAttrType type, const AttrSpec* spec, Argument* a) {
    switch (type) {
      case LOOM_ATTR_FLOAT: a->set_f(AnyFloat()); break;
      case LOOM_ATTR_INT: a->set_i(SmallInt()); break;
      case LOOM_ATTR_STRING:
        if (spec && spec->has_default && spec->default_value.has_s() && fdp_.ConsumeBool()) {
          a->set_s(spec->default_value.s());
        } else {
          a->set_s(fdp_.PickValueInArray(kStrings));
        }
        break;
      case LOOM_ATTR_TENSOR: *a->mutable_t() = AnyTensorProto(); break;
      case LOOM_ATTR_NET: *a->mutable_n() = SmallNet(); break;
      case LOOM_ATTR_FLOATS:
        for (int k = fdp_.ConsumeIntegralInRange(0, 4); k > 0; --k) a->add_floats(AnyFloat());
        break;
      case LOOM_ATTR_INTS:
        for (int k = fdp_.ConsumeIntegralInRange(0, 6); k > 0; --k) a->add_ints(SmallInt());
        break;
      case LOOM_ATTR_STRINGS:
        for (int k = fdp_.ConsumeIntegralInRange(0, 3); k > 0; --k) a->add_strings(fdp_.PickValueInArray(kStrings));
        break;
      case LOOM_ATTR_NETS:
        for (int k = fdp_.ConsumeIntegralInRange(0, 2); k > 0; --k) *a->add_nets() = SmallNet();
        break;
      default: break;
    }
  }

  // A blob for input `p`: an existing one or a new net input.
  std::string InputFor(const OpSchema& schema, const FormalParam* p) {
    if (!blobs_.empty() && fdp_.ConsumeIntegralInRange(0, 2) == 0) {
      return blobs_[fdp_.ConsumeIntegralInRange<size_t>(0, blobs_.size() - 1)];
    }
    std::string name = absl::StrCat("x", fed_.size() + inits_);
    DataType dt = TypeFor(schema, p);
    Tensor t = AnyTensor(dt, AnyShape());
    if (fdp_.ConsumeIntegralInRange(0, 15) == 0) {  // an initializer, sometimes broken
      TensorProto tp = TensorToProto(t, name);
      switch (fdp_.ConsumeIntegralInRange(0, 3)) {
        case 0: tp.add_dims(-1); break;
        case 1: tp.mutable_raw_data()->push_back('\0'); break;
        case 2: tp.set_data_type(fdp_.ConsumeIntegralInRange(-1, 20)); break;
        default: break;
      }
      *net_.add_initializer() = tp;
      ++inits_;
    } else {
      fed_.emplace_back(name, std::move(t));
      net_.add_external_input(name);
    }
    blobs_.push_back(name);
    return name;
  }

  void AddOp(int index) {
    const std::vector<std::string>& ops = OpTypes();
    OperatorDef* op = net_.add_op();
    std::string type;
    switch (fdp_.ConsumeIntegralInRange(0, 63)) {
      case 0: type = "NoSuchOp"; break;
      case 1: type = ""; break;
      default: type = ops[fdp_.ConsumeIntegralInRange<size_t>(0, ops.size() - 1)];
    }
    op->set_type(type);
    op->set_name(absl::StrCat("op", index));
    const OpSchema* schema = CpuRegistry()->FindSchema(type);
    static const OpSchema kEmpty;
    const OpSchema& s = schema ? *schema : kEmpty;

    int max_in = s.max_inputs < 0 ? s.min_inputs + 3 : std::min(s.max_inputs, s.min_inputs + 6);
    int n_in = fdp_.ConsumeIntegralInRange(s.min_inputs, std::max(s.min_inputs, max_in));
    switch (fdp_.ConsumeIntegralInRange(0, 15)) {
      case 0: n_in = std::max(0, s.min_inputs - 1); break;
      case 1: n_in = max_in + 1; break;
      default: break;
    }
    for (int i = 0; i < n_in; ++i) {
      const FormalParam* p = s.InputParam(i);
      if (p != nullptr && p->option == LOOM_PARAM_OPTIONAL && fdp_.ConsumeIntegralInRange(0, 3) == 0) {
        op->add_input("");
      } else {
        op->add_input(InputFor(s, p));
      }
    }
    for (const AttrSpec& spec : s.attrs) {
      int c = fdp_.ConsumeIntegralInRange(0, 15);
      if (c < 6 && !spec.required) continue;
      Argument* a = op->add_arg();
      a->set_name(spec.name);
      if (c == 15) {  // a wrong type (or, by chance, the right one)
        static const LoomAttrType kTypes[] = {LOOM_ATTR_FLOAT,  LOOM_ATTR_INT,  LOOM_ATTR_STRING,
                                              LOOM_ATTR_TENSOR, LOOM_ATTR_NET,  LOOM_ATTR_FLOATS,
                                              LOOM_ATTR_INTS,   LOOM_ATTR_STRINGS, LOOM_ATTR_NETS};
        FillArg(fdp_.PickValueInArray(kTypes), nullptr, a);
      } else {
        FillArg(spec.type, &spec, a);
      }
    }
    if (fdp_.ConsumeIntegralInRange(0, 31) == 0) op->add_arg()->set_name("fuzz_unknown");
    int max_out = s.max_outputs < 0 ? s.min_outputs + 2 : std::min(s.max_outputs, s.min_outputs + 3);
    int n_out = fdp_.ConsumeIntegralInRange(std::max(1, s.min_outputs), std::max(1, max_out));
    if (fdp_.ConsumeIntegralInRange(0, 31) == 0) n_out = max_out + 1;
    std::vector<std::string> outs;
    for (int j = 0; j < n_out; ++j) {
      std::string name = absl::StrCat("y", index, "_", j);
      int c = fdp_.ConsumeIntegralInRange(0, 31);
      if (c == 0 && !blobs_.empty()) name = blobs_[fdp_.ConsumeIntegralInRange<size_t>(0, blobs_.size() - 1)];
      if (c == 1 && j > 0) name = "";  // an absent optional output
      op->add_output(name);
      if (!name.empty()) outs.push_back(name);
    }
    for (const std::string& o : outs) blobs_.push_back(o);
    last_outputs_ = outs;
    switch (fdp_.ConsumeIntegralInRange(0, 31)) {
      case 0: op->set_engine("NO_SUCH_ENGINE"); break;
      case 1: op->mutable_device_option()->set_device_type("CUDA"); break;
      case 2: op->mutable_device_option()->set_device_id(1); break;
      default: break;
    }
  }

  void Build() {
    net_.set_name("fuzz");
    int n_ops = fdp_.ConsumeIntegralInRange(1, kMaxOps);
    for (int i = 0; i < n_ops; ++i) AddOp(i);
    for (const std::string& o : last_outputs_) net_.add_external_output(o);
  }

  FuzzedDataProvider& fdp_;
  NetDef net_;
  std::vector<std::pair<std::string, Tensor>> fed_;
  int inits_ = 0;
  std::vector<std::string> blobs_, last_outputs_;
};

void RunOnce(FuzzedDataProvider* fdp) {
  Builder b(fdp);
  b.Build();
  Workspace ws;
  for (auto& [name, t] : b.fed_) ws.SetBlob(name, t);
  NetOptions options;
  options.num_threads = 1;
  options.max_tensor_bytes = kMaxTensorBytes;
  static const bool verbose = std::getenv("LOOM_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "net:\n%s", b.net_.DebugString().c_str());
  absl::StatusOr<std::unique_ptr<Net>> net = Net::Create(b.net_, &ws, CpuRegistry(), options);
  if (verbose) std::fprintf(stderr, "create: %s\n", net.status().ToString().c_str());
  if (!net.ok()) return;
  auto check_outputs = [&](const absl::Status& s) {
    if (verbose) std::fprintf(stderr, "run: %s\n", s.ToString().c_str());
    if (!s.ok()) return false;
    for (const std::string& o : b.net_.external_output()) {
      LOOM_FUZZ_CHECK(ws.HasBlob(o), "a successful Run left no blob for external output '" + o + "'");
    }
    return true;
  };
  if (!check_outputs((*net)->Run())) return;
  if (!check_outputs((*net)->Run())) return;
  if (b.fed_.empty() || !fdp->ConsumeBool()) return;
  auto& [name, old] = b.fed_[fdp->ConsumeIntegralInRange<size_t>(0, b.fed_.size() - 1)];
  ws.SetBlob(name, b.AnyTensor(old.dtype(), b.AnyShape()));
  check_outputs((*net)->Run());
}

}  // namespace
}  // namespace fuzz
}  // namespace loom

extern "C" int LoomFuzzOne(const uint8_t* data, size_t size) {
  loom::fuzz::QuietProtobuf();
  FuzzedDataProvider fdp(data, size);
  loom::fuzz::RunOnce(&fdp);
  return 0;
}
