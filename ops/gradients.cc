// Gradient makers of the standard ops. Each writes GI(i) for the inputs the
// backward pass needs (GI(i) empty: skipped). Broadcasting binary ops sum
// their output gradient back to each input's shape with SumReduceLike.
#include "ops/gradients.h"

#include <map>
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/schema_helpers.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

using sdk::GradientContext;
using sdk::Status;

// GI(i) = SumReduceLike(g, I(i)) when input i needs a gradient.
Status ReduceTo(GradientContext& c, size_t i, const std::string& g) {
  if (c.GI(i).empty()) return Status::Ok();
  return c.AddOp("SumReduceLike", {g, c.I(i)}, {c.GI(i)});
}

// d(A + B) = (dC, dC), each summed to its input's shape.
Status AddGradient(GradientContext& c) {
  LOOM_SDK_RETURN_IF_ERROR(ReduceTo(c, 0, c.GO(0)));
  return ReduceTo(c, 1, c.GO(0));
}

// d(A - B) = (dC, -dC).
Status SubGradient(GradientContext& c) {
  LOOM_SDK_RETURN_IF_ERROR(ReduceTo(c, 0, c.GO(0)));
  if (c.GI(1).empty()) return Status::Ok();
  const std::string neg = c.Temp("neg");
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Neg", {c.GO(0)}, {neg}));
  return ReduceTo(c, 1, neg);
}

// d(A * B) = (dC * B, dC * A).
Status MulGradient(GradientContext& c) {
  for (size_t i = 0; i < 2; ++i) {
    if (c.GI(i).empty()) continue;
    const std::string prod = c.Temp("prod" + std::to_string(i));
    LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Mul", {c.GO(0), c.I(1 - i)}, {prod}));
    LOOM_SDK_RETURN_IF_ERROR(ReduceTo(c, i, prod));
  }
  return Status::Ok();
}

// Sum (variadic, broadcasting): each input gets dC summed to its shape.
Status SumGradient(GradientContext& c) {
  for (size_t i = 0; i < c.num_inputs(); ++i) LOOM_SDK_RETURN_IF_ERROR(ReduceTo(c, i, c.GO(0)));
  return Status::Ok();
}

// ReduceSum-13: dX = dY expanded back to X's shape (first unsqueezed at the
// reduced axes when keepdims = 0 dropped them); the axes input has none.
Status ReduceSumGradient(GradientContext& c) {
  const bool has_axes = c.num_inputs() > 1 && !c.I(1).empty();
  if (has_axes) c.NoGradient(1);
  if (c.GI(0).empty()) return Status::Ok();
  int64_t keepdims = 1, noop = 0;
  std::vector<int64_t> axes_attr;
  LOOM_SDK_RETURN_IF_ERROR(c.info().GetInt("keepdims", &keepdims));
  LOOM_SDK_RETURN_IF_ERROR(c.info().GetInt("noop_with_empty_axes", &noop));
  (void)c.info().GetInts("axes", &axes_attr);  // the opset-1..11 form, when given
  if (!has_axes && axes_attr.empty() && noop) return c.AddOp("Identity", {c.GO(0)}, {c.GI(0)});
  std::string g = c.GO(0);
  if (!keepdims && (has_axes || !axes_attr.empty())) {
    if (!has_axes) return sdk::Unimplemented("ReduceSum with the axes attribute and keepdims = 0");
    const std::string unsq = c.Temp("unsqueezed");
    LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Unsqueeze", {g, c.I(1)}, {unsq}));
    g = unsq;
  }
  const std::string shape = c.Temp("shape");
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Shape", {c.I(0)}, {shape}));
  return c.AddOp("Expand", {g, shape}, {c.GI(0)});
}

// GI(0) = op(GO(0)) (Neg, Identity).
template <const char* kOp>
Status SameOpGradient(GradientContext& c) {
  if (c.GI(0).empty()) return Status::Ok();
  return c.AddOp(kOp, {c.GO(0)}, {c.GI(0)});
}
constexpr char kNeg[] = "Neg";
constexpr char kIdentity[] = "Identity";

// d exp(X) = dY * Y.
Status ExpGradient(GradientContext& c) {
  if (c.GI(0).empty()) return Status::Ok();
  return c.AddOp("Mul", {c.GO(0), c.O(0)}, {c.GI(0)});
}

// Activations whose gradient reads Y: XGradient(dY, Y) (Caffe2's form).
template <const char* kOp>
Status FromOutputGradient(GradientContext& c) {
  if (c.GI(0).empty()) return Status::Ok();
  return c.AddOp(kOp, {c.GO(0), c.O(0)}, {c.GI(0)});
}
constexpr char kReluGradient[] = "ReluGradient";
constexpr char kSigmoidGradient[] = "SigmoidGradient";
constexpr char kTanhGradient[] = "TanhGradient";

// SumReduceLike: C has B's shape.
LoomStatus* SameShapeAsInput1(LoomInferenceContext* c) {
  sdk::InferenceContext ctx(c);
  std::vector<int64_t> s;
  if (ctx.InputShape(1, &s)) ctx.SetOutputShape(0, s);
  return nullptr;
}

}  // namespace

LoomGradientFn StandardGradient(const std::string& op) {
  static const std::map<std::string, LoomGradientFn> makers = {
      {"Add", sdk::internal::GradientTrampoline<&AddGradient>},
      {"Sub", sdk::internal::GradientTrampoline<&SubGradient>},
      {"Mul", sdk::internal::GradientTrampoline<&MulGradient>},
      {"Neg", sdk::internal::GradientTrampoline<&SameOpGradient<kNeg>>},
      {"Identity", sdk::internal::GradientTrampoline<&SameOpGradient<kIdentity>>},
      {"Exp", sdk::internal::GradientTrampoline<&ExpGradient>},
      {"Sum", sdk::internal::GradientTrampoline<&SumGradient>},
      {"ReduceSum", sdk::internal::GradientTrampoline<&ReduceSumGradient>},
      {"Relu", sdk::internal::GradientTrampoline<&FromOutputGradient<kReluGradient>>},
      {"Sigmoid", sdk::internal::GradientTrampoline<&FromOutputGradient<kSigmoidGradient>>},
      {"Tanh", sdk::internal::GradientTrampoline<&FromOutputGradient<kTanhGradient>>},
  };
  auto it = makers.find(op);
  return it != makers.end() ? it->second : nullptr;
}

sdk::Status RegisterGradientSchemas(sdk::Registrar& reg) {
  const std::vector<TypeSet> f = {{"T", FloatTypes()}};
  return RegisterOps(reg, {
      {"SumReduceLike", 1,
       "Caffe2 SumReduceLike with numpy broadcasting: C = A summed over the dims along which B was broadcast to "
       "A's shape (B's shape right-aligned against A's; a dim of B that is 1 or missing is summed), so C has B's "
       "shape. The gradient of a broadcasting binary op's input.",
       {"A:T|the broadcast shape", "B:T|the shape to reduce to (values unused)"}, {"C:T|B's shape"}, f, {},
       &SameShapeAsInput1},
      {"ReluGradient", 1, "Caffe2 ReluGradient: dX = Y > 0 ? dY : 0, from dY and Relu's output Y.",
       {"dY:T", "Y:T"}, {"dX:T"}, f, {}, &SameShapeAsInput0},
      {"SigmoidGradient", 1, "Caffe2 SigmoidGradient: dX = dY * Y * (1 - Y), from dY and Sigmoid's output Y.",
       {"dY:T", "Y:T"}, {"dX:T"}, f, {}, &SameShapeAsInput0},
      {"TanhGradient", 1, "Caffe2 TanhGradient: dX = dY * (1 - Y * Y), from dY and Tanh's output Y.",
       {"dY:T", "Y:T"}, {"dX:T"}, f, {}, &SameShapeAsInput0},
  });
}

}  // namespace ops
}  // namespace loom
