#include "ops/shape_inference.h"

#include "ops/semantics/common.h"
#include "ops/semantics/shape_math.h"
#include "ops/semantics/window.h"

#include <algorithm>
#include <string>

namespace loom {
namespace ops {

bool Broadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b, std::vector<int64_t>* out) {
  return semantics::BroadcastShape(a, b, out);
}

bool HasInput(const sdk::InferenceContext& ctx, size_t i) {
  return i < ctx.num_inputs() && ctx.InputDType(i) != LOOM_DTYPE_UNDEFINED;
}

bool ConstantInts(const sdk::InferenceContext& ctx, size_t i, std::vector<int64_t>* out) {
  if (!HasInput(ctx, i)) return false;
  sdk::Tensor t = ctx.InputConstant(i);
  if (!t.present()) return false;
  if (t.dtype() == LOOM_DTYPE_INT64) {
    out->assign(t.data<int64_t>(), t.data<int64_t>() + t.num_elements());
  } else if (t.dtype() == LOOM_DTYPE_INT32) {
    out->assign(t.data<int32_t>(), t.data<int32_t>() + t.num_elements());
  } else {
    return false;
  }
  return true;
}

bool ReducedShape(const std::vector<int64_t>& in, std::vector<int64_t> axes, bool keepdims, bool noop,
                  std::vector<int64_t>* out, std::string* error) {
  const int64_t rank = static_cast<int64_t>(in.size());
  if (axes.empty()) {
    if (noop) {
      *out = in;
      return true;
    }
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  }
  std::vector<bool> reduce(in.size(), false);
  for (int64_t a : axes) {
    if (a < -rank || a >= rank) {
      *error = "axis " + std::to_string(a) + " is out of range for rank " + std::to_string(rank);
      return false;
    }
    if (a < 0) a += rank;
    if (reduce[a]) {
      *error = "axis " + std::to_string(a) + " is given twice";
      return false;
    }
    reduce[a] = true;
  }
  out->clear();
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduce[d]) out->push_back(in[d]);
    else if (keepdims) out->push_back(1);
  }
  return true;
}

sdk::Status InferReduceShape(sdk::InferenceContext& ctx, const std::string& error_prefix) {
  std::vector<int64_t> in;
  if (!ctx.InputShape(0, &in)) return sdk::Status::Ok();
  sdk::KernelInfo info = ctx.info();
  std::vector<int64_t> axes;
  if (ctx.num_inputs() > 1 && ctx.InputDType(1) != LOOM_DTYPE_UNDEFINED) {
    sdk::Tensor t = ctx.InputConstant(1);
    if (!t.present()) return sdk::Status::Ok();  // computed at run time
    const int64_t* d = t.data<int64_t>();
    axes.assign(d, d + t.num_elements());
  } else {
    axes = info.IntsOr("axes", {});
  }
  std::vector<int64_t> out;
  std::string error;
  if (!ReducedShape(in, axes, info.IntOr("keepdims", 1) != 0, info.IntOr("noop_with_empty_axes", 0) != 0, &out,
                    &error)) {
    return sdk::InvalidArgument(error_prefix + error);
  }
  ctx.SetOutputShape(0, out);
  return sdk::Status::Ok();
}

LoomStatus* PoolShapes(LoomInferenceContext* c) {
  sdk::InferenceContext ctx(c);
  std::vector<int64_t> x, out;
  if (!ctx.InputShape(0, &x) || x.size() < 3) return nullptr;
  semantics::WindowAttrs attrs;
  if (!attrs.Read(ctx.info(), "").ok() || !attrs.InferOutputShape(x, x[1], attrs.kernel, &out)) return nullptr;
  for (size_t i = 0; i < ctx.num_outputs(); ++i) ctx.SetOutputShape(i, out);
  return nullptr;
}

LoomStatus* GlobalPoolShapes(LoomInferenceContext* c) {
  sdk::InferenceContext ctx(c);
  std::vector<int64_t> x, out;
  if (!ctx.InputShape(0, &x) || !semantics::GlobalPoolShape("", x, &out).ok()) return nullptr;
  ctx.SetOutputShape(0, out);
  return nullptr;
}

LoomStatus* SameShapeAsInput0(LoomInferenceContext* c) {
  sdk::InferenceContext ctx(c);
  std::vector<int64_t> s;
  if (ctx.InputShape(0, &s)) ctx.SetOutputShape(0, s);
  return nullptr;
}

LoomStatus* BroadcastShapes(LoomInferenceContext* c) {
  sdk::InferenceContext ctx(c);
  std::vector<int64_t> out;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    std::vector<int64_t> s;
    if (!ctx.InputShape(i, &s)) return nullptr;  // unknown: leave it
    std::vector<int64_t> next;
    if (i == 0) {
      out = s;
    } else if (!Broadcast(out, s, &next)) {
      std::string msg = "input " + std::to_string(i) + " of shape " + semantics::ShapeStr(s) +
                        " does not broadcast with " + semantics::ShapeStr(out);
      return sdk::Api().CreateStatus(LOOM_INVALID_ARGUMENT, msg.c_str());
    } else {
      out = next;
    }
  }
  ctx.SetOutputShape(0, out);
  return nullptr;
}

bool NormAxis(int64_t* axis, int64_t rank) {
  if (*axis < -rank || *axis >= rank) return false;
  if (*axis < 0) *axis += rank;
  return true;
}

}  // namespace ops
}  // namespace loom
