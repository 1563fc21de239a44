// Tensor kernels that change only the shape (the bytes are copied as they
// are): Reshape, Flatten, Squeeze, Unsqueeze, Identity, plus
// Shape and Constant. ONNX semantics (the opsets are in ops/tensor.cc).
// Every dtype; an in-place run (output sharing the input's memory) skips the
// copy.
#include <cstring>

#include "ops/semantics/data_movement.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/tensor_util.h"

namespace loom {
namespace cpu {
namespace {

// Reshape-14, Flatten-13, Squeeze-13/1, Unsqueeze-13/1: the output shape
// from the attributes and the int input Attrs::kIntsInput (ops/semantics/
// data_movement.h), the bytes as they are.
template <typename Attrs>
class ShapeOnlyKernel : public semantics::AttrsKernel<Attrs> {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    std::vector<int64_t> ints, out;
    bool given = false;
    if constexpr (Attrs::kIntsInput != nullptr) {
      LOOM_SDK_RETURN_IF_ERROR(ReadIntsInput(ctx, 1, this->label_, Attrs::kIntsInput, true, &ints, &given));
    }
    LOOM_SDK_RETURN_IF_ERROR(this->attrs_.OutputShape(this->label_, x.shape(), given, ints, &out));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), out, &y));
    CopyData(x, y);
    return Status::Ok();
  }
};

class IdentityKernel {
 public:
  Status Init(const KernelInfo&) { return Status::Ok(); }
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    if (sdk::IsValueType(x.dtype())) return sdk::AssignValue(ctx.OutputHandle(0), x);  // shared: immutable
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), x.shape(), &y));
    CopyData(x, y);
    return Status::Ok();
  }
};

// Shape-15: dims[start:end] as int64.
class ShapeKernel {
 public:
  Status Init(const KernelInfo& info) {
    start_ = info.IntOr("start", 0);
    has_end_ = info.Has("end");
    end_ = info.IntOr("end", 0);
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    const std::vector<int64_t> dims = x.shape();
    const int64_t rank = static_cast<int64_t>(dims.size());
    int64_t start = start_ < 0 ? start_ + rank : start_;
    int64_t end = has_end_ ? (end_ < 0 ? end_ + rank : end_) : rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, 0, rank);
    const int64_t n = std::max<int64_t>(0, end - start);
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_INT64, {n}, &y));
    for (int64_t i = 0; i < n; ++i) y.data<int64_t>()[i] = dims[start + i];
    return Status::Ok();
  }

 private:
  int64_t start_ = 0, end_ = 0;
  bool has_end_ = false;
};

// Constant-13: the value of its one value* attribute, read at creation.
class ConstantKernel {
 public:
  Status Init(const KernelInfo& info) {
    const std::string label = OpLabel(info);
    int set = 0;
    for (const char* a : {"value", "value_float", "value_floats", "value_int", "value_ints", "value_string",
                          "value_strings"}) {
      set += info.Has(a) ? 1 : 0;
    }
    if (set != 1) {
      return sdk::InvalidArgument(label + ": exactly one of value, value_float, value_floats, value_int, "
                                  "value_ints must be set; found " + std::to_string(set));
    }
    if (info.Has("value")) {
      Tensor t;
      LOOM_SDK_RETURN_IF_ERROR(info.GetTensor("value", &t));
      dtype_ = t.dtype();
      shape_ = t.shape();
      const char* p = static_cast<const char*>(t.raw_data());
      bytes_.assign(p, p + t.num_elements() * sdk::DTypeSize(dtype_));
    } else if (info.Has("value_float") || info.Has("value_floats")) {
      std::vector<float> v;
      if (info.Has("value_float")) {
        float f = 0;
        LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("value_float", &f));
        v.push_back(f);
      } else {
        LOOM_SDK_RETURN_IF_ERROR(info.GetFloats("value_floats", &v));
        shape_ = {static_cast<int64_t>(v.size())};
      }
      dtype_ = LOOM_DTYPE_FLOAT;
      Store(v);
    } else if (info.Has("value_int") || info.Has("value_ints")) {
      std::vector<int64_t> v;
      if (info.Has("value_int")) {
        int64_t i = 0;
        LOOM_SDK_RETURN_IF_ERROR(info.GetInt("value_int", &i));
        v.push_back(i);
      } else {
        LOOM_SDK_RETURN_IF_ERROR(info.GetInts("value_ints", &v));
        shape_ = {static_cast<int64_t>(v.size())};
      }
      dtype_ = LOOM_DTYPE_INT64;
      Store(v);
    } else {
      return sdk::Unimplemented(label + ": string constants are not supported");
    }
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    Tensor y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, dtype_, shape_, &y));
    if (!bytes_.empty()) std::memcpy(y.raw_data(), bytes_.data(), bytes_.size());
    return Status::Ok();
  }

 private:
  template <typename T>
  void Store(const std::vector<T>& v) {
    const char* p = reinterpret_cast<const char*>(v.data());
    bytes_.assign(p, p + v.size() * sizeof(T));
  }
  LoomDataType dtype_ = LOOM_DTYPE_FLOAT;
  std::vector<int64_t> shape_;  // rank 0 unless a list or tensor says otherwise
  std::vector<char> bytes_;
};

}  // namespace

Status RegisterTensorShapeKernels(sdk::Registrar& reg) {
  const std::vector<LoomDataType> all = AllDTypes();
  const std::vector<LoomDataType> with_string = TensorDTypes();  // whole elements moved: strings too
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ShapeOnlyKernel<semantics::ReshapeAttrs>>("Reshape", {"CPU", "", 0, {{"T", with_string}}}));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ShapeOnlyKernel<semantics::FlattenAttrs>>("Flatten", {"CPU", "", 0, {{"T", with_string}}}));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ShapeOnlyKernel<semantics::SqueezeAttrs>>("Squeeze", {"CPU", "", 0, {{"T", with_string}}}));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ShapeOnlyKernel<semantics::UnsqueezeAttrs>>("Unsqueeze", {"CPU", "", 0, {{"T", with_string}}}));
  std::vector<LoomDataType> values = all;  // Identity-16 passes strings, sequences and optionals on too
  values.push_back(LOOM_DTYPE_STRING);
  for (LoomDataType t : all) {
    values.push_back(t | LOOM_DTYPE_SEQUENCE);
    values.push_back(t | LOOM_DTYPE_OPTIONAL);
    values.push_back(t | LOOM_DTYPE_SEQUENCE | LOOM_DTYPE_OPTIONAL);
  }
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<IdentityKernel>("Identity", {"CPU", "", 0, {{"T", values}}}));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ShapeKernel>("Shape", {"CPU", "", 0, {{"T", with_string}}}));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ConstantKernel>("Constant", {"CPU", "", 0, {{"T", all}}}));
  return Status::Ok();
}

}  // namespace cpu
}  // namespace loom
