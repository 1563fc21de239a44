// Gradient makers of the network layers whose gradients are kernels of
// their own (Caffe2's <Op>Gradient convention): Conv, FusedConv, ConvTranspose,
// MaxPool, AveragePool, BatchNormalization, LayerNormalization, Gelu and
// Dropout; and the schemas of those gradient ops.
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/gradients.h"
#include "ops/schema_helpers.h"
#include "ops/semantics/activation.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

using sdk::GradientContext;
using sdk::Status;

bool AnyInputGradient(GradientContext& c) {
  for (size_t i = 0; i < c.num_inputs(); ++i) {
    if (!c.GI(i).empty()) return true;
  }
  return false;
}

// UNIMPLEMENTED when a gradient reaches output k (>= 1) of `op`: outputs
// that are statistics or indices, not functions the backward pass follows.
Status NoGradientThroughOutputs(GradientContext& c, const std::string& op, const std::string& outputs) {
  for (size_t k = 1; k < c.num_outputs(); ++k) {
    if (!c.GO(k).empty()) return sdk::Unimplemented("the gradient through " + op + "'s " + outputs + " output");
  }
  return Status::Ok();
}

// Conv-11 and ConvTranspose-11: <Op>Gradient(X, W, dY) -> dW, dB, dX
// (Caffe2's output order) with the forward op's attributes.
template <const char* kGradientOp>
Status ConvLikeGradient(GradientContext& c) {
  const bool has_b = c.num_inputs() > 2 && !c.I(2).empty();
  if (!AnyInputGradient(c)) return Status::Ok();
  const std::string dw = c.GI(1).empty() ? c.Temp("dW") : c.GI(1);
  return c.AddOp(kGradientOp, {c.I(0), c.I(1), c.GO(0)}, {dw, has_b ? c.GI(2) : "", c.GI(0)},
                 /*copy_arguments=*/true);
}
constexpr char kConvGradient[] = "ConvGradient";
constexpr char kConvTransposeGradient[] = "ConvTransposeGradient";

// FusedConv (transforms/fuse_conv_activation.h's Conv + activation): the activation's
// derivative from Y (FusedActivationGradient, which needs no pre-activation
// kept), then ConvGradient with the Conv's attributes. HardSwish and a
// LeakyRelu of negative alpha have no derivative from Y: UNIMPLEMENTED (the
// rewrite does not make them for a net that trains).
Status FusedConvGradient(GradientContext& c) {
  if (!AnyInputGradient(c)) return Status::Ok();
  std::string name;
  std::vector<float> params;
  LOOM_SDK_RETURN_IF_ERROR(c.info().GetString("activation", &name));
  if (c.info().Has("activation_params")) LOOM_SDK_RETURN_IF_ERROR(c.info().GetFloats("activation_params", &params));
  semantics::FusedActivation act;
  LOOM_SDK_RETURN_IF_ERROR(act.Set(name, params, "FusedConv"));
  if (!act.HasDerivativeFromOutput()) {
    return sdk::Unimplemented("the gradient of FusedConv with activation " + name +
                              " (its derivative needs the pre-activation, which FusedConv does not keep); import the "
                              "model for training (transforms::OptimizeOptions::training), which leaves such a Conv unfused");
  }
  const std::string dz = c.Temp("dZ");
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("FusedActivationGradient", {c.GO(0), c.O(0)}, {dz}));
  c.ArgString("activation", name);
  // The ABI's gradient ops take no float lists: the params as alpha, beta.
  if (params.size() > 0) c.ArgFloat("alpha", params[0]);
  if (params.size() > 1) c.ArgFloat("beta", params[1]);
  const bool has_b = c.num_inputs() > 2 && !c.I(2).empty();
  const std::string dw = c.GI(1).empty() ? c.Temp("dW") : c.GI(1);
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("ConvGradient", {c.I(0), c.I(1), dz}, {dw, has_b ? c.GI(2) : "", c.GI(0)}));
  for (const char* a : {"kernel_shape", "pads", "strides", "dilations"}) {
    std::vector<int64_t> v;
    if (c.info().Has(a)) {
      LOOM_SDK_RETURN_IF_ERROR(c.info().GetInts(a, &v));
      c.ArgInts(a, v);
    }
  }
  std::string auto_pad;
  if (c.info().Has("auto_pad")) {
    LOOM_SDK_RETURN_IF_ERROR(c.info().GetString("auto_pad", &auto_pad));
    c.ArgString("auto_pad", auto_pad);
  }
  c.ArgInt("group", c.info().IntOr("group", 1));
  return Status::Ok();
}

// MaxPool-12 / AveragePool-19: <Op>Gradient(X, Y, dY) -> dX (Caffe2's
// inputs) with the forward op's attributes; MaxPool's Indices has none.
template <const char* kGradientOp>
Status PoolGradient(GradientContext& c) {
  LOOM_SDK_RETURN_IF_ERROR(NoGradientThroughOutputs(c, "MaxPool", "Indices"));
  if (c.GI(0).empty()) return Status::Ok();
  return c.AddOp(kGradientOp, {c.I(0), c.O(0), c.GO(0)}, {c.GI(0)}, /*copy_arguments=*/true);
}
constexpr char kMaxPoolGradient[] = "MaxPoolGradient";
constexpr char kAveragePoolGradient[] = "AveragePoolGradient";

// BatchNormalization-15: BatchNormalizationGradient(X, scale, dY,
// input_mean, input_var) -> dX, dScale, dB with the forward attributes
// (training_mode decides which statistics). The statistics inputs have none
// (they are not trained; running_mean/var are outputs, not functions the
// loss follows).
Status BatchNormGradient(GradientContext& c) {
  c.NoGradient(3);
  c.NoGradient(4);
  LOOM_SDK_RETURN_IF_ERROR(NoGradientThroughOutputs(c, "BatchNormalization", "running statistics"));
  if (!AnyInputGradient(c)) return Status::Ok();
  const std::string dx = c.GI(0).empty() ? c.Temp("dX") : c.GI(0);
  return c.AddOp("BatchNormalizationGradient", {c.I(0), c.I(1), c.GO(0), c.I(3), c.I(4)}, {dx, c.GI(1), c.GI(2)},
                 /*copy_arguments=*/true);
}

// LayerNormalization-17: LayerNormalizationGradient(X, Scale, dY, B) ->
// dX, dScale, dB (B for its shape) with the forward attributes.
Status LayerNormGradient(GradientContext& c) {
  LOOM_SDK_RETURN_IF_ERROR(NoGradientThroughOutputs(c, "LayerNormalization", "Mean or InvStdDev"));
  if (!AnyInputGradient(c)) return Status::Ok();
  const bool has_b = c.num_inputs() > 2 && !c.I(2).empty();
  const std::string dx = c.GI(0).empty() ? c.Temp("dX") : c.GI(0);
  std::vector<std::string> in = {c.I(0), c.I(1), c.GO(0)};
  if (has_b) in.push_back(c.I(2));
  return c.AddOp("LayerNormalizationGradient", in, {dx, c.GI(1), has_b ? c.GI(2) : ""}, /*copy_arguments=*/true);
}

// Gelu-20: GeluGradient(dY, X) -> dX with `approximate`.
Status GeluGradient(GradientContext& c) {
  if (c.GI(0).empty()) return Status::Ok();
  return c.AddOp("GeluGradient", {c.GO(0), c.I(0)}, {c.GI(0)}, /*copy_arguments=*/true);
}

// Dropout-13 (or the opset-7/10 ratio attribute): without a training_mode
// input it is the identity, so dX = dY; with one, DropoutGrad(dY, mask,
// ratio, training_mode) (ONNX Runtime's and Caffe2's name) applies the
// forward mask, which the op must output: the mask a run drew is known only
// through it. ratio and training_mode have none.
Status DropoutGradient(GradientContext& c) {
  for (size_t i = 1; i < c.num_inputs(); ++i) c.NoGradient(i);
  LOOM_SDK_RETURN_IF_ERROR(NoGradientThroughOutputs(c, "Dropout", "mask"));
  if (c.GI(0).empty()) return Status::Ok();
  const bool training = c.num_inputs() > 2 && !c.I(2).empty();
  if (!training) return c.AddOp("Identity", {c.GO(0)}, {c.GI(0)});
  if (c.num_outputs() < 2 || c.O(1).empty()) {
    return sdk::Unimplemented(
        "the gradient of Dropout with a training_mode input needs the op's mask output (output 1); found none. "
        "Name a mask output so the backward pass can apply the mask the forward run drew");
  }
  const std::string ratio = c.num_inputs() > 1 ? c.I(1) : "";
  return c.AddOp("DropoutGrad", {c.GO(0), c.O(1), ratio, c.I(2)}, {c.GI(0)}, /*copy_arguments=*/true);
}

// Outputs (dW like W, dB [bias size], dX like X) of Conv's and
// ConvTranspose's gradients; the bias size is W[0] (Conv's M) or W[1] *
// group (ConvTranspose's M).
template <bool kTranspose>
LoomStatus* ConvLikeGradientInfer(LoomInferenceContext* c) {
  sdk::InferenceContext ctx(c);
  std::vector<int64_t> xs, ws;
  if (ctx.InputShape(1, &ws)) {
    ctx.SetOutputShape(0, ws);
    if (ws.size() >= 2 && ctx.num_outputs() > 1) {
      ctx.SetOutputShape(1, {kTranspose ? ws[1] * ctx.info().IntOr("group", 1) : ws[0]});
    }
  }
  if (ctx.num_outputs() > 2 && ctx.InputShape(0, &xs)) ctx.SetOutputShape(2, xs);
  return nullptr;
}

// BatchNormalizationGradient: dX like X, dScale and dB like scale.
// LayerNormalizationGradient: dX like X, dScale like Scale, dB like B.
template <bool kLayerNorm>
LoomStatus* NormGradientInfer(LoomInferenceContext* c) {
  sdk::InferenceContext ctx(c);
  std::vector<int64_t> s;
  if (ctx.InputShape(0, &s)) ctx.SetOutputShape(0, s);
  if (ctx.num_outputs() > 1 && ctx.InputShape(1, &s)) ctx.SetOutputShape(1, s);
  if (ctx.num_outputs() > 2 && ctx.InputShape(kLayerNorm ? 3 : 1, &s)) ctx.SetOutputShape(2, s);
  return nullptr;
}

}  // namespace

LoomGradientFn NnLayerGradient(const std::string& op) {
  if (op == "Conv") return sdk::internal::GradientTrampoline<&ConvLikeGradient<kConvGradient>>;
  if (op == "FusedConv") return sdk::internal::GradientTrampoline<&FusedConvGradient>;
  if (op == "ConvTranspose") return sdk::internal::GradientTrampoline<&ConvLikeGradient<kConvTransposeGradient>>;
  if (op == "MaxPool") return sdk::internal::GradientTrampoline<&PoolGradient<kMaxPoolGradient>>;
  if (op == "AveragePool") return sdk::internal::GradientTrampoline<&PoolGradient<kAveragePoolGradient>>;
  if (op == "BatchNormalization") return sdk::internal::GradientTrampoline<&BatchNormGradient>;
  if (op == "LayerNormalization") return sdk::internal::GradientTrampoline<&LayerNormGradient>;
  if (op == "Gelu") return sdk::internal::GradientTrampoline<&GeluGradient>;
  if (op == "Dropout") return sdk::internal::GradientTrampoline<&DropoutGradient>;
  return nullptr;
}

sdk::Status RegisterNnLayerGradientSchemas(sdk::Registrar& reg) {
  const std::vector<TypeSet> f = {{"T", FloatTypes()}};
  std::vector<std::string> conv_attrs = WindowAttrs();
  conv_attrs.push_back("group:int=1|the forward op's group");
  std::vector<std::string> convt_attrs = ConvTransposeWindowAttrs();
  convt_attrs.push_back("group:int=1|the forward op's group");
  std::vector<std::string> max_attrs = WindowAttrs(/*kernel_shape_required=*/true);
  max_attrs.insert(max_attrs.end(), {"ceil_mode:int=0|MaxPool's", "storage_order:int=0|MaxPool's (no effect)"});
  std::vector<std::string> avg_attrs = WindowAttrs(/*kernel_shape_required=*/true);
  avg_attrs.insert(avg_attrs.end(), {"ceil_mode:int=0|AveragePool's", "count_include_pad:int=0|AveragePool's"});
  return RegisterOps(reg, InDomain(LOOM_OPS_DOMAIN, {
      {"ConvGradient", 1,
       "The gradient of ONNX Conv-11 (Caffe2's ConvGradient): from X [N, C, D...], W [M, C / group, k...] and dY "
       "(Conv's Y shape), dW (W's shape), the optional dB [M] (dY summed over N and space) and the optional dX (X's "
       "shape). Conv's window attributes and group.",
       {"X:T", "W:T", "dY:T"}, {"dW:T", "dB:T?", "dX:T?"}, f, conv_attrs, &ConvLikeGradientInfer<false>},
      {"FusedActivationGradient", 1,
       "The gradient of FusedConv's activation from its output: dX = dY * f'(X), f' read off Y (Relu, LeakyRelu of "
       "alpha >= 0, Clip, Sigmoid, Tanh, HardSigmoid; at the kinks PyTorch's choices: 0 at Relu's 0, the gradient "
       "only strictly inside Clip's and HardSigmoid's linear range). FusedConv's activation attributes; "
       "UNIMPLEMENTED for HardSwish.",
       {"dY:T", "Y:T|the activation's output"}, {"dX:T|Y's shape"}, f,
       {"activation:string!|FusedConv's", "alpha:float?|FusedConv's activation_params[0]",
        "beta:float?|FusedConv's activation_params[1]"},
       &SameShapeAsInput0},
      {"ConvTransposeGradient", 1,
       "The gradient of ONNX ConvTranspose-11: from X [N, C, D...], W [C, M / group, k...] and dY (ConvTranspose's "
       "Y shape [N, M, D'...]), dW (W's shape), the optional dB [M] (dY summed over N and space) and the optional "
       "dX (X's shape: Conv of dY with W). ConvTranspose's attributes and group.",
       {"X:T", "W:T", "dY:T"}, {"dW:T", "dB:T?", "dX:T?"}, f, convt_attrs, &ConvLikeGradientInfer<true>},
      {"MaxPoolGradient", 1,
       "The gradient of ONNX MaxPool-12 (Caffe2's MaxPoolGradient): dX [X's shape] gets each dY at the maximum "
       "of its window, 0 elsewhere; overlapping windows add. On exact ties the first maximum in window order (the "
       "element MaxPool's Indices names) in the CPU's float64 kernel; its float32 kernel (oneDNN) picks one of "
       "the tied elements. MaxPool's attributes.",
       {"X:T|[N, C, D...]", "Y:T|MaxPool's output (unused; Caffe2's signature)", "dY:T|Y's shape"},
       {"dX:T|X's shape"}, f, max_attrs, &SameShapeAsInput0},
      {"AveragePoolGradient", 1,
       "The gradient of ONNX AveragePool-19 (Caffe2's AveragePoolGradient): each dY spread evenly over its "
       "window's taps inside X, divided by the forward op's count (count_include_pad as AveragePool). "
       "AveragePool's attributes.",
       {"X:T|[N, C, D...]", "Y:T|AveragePool's output (unused; Caffe2's signature)", "dY:T|Y's shape"},
       {"dX:T|X's shape"}, f, avg_attrs, &SameShapeAsInput0},
      {"BatchNormalizationGradient", 1,
       "The gradient of ONNX BatchNormalization-15 (Caffe2's SpatialBNGradient). training_mode = 1: through the "
       "batch statistics of X (recomputed), dX = scale * inv_std / m * (m dY - sum(dY) - xhat sum(dY xhat)), m = N * "
       "D1 * ... * Dn; training_mode = 0: dX = dY * scale * inv_std with input_mean/input_var. Either way dScale = "
       "sum(dY xhat) and dB = sum(dY) over N and the spatial dims.",
       {"X:T|[N, C, D...]", "scale:T|[C]", "dY:T|X's shape", "input_mean:T|[C] (training_mode = 0)",
        "input_var:T|[C] (training_mode = 0)"},
       {"dX:T|X's shape", "dScale:T?|[C]", "dB:T?|[C]"}, f,
       {"epsilon:float=1e-5|the forward op's", "momentum:float=0.9|the forward op's (no effect)",
        "training_mode:int=0|the forward op's", "running_var_unbiased:int=0|the forward op's (no effect)"},
       &NormGradientInfer<false>},
      {"LayerNormalizationGradient", 1,
       "The gradient of ONNX LayerNormalization-17 over the dims [axis, rank) of X: with g = dY * Scale "
       "(broadcast), dX = inv_std * (g - mean(g) - xhat * mean(g * xhat)) per normalized row; dScale = dY * xhat and "
       "dB = dY, each summed over the rows and to the parameter's shape. Statistics in double.",
       {"X:T|rank >= 1", "Scale:T|broadcastable to X.shape[axis:]", "dY:T|X's shape",
        "B:T?|the forward op's B (its shape only); needed for dB"},
       {"dX:T|X's shape", "dScale:T?|Scale's shape", "dB:T?|B's shape"}, f,
       {"axis:int=-1|the forward op's", "epsilon:float=1e-5|the forward op's",
        "stash_type:int=1|the forward op's (statistics are computed in double)"},
       &NormGradientInfer<true>},
      {"GeluGradient", 1,
       "The gradient of ONNX Gelu-20: dX = dY * (Phi(X) + X phi(X)) (Phi, phi: the standard normal CDF and "
       "density), or with approximate = \"tanh\" the derivative of 0.5 X (1 + tanh(sqrt(2 / pi) (X + 0.044715 X^3))).",
       {"dY:T", "X:T|Gelu's input"}, {"dX:T|X's shape"}, f, {"approximate:string=none|Gelu's"}, &SameShapeAsInput0},
      {"DropoutGrad", 1,
       "The gradient of ONNX Dropout-13 (ONNX Runtime's and Caffe2's DropoutGrad): dX = dY * mask / (1 - ratio) "
       "when training_mode is true, else dY.",
       {"dY:T", "mask:T2|Dropout's mask output (dY's shape)", "ratio:T1?|scalar; default the attribute, else 0.5",
        "training_mode:T2?|scalar bool, default false"},
       {"dX:T|dY's shape"}, {{"T", FloatTypes()}, {"T1", FloatTypes()}, {"T2", {LOOM_DTYPE_BOOL}}},
       {"ratio:float?|Dropout's opset-7/10 attribute", "seed:int?|Dropout's (no effect)"}, &SameShapeAsInput0},
  }));
}

}  // namespace ops
}  // namespace loom
