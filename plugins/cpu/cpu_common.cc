#include "plugins/cpu/cpu_common.h"

namespace loom {
namespace cpu {

std::string OpLabel(const KernelInfo& info) { return info.op_type() + " '" + info.op_name() + "'"; }

bool NormalizeAxis(int64_t* axis, int64_t rank) {
  if (*axis < -rank || *axis >= std::max<int64_t>(rank, 1)) return false;
  if (*axis < 0) *axis += rank;
  return true;
}

Status ElementwiseGradientOperands(KernelContext& ctx, const std::string& label, const char* other, Tensor* dy,
                                   Tensor* v, Tensor* dx) {
  *dy = ctx.Input(0);
  *v = ctx.Input(1);
  if (dy->shape() != v->shape() || dy->dtype() != v->dtype()) {
    return sdk::InvalidArgument(label + ": dY " + sdk::DTypeName(dy->dtype()) + ShapeStr(dy->shape()) + " and " + other +
                                " " + sdk::DTypeName(v->dtype()) + ShapeStr(v->shape()) +
                                " must have the same shape and dtype");
  }
  return ctx.Output(0, dy->dtype(), dy->shape(), dx);
}

Status ReadScalarInt(const std::string& label, const Tensor& t, const char* name, int64_t* v) {
  std::vector<int64_t> vals;
  if (!ReadInts(t, &vals) || vals.size() != 1) {
    return sdk::InvalidArgument(label + ": input '" + name + "' must be one int32/int64 element; found " +
                                sdk::DTypeName(t.dtype()) + " " + ShapeStr(t.shape()));
  }
  *v = vals[0];
  return Status::Ok();
}

bool ReadInts(const Tensor& t, std::vector<int64_t>* out) {
  out->clear();
  if (t.dtype() == LOOM_DTYPE_INT64) {
    const int64_t* d = t.data<int64_t>();
    out->assign(d, d + t.num_elements());
    return true;
  }
  if (t.dtype() == LOOM_DTYPE_INT32) {
    const int32_t* d = t.data<int32_t>();
    out->assign(d, d + t.num_elements());
    return true;
  }
  return false;
}

}  // namespace cpu
}  // namespace loom
