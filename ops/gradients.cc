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

// dY of a ReduceSum/ReduceMean-13 spread back over X's shape into `out`:
// unsqueezed at the reduced axes when keepdims = 0 dropped them, then
// expanded (noop_with_empty_axes without axes: dY itself).
Status SpreadToInput(GradientContext& c, const std::string& src, const std::string& out) {
  const bool has_axes = c.num_inputs() > 1 && !c.I(1).empty();
  int64_t keepdims = 1, noop = 0;
  std::vector<int64_t> axes_attr;
  LOOM_SDK_RETURN_IF_ERROR(c.info().GetInt("keepdims", &keepdims));
  noop = c.info().IntOr("noop_with_empty_axes", 0);
  (void)c.info().GetInts("axes", &axes_attr);  // the opset-1..11 form, when given
  if (!has_axes && axes_attr.empty() && noop) return c.AddOp("Identity", {src}, {out});
  std::string g = src;
  if (!keepdims && (has_axes || !axes_attr.empty())) {
    if (!has_axes) return sdk::Unimplemented("the gradient of a reduction with the axes attribute and keepdims = 0");
    const std::string unsq = c.Temp("unsqueezed_" + src);
    LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Unsqueeze", {g, c.I(1)}, {unsq}));
    g = unsq;
  }
  const std::string shape = c.Temp("shape_" + src);
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Shape", {c.I(0)}, {shape}));
  return c.AddOp("Expand", {g, shape}, {out});
}

// GI(0) = `spread` over the number of input elements each output element
// averaged (the size of X over the size of Y): the means' gradients.
Status DivideByReducedCount(GradientContext& c, const std::string& spread) {
  const std::string sx = c.Temp("sx"), sy = c.Temp("sy"), cnt = c.Temp("cnt"), cntf = c.Temp("cntf");
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Size", {c.I(0)}, {sx}));
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Size", {c.O(0)}, {sy}));
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Div", {sx, sy}, {cnt}));
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("CastLike", {cnt, c.GO(0)}, {cntf}));
  return c.AddOp("Div", {spread, cntf}, {c.GI(0)});
}

// ReduceSum-13: dX = dY spread over X; the axes input has none.
Status ReduceSumGradient(GradientContext& c) {
  if (c.num_inputs() > 1 && !c.I(1).empty()) c.NoGradient(1);
  if (c.GI(0).empty()) return Status::Ok();
  return SpreadToInput(c, c.GO(0), c.GI(0));
}

// d(A / B) = (dC / B, -dC * C / B).
Status DivGradient(GradientContext& c) {
  if (!c.GI(0).empty()) {
    const std::string q = c.Temp("q");
    LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Div", {c.GO(0), c.I(1)}, {q}));
    LOOM_SDK_RETURN_IF_ERROR(ReduceTo(c, 0, q));
  }
  if (!c.GI(1).empty()) {
    const std::string p = c.Temp("p"), q = c.Temp("qc"), n = c.Temp("n");
    LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Mul", {c.GO(0), c.O(0)}, {p}));
    LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Div", {p, c.I(1)}, {q}));
    LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Neg", {q}, {n}));
    LOOM_SDK_RETURN_IF_ERROR(ReduceTo(c, 1, n));
  }
  return Status::Ok();
}

// d log(X) = dY / X.
Status LogGradient(GradientContext& c) {
  if (c.GI(0).empty()) return Status::Ok();
  return c.AddOp("Div", {c.GO(0), c.I(0)}, {c.GI(0)});
}

// d sqrt(X) = dY / (2 Y).
Status SqrtGradient(GradientContext& c) {
  if (c.GI(0).empty()) return Status::Ok();
  const std::string twice = c.Temp("twice");
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Add", {c.O(0), c.O(0)}, {twice}));
  return c.AddOp("Div", {c.GO(0), twice}, {c.GI(0)});
}

// Gemm-13, Y = alpha A' B' + beta C (A' = A or A^T, B' = B or B^T):
//   dA' = alpha dY B'^T, dB' = alpha A'^T dY, dC = beta dY summed to C;
// each written as one Gemm with the transposes folded in.
Status GemmGradient(GradientContext& c) {
  float alpha = 1, beta = 1;
  int64_t ta = 0, tb = 0;
  LOOM_SDK_RETURN_IF_ERROR(c.info().GetFloat("alpha", &alpha));
  LOOM_SDK_RETURN_IF_ERROR(c.info().GetFloat("beta", &beta));
  LOOM_SDK_RETURN_IF_ERROR(c.info().GetInt("transA", &ta));
  LOOM_SDK_RETURN_IF_ERROR(c.info().GetInt("transB", &tb));
  const std::string dy = c.GO(0), a = c.I(0), b = c.I(1);
  auto gemm = [&](const std::string& x, const std::string& y, int64_t tx, int64_t ty, const std::string& out) -> Status {
    LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Gemm", {x, y}, {out}));
    c.ArgInt("transA", tx).ArgInt("transB", ty).ArgFloat("alpha", alpha);
    return Status::Ok();
  };
  if (!c.GI(0).empty()) {
    // dA = dY B'^T, or (transA) its transpose B' dY^T.
    if (!ta) LOOM_SDK_RETURN_IF_ERROR(gemm(dy, b, 0, tb ? 0 : 1, c.GI(0)));
    else LOOM_SDK_RETURN_IF_ERROR(gemm(b, dy, tb, 1, c.GI(0)));
  }
  if (!c.GI(1).empty()) {
    // dB = A'^T dY, or (transB) its transpose dY^T A'.
    if (!tb) LOOM_SDK_RETURN_IF_ERROR(gemm(a, dy, ta ? 0 : 1, 0, c.GI(1)));
    else LOOM_SDK_RETURN_IF_ERROR(gemm(dy, a, 1, ta, c.GI(1)));
  }
  if (c.num_inputs() > 2 && !c.GI(2).empty()) {
    if (beta != 1.0f) return sdk::Unimplemented("Gemm's gradient of C with beta != 1");
    LOOM_SDK_RETURN_IF_ERROR(ReduceTo(c, 2, dy));
  }
  return Status::Ok();
}

// MatMul (rank >= 2, batch dims broadcast): dA = dY B^T and dB = A^T dY per
// batch (Caffe2's BatchMatMul with trans_b / trans_a: oneDNN reads the
// transposes through strides), then summed over the batch dims the operand
// was broadcast along.
Status MatMulGradient(GradientContext& c) {
  for (size_t i = 0; i < 2; ++i) {
    if (c.GI(i).empty()) continue;
    const std::string t = c.Temp("mm" + std::to_string(i));
    if (i == 0) LOOM_SDK_RETURN_IF_ERROR(c.AddOp("BatchMatMul", {c.GO(0), c.I(1)}, {t}));
    else LOOM_SDK_RETURN_IF_ERROR(c.AddOp("BatchMatMul", {c.I(0), c.GO(0)}, {t}));
    c.ArgInt(i == 0 ? "trans_b" : "trans_a", 1);
    LOOM_SDK_RETURN_IF_ERROR(ReduceTo(c, i, t));
  }
  return Status::Ok();
}

// Reshape, Flatten, Squeeze, Unsqueeze: dX = dY reshaped to X's shape; a
// shape or axes input has no gradient.
Status ReshapeGradient(GradientContext& c) {
  for (size_t i = 1; i < c.num_inputs(); ++i) c.NoGradient(i);
  if (c.GI(0).empty()) return Status::Ok();
  const std::string shape = c.Temp("shape");
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Shape", {c.I(0)}, {shape}));
  return c.AddOp("Reshape", {c.GO(0), shape}, {c.GI(0)});
}

// An int64 [n] constant blob.
Status IntsConstant(GradientContext& c, const std::vector<int64_t>& v, const std::string& suffix, std::string* name) {
  *name = c.Temp(suffix);
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Constant", {}, {*name}));
  c.ArgInts("value_ints", v);
  return Status::Ok();
}

// Softmax-13 and LogSoftmax-13: one op from dY and Y over the same axis
// (SoftmaxGradient: dX = Y * (dY - sum(dY * Y, axis)); LogSoftmaxGradient:
// dX = dY - exp(Y) * sum(dY, axis)), so a device runs it as one primitive.
template <const char* kOp>
Status SoftmaxFamilyGradient(GradientContext& c) {
  if (c.GI(0).empty()) return Status::Ok();
  int64_t axis = -1;
  LOOM_SDK_RETURN_IF_ERROR(c.info().GetInt("axis", &axis));
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp(kOp, {c.GO(0), c.O(0)}, {c.GI(0)}));
  c.ArgInt("axis", axis);
  return Status::Ok();
}
constexpr char kSoftmaxGradient[] = "SoftmaxGradient";
constexpr char kLogSoftmaxGradient[] = "LogSoftmaxGradient";

// SoftmaxCrossEntropyLoss / NegativeLogLikelihoodLoss (ONNX 13): the
// scores' (input's) gradient by the matching *Gradient op, from dLoss, the
// log-probabilities (SCE: its log_prob output, else a LogSoftmax over axis
// 1) and the labels; labels and weights get none. A gradient flowing into
// SCE's log_prob output is not implemented.
template <bool kSoftmax>
Status LossGradient(GradientContext& c) {
  for (size_t i = 1; i < c.num_inputs(); ++i) c.NoGradient(i);
  if (c.num_outputs() > 1 && !c.GO(1).empty()) {
    return sdk::Unimplemented("the gradient through SoftmaxCrossEntropyLoss's log_prob output");
  }
  if (c.GI(0).empty()) return Status::Ok();
  std::string x = c.I(0);
  if (kSoftmax) {
    if (c.num_outputs() > 1 && !c.O(1).empty()) {
      x = c.O(1);
    } else {
      x = c.Temp("log_prob");
      LOOM_SDK_RETURN_IF_ERROR(c.AddOp("LogSoftmax", {c.I(0)}, {x}));
      c.ArgInt("axis", 1);
    }
  }
  std::vector<std::string> in = {c.GO(0), x, c.I(1)};
  if (c.num_inputs() > 2 && !c.I(2).empty()) in.push_back(c.I(2));
  return c.AddOp(kSoftmax ? "SoftmaxCrossEntropyLossGradient" : "NegativeLogLikelihoodLossGradient", in, {c.GI(0)},
                 /*copy_arguments=*/true);
}

// A scalar blob of value `v` with `like`'s dtype (Constant, then CastLike).
Status ScalarLike(GradientContext& c, float v, const std::string& like, const std::string& suffix, std::string* name) {
  const std::string f = c.Temp(suffix + "_f32");
  *name = c.Temp(suffix);
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Constant", {}, {f}));
  c.ArgFloat("value_float", v);
  return c.AddOp("CastLike", {f, like}, {*name});
}

// ScalarLike of the op's float attribute `attr` (`fallback` when unset),
// named after it.
Status AttrScalarLike(GradientContext& c, const char* attr, float fallback, const std::string& like, std::string* name) {
  float v = fallback;
  LOOM_SDK_RETURN_IF_ERROR(c.info().GetFloat(attr, &v));
  return ScalarLike(c, v, like, attr, name);
}

// GI(0) = dY * f'(X) for f' built by `derivative` from X into a temp.
template <typename F>
Status Chain(GradientContext& c, F&& derivative) {
  if (c.GI(0).empty()) return Status::Ok();
  std::string d;
  LOOM_SDK_RETURN_IF_ERROR(derivative(&d));
  return c.AddOp("Mul", {c.GO(0), d}, {c.GI(0)});
}

// |X|' = sign(X) (0 at 0).
Status AbsGradient(GradientContext& c) {
  return Chain(c, [&](std::string* d) { *d = c.Temp("sign"); return c.AddOp("Sign", {c.I(0)}, {*d}); });
}

// softplus'(X) = sigmoid(X).
Status SoftplusGradient(GradientContext& c) {
  return Chain(c, [&](std::string* d) { *d = c.Temp("sig"); return c.AddOp("Sigmoid", {c.I(0)}, {*d}); });
}

// erf'(X) = 2 / sqrt(pi) * exp(-X^2).
Status ErfGradient(GradientContext& c) {
  return Chain(c, [&](std::string* d) -> Status {
    const std::string sq = c.Temp("sq"), neg = c.Temp("neg"), e = c.Temp("exp");
    std::string k;
    LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Mul", {c.I(0), c.I(0)}, {sq}));
    LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Neg", {sq}, {neg}));
    LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Exp", {neg}, {e}));
    LOOM_SDK_RETURN_IF_ERROR(ScalarLike(c, 1.1283791670955126f, c.I(0), "k", &k));  // 2 / sqrt(pi)
    *d = c.Temp("d");
    return c.AddOp("Mul", {e, k}, {*d});
  });
}

// LeakyRelu: dX = X > 0 ? dY : alpha * dY.
Status LeakyReluGradient(GradientContext& c) {
  if (c.GI(0).empty()) return Status::Ok();
  std::string zero, a;
  LOOM_SDK_RETURN_IF_ERROR(ScalarLike(c, 0.0f, c.I(0), "zero", &zero));
  LOOM_SDK_RETURN_IF_ERROR(AttrScalarLike(c, "alpha", 0.01f, c.I(0), &a));
  const std::string pos = c.Temp("pos"), scaled = c.Temp("scaled");
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Greater", {c.I(0), zero}, {pos}));
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Mul", {c.GO(0), a}, {scaled}));
  return c.AddOp("Where", {pos, c.GO(0), scaled}, {c.GI(0)});
}

// Ops whose outputs are integers or booleans (comparisons, logic, shapes,
// indices): no gradient flows through them (TensorFlow's
// NotDifferentiable). The backward pass stops there instead of asking for
// the gradients of their inputs, e.g. a mask computed from a float tensor's
// shape.
Status NotDifferentiable(GradientContext& c) {
  for (size_t i = 0; i < c.num_inputs(); ++i) c.NoGradient(i);
  return Status::Ok();
}

// CastLike-15: the input's gradient cast back to the input's dtype; the
// target (read only for its dtype) has none.
Status CastLikeGradient(GradientContext& c) {
  c.NoGradient(1);
  if (c.GI(0).empty()) return Status::Ok();
  return c.AddOp("CastLike", {c.GO(0), c.I(0)}, {c.GI(0)});
}

// HardSigmoid-6, Y = max(0, min(1, alpha X + beta)): dX = alpha dY where
// 0 < alpha X + beta < 1, else 0 (read from Y: 0 < Y < 1).
Status HardSigmoidGradient(GradientContext& c) {
  if (c.GI(0).empty()) return Status::Ok();
  std::string zero, one, a;
  LOOM_SDK_RETURN_IF_ERROR(ScalarLike(c, 0.0f, c.I(0), "zero", &zero));
  LOOM_SDK_RETURN_IF_ERROR(ScalarLike(c, 1.0f, c.I(0), "one", &one));
  LOOM_SDK_RETURN_IF_ERROR(AttrScalarLike(c, "alpha", 0.2f, c.I(0), &a));
  const std::string above = c.Temp("above"), below = c.Temp("below"), inside = c.Temp("inside"), scaled = c.Temp("scaled");
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Greater", {c.O(0), zero}, {above}));
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Less", {c.O(0), one}, {below}));
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("And", {above, below}, {inside}));
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Mul", {c.GO(0), a}, {scaled}));
  return c.AddOp("Where", {inside, scaled, zero}, {c.GI(0)});
}

// ThresholdedRelu-10, Y = X > alpha ? X : 0: dX = X > alpha ? dY : 0.
Status ThresholdedReluGradient(GradientContext& c) {
  if (c.GI(0).empty()) return Status::Ok();
  std::string zero, a;
  LOOM_SDK_RETURN_IF_ERROR(ScalarLike(c, 0.0f, c.I(0), "zero", &zero));
  LOOM_SDK_RETURN_IF_ERROR(AttrScalarLike(c, "alpha", 1.0f, c.I(0), &a));
  const std::string pass = c.Temp("pass");
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Greater", {c.I(0), a}, {pass}));
  return c.AddOp("Where", {pass, c.GO(0), zero}, {c.GI(0)});
}

// Softsign-1, Y = X / (1 + |X|): dX = dY / (1 + |X|)^2.
Status SoftsignGradient(GradientContext& c) {
  if (c.GI(0).empty()) return Status::Ok();
  std::string one;
  LOOM_SDK_RETURN_IF_ERROR(ScalarLike(c, 1.0f, c.I(0), "one", &one));
  const std::string abs = c.Temp("abs"), den = c.Temp("den"), sq = c.Temp("sq");
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Abs", {c.I(0)}, {abs}));
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Add", {abs, one}, {den}));
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Mul", {den, den}, {sq}));
  return c.AddOp("Div", {c.GO(0), sq}, {c.GI(0)});
}

// Pow-15, Z = X ^ Y: dX = dZ * Y * X ^ (Y - 1), dY = dZ * Z * log(X) (X > 0),
// each summed to its input's shape.
Status PowGradient(GradientContext& c) {
  if (!c.GI(0).empty()) {
    std::string one;
    LOOM_SDK_RETURN_IF_ERROR(ScalarLike(c, 1.0f, c.I(1), "one", &one));
    const std::string ym1 = c.Temp("ym1"), p = c.Temp("p"), yp = c.Temp("yp"), g = c.Temp("gx");
    LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Sub", {c.I(1), one}, {ym1}));
    LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Pow", {c.I(0), ym1}, {p}));
    LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Mul", {c.I(1), p}, {yp}));
    LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Mul", {c.GO(0), yp}, {g}));
    LOOM_SDK_RETURN_IF_ERROR(ReduceTo(c, 0, g));
  }
  if (!c.GI(1).empty()) {
    const std::string l = c.Temp("log"), zl = c.Temp("zl"), g = c.Temp("gy");
    LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Log", {c.I(0)}, {l}));
    LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Mul", {c.O(0), l}, {zl}));
    LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Mul", {c.GO(0), zl}, {g}));
    LOOM_SDK_RETURN_IF_ERROR(ReduceTo(c, 1, g));
  }
  return Status::Ok();
}

// Where(C, X, Y): dX = C ? dZ : 0, dY = C ? 0 : dZ, each summed to its
// input's shape; C has none.
Status WhereGradient(GradientContext& c) {
  c.NoGradient(0);
  if (c.GI(1).empty() && c.GI(2).empty()) return Status::Ok();
  std::string zero;
  LOOM_SDK_RETURN_IF_ERROR(ScalarLike(c, 0.0f, c.GO(0), "zero", &zero));
  for (size_t i = 1; i < 3; ++i) {
    if (c.GI(i).empty()) continue;
    const std::string t = c.Temp("w" + std::to_string(i));
    LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Where", i == 1 ? std::vector<std::string>{c.I(0), c.GO(0), zero}
                                                      : std::vector<std::string>{c.I(0), zero, c.GO(0)},
                                     {t}));
    LOOM_SDK_RETURN_IF_ERROR(ReduceTo(c, i, t));
  }
  return Status::Ok();
}

// Cast: dX = dY cast back to X's dtype.
Status CastGradient(GradientContext& c) {
  if (c.GI(0).empty()) return Status::Ok();
  return c.AddOp("CastLike", {c.GO(0), c.I(0)}, {c.GI(0)});
}

// Expand: dX = dY summed to X's shape; the shape input has none.
Status ExpandGradient(GradientContext& c) {
  c.NoGradient(1);
  return ReduceTo(c, 0, c.GO(0));
}

// Mean of n inputs: dX_i = dY / n summed to X_i's shape.
Status MeanGradient(GradientContext& c) {
  std::string n;
  LOOM_SDK_RETURN_IF_ERROR(ScalarLike(c, static_cast<float>(c.num_inputs()), c.GO(0), "n", &n));
  const std::string q = c.Temp("q");
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Div", {c.GO(0), n}, {q}));
  for (size_t i = 0; i < c.num_inputs(); ++i) LOOM_SDK_RETURN_IF_ERROR(ReduceTo(c, i, q));
  return Status::Ok();
}

// Transpose(perm): dX = Transpose(dY, inverse perm) (no perm: reversed
// dims, its own inverse).
Status TransposeGradient(GradientContext& c) {
  if (c.GI(0).empty()) return Status::Ok();
  std::vector<int64_t> perm;
  const bool has_perm = c.info().GetInts("perm", &perm).ok() && !perm.empty();
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Transpose", {c.GO(0)}, {c.GI(0)}));
  if (has_perm) {
    std::vector<int64_t> inverse(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) {
      if (perm[i] < 0 || perm[i] >= static_cast<int64_t>(perm.size())) return sdk::InvalidArgument("Transpose: bad perm");
      inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
    }
    c.ArgInts("perm", inverse);
  }
  return Status::Ok();
}

// ReduceMean-13: ReduceSum's gradient over the count of reduced elements
// (the size of X over the size of Y).
Status ReduceMeanGradient(GradientContext& c) {
  if (c.num_inputs() > 1 && !c.I(1).empty()) c.NoGradient(1);
  if (c.GI(0).empty()) return Status::Ok();
  const std::string spread = c.Temp("spread");
  LOOM_SDK_RETURN_IF_ERROR(SpreadToInput(c, c.GO(0), spread));
  return DivideByReducedCount(c, spread);
}

// Zeros of `like`'s shape and dtype.
Status ZerosLike(GradientContext& c, const std::string& like, const std::string& suffix, std::string* name) {
  const std::string shape = c.Temp(suffix + "_shape"), f = c.Temp(suffix + "_f32");
  *name = c.Temp(suffix);
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Shape", {like}, {shape}));
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("ConstantOfShape", {shape}, {f}));  // float32 zeros
  return c.AddOp("CastLike", {f, like}, {*name});
}


// Concat(axis): dY split back along `axis` into pieces of the inputs'
// sizes there (Split with the sizes gathered from the inputs' shapes).
Status ConcatGradient(GradientContext& c) {
  int64_t axis = 0;
  LOOM_SDK_RETURN_IF_ERROR(c.info().GetInt("axis", &axis));
  bool any = false;
  for (size_t i = 0; i < c.num_inputs(); ++i) any = any || !c.GI(i).empty();
  if (!any) return Status::Ok();
  std::string at;
  LOOM_SDK_RETURN_IF_ERROR(IntsConstant(c, {axis}, "axis", &at));
  std::vector<std::string> sizes, outs;
  for (size_t i = 0; i < c.num_inputs(); ++i) {
    const std::string shape = c.Temp("shape" + std::to_string(i)), size = c.Temp("size" + std::to_string(i));
    LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Shape", {c.I(i)}, {shape}));
    LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Gather", {shape, at}, {size}));
    sizes.push_back(size);
    outs.push_back(c.GI(i).empty() ? c.Temp("unused" + std::to_string(i)) : c.GI(i));
  }
  const std::string split = c.Temp("split");
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Concat", sizes, {split}));
  c.ArgInt("axis", 0);
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Split", {c.GO(0), split}, outs));
  c.ArgInt("axis", axis);
  return Status::Ok();
}

// Split(axis): dX = the outputs' gradients concatenated along `axis`, zeros
// for outputs no gradient reached; the split input has none.
Status SplitGradient(GradientContext& c) {
  if (c.num_inputs() > 1) c.NoGradient(1);
  if (c.GI(0).empty()) return Status::Ok();
  int64_t axis = 0;
  LOOM_SDK_RETURN_IF_ERROR(c.info().GetInt("axis", &axis));
  std::vector<std::string> parts;
  for (size_t k = 0; k < c.num_outputs(); ++k) {
    std::string g = c.GO(k);
    if (g.empty()) LOOM_SDK_RETURN_IF_ERROR(ZerosLike(c, c.O(k), "zeros" + std::to_string(k), &g));
    parts.push_back(g);
  }
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Concat", parts, {c.GI(0)}));
  c.ArgInt("axis", axis);
  return Status::Ok();
}

// Gather along axis 0 (embeddings): dData = zeros with dY's rows added at
// the gathered indices (ScatterND, reduction add: repeated indices sum);
// the indices have none. Other axes are not implemented.
Status GatherGradient(GradientContext& c) {
  c.NoGradient(1);
  if (c.GI(0).empty()) return Status::Ok();
  int64_t axis = 0;
  LOOM_SDK_RETURN_IF_ERROR(c.info().GetInt("axis", &axis));
  if (axis != 0) return sdk::Unimplemented("Gather's gradient along an axis other than 0");
  std::string zeros, last;
  LOOM_SDK_RETURN_IF_ERROR(ZerosLike(c, c.I(0), "zeros", &zeros));
  LOOM_SDK_RETURN_IF_ERROR(IntsConstant(c, {-1}, "last", &last));
  const std::string idx64 = c.Temp("idx64"), idx = c.Temp("idx");
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Cast", {c.I(1)}, {idx64}));
  c.ArgInt("to", 7);  // int64
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Unsqueeze", {idx64, last}, {idx}));
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("ScatterND", {zeros, idx, c.GO(0)}, {c.GI(0)}));
  c.ArgString("reduction", "add");
  return Status::Ok();
}

// GlobalAveragePool: dX = dY spread over each channel's positions, over
// their count (the size of X over the size of Y).
Status GlobalAveragePoolGradient(GradientContext& c) {
  if (c.GI(0).empty()) return Status::Ok();
  const std::string shape = c.Temp("shape"), spread = c.Temp("spread");
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Shape", {c.I(0)}, {shape}));
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Expand", {c.GO(0), shape}, {spread}));
  return DivideByReducedCount(c, spread);
}

// Clip: dX = dY where min < X < max (the bounds given as inputs, or as the
// opset-6 attributes), else 0; the bounds have none.
Status ClipGradient(GradientContext& c) {
  for (size_t i = 1; i < c.num_inputs(); ++i) c.NoGradient(i);
  if (c.GI(0).empty()) return Status::Ok();
  std::vector<std::string> masks;
  for (size_t b = 0; b < 2; ++b) {
    std::string bound = c.num_inputs() > b + 1 ? c.I(b + 1) : "";
    const char* attr = b == 0 ? "min" : "max";
    if (bound.empty() && c.info().Has(attr)) {
      LOOM_SDK_RETURN_IF_ERROR(ScalarLike(c, c.info().FloatOr(attr, 0.0f), c.I(0), attr, &bound));
    }
    if (bound.empty()) continue;
    const std::string m = c.Temp(std::string("inside_") + attr);
    LOOM_SDK_RETURN_IF_ERROR(c.AddOp(b == 0 ? "Greater" : "Less", {c.I(0), bound}, {m}));
    masks.push_back(m);
  }
  if (masks.empty()) return c.AddOp("Identity", {c.GO(0)}, {c.GI(0)});
  std::string mask = masks[0];
  if (masks.size() == 2) {
    mask = c.Temp("inside");
    LOOM_SDK_RETURN_IF_ERROR(c.AddOp("And", masks, {mask}));
  }
  std::string zero;
  LOOM_SDK_RETURN_IF_ERROR(ScalarLike(c, 0.0f, c.GO(0), "zero", &zero));
  return c.AddOp("Where", {mask, c.GO(0), zero}, {c.GI(0)});
}

// Max / Min (variadic, broadcasting): each input gets dY where it equals
// the result (every tied input gets it whole), summed to its shape.
Status MaxMinGradient(GradientContext& c) {
  std::string zero;
  bool any = false;
  for (size_t i = 0; i < c.num_inputs(); ++i) any = any || !c.GI(i).empty();
  if (!any) return Status::Ok();
  LOOM_SDK_RETURN_IF_ERROR(ScalarLike(c, 0.0f, c.GO(0), "zero", &zero));
  for (size_t i = 0; i < c.num_inputs(); ++i) {
    if (c.GI(i).empty()) continue;
    const std::string eq = c.Temp("eq" + std::to_string(i)), g = c.Temp("g" + std::to_string(i));
    LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Equal", {c.I(i), c.O(0)}, {eq}));
    LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Where", {eq, c.GO(0), zero}, {g}));
    LOOM_SDK_RETURN_IF_ERROR(ReduceTo(c, i, g));
  }
  return Status::Ok();
}

// Slice-13 (or the opset-1 attribute form): SliceGradient puts dY back
// where Slice read it, zeros elsewhere; starts/ends/axes/steps have none.
Status SliceGradient(GradientContext& c) {
  for (size_t i = 1; i < c.num_inputs(); ++i) c.NoGradient(i);
  if (c.GI(0).empty()) return Status::Ok();
  std::vector<std::string> in = {c.GO(0), c.I(0)};
  for (size_t i = 1; i < c.num_inputs(); ++i) in.push_back(c.I(i));
  return c.AddOp("SliceGradient", in, {c.GI(0)}, /*copy_arguments=*/true);
}

// ReduceMax (opset 13 axes attribute or opset 18 axes input): dY goes to
// the elements equal to the maximum (each tied element gets all of it, as
// Max's gradient), 0 elsewhere; the axes input has none.
Status ReduceMaxGradient(GradientContext& c) {
  if (c.num_inputs() > 1 && !c.I(1).empty()) c.NoGradient(1);
  if (c.GI(0).empty()) return Status::Ok();
  const std::string g = c.Temp("g"), y = c.Temp("y"), eq = c.Temp("eq");
  LOOM_SDK_RETURN_IF_ERROR(SpreadToInput(c, c.GO(0), g));
  LOOM_SDK_RETURN_IF_ERROR(SpreadToInput(c, c.O(0), y));
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Equal", {c.I(0), y}, {eq}));
  std::string zero;
  LOOM_SDK_RETURN_IF_ERROR(ScalarLike(c, 0.0f, c.GO(0), "zero", &zero));
  return c.AddOp("Where", {eq, g, zero}, {c.GI(0)});
}

// Tile(X, repeats): dY [r0 d0, r1 d1, ...] viewed as [r0, d0, r1, d1, ...]
// and summed over the repeat dims (0, 2, 4, ...), all from shapes at run
// time; repeats has none.
Status TileGradient(GradientContext& c) {
  c.NoGradient(1);
  if (c.GI(0).empty()) return Status::Ok();
  std::string one, minus_one;
  LOOM_SDK_RETURN_IF_ERROR(IntsConstant(c, {1}, "one", &one));
  LOOM_SDK_RETURN_IF_ERROR(IntsConstant(c, {-1}, "minus_one", &minus_one));
  const std::string shape = c.Temp("shape"), d = c.Temp("d"), r = c.Temp("r"), pairs = c.Temp("pairs"),
                    view = c.Temp("view"), g = c.Temp("g"), rank = c.Temp("rank"), two = c.Temp("two"),
                    zero = c.Temp("zero"), limit = c.Temp("limit"), axes = c.Temp("axes");
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Shape", {c.I(0)}, {shape}));
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Unsqueeze", {shape, one}, {d}));
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Unsqueeze", {c.I(1), one}, {r}));
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Concat", {r, d}, {pairs}));  // [rank, 2]: (r_i, d_i)
  c.ArgInt("axis", 1);
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Reshape", {pairs, minus_one}, {view}));
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Reshape", {c.GO(0), view}, {g}));
  // The repeat dims 0, 2, ..., 2 (rank - 1): Range(0, 2 rank, 2).
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Size", {shape}, {rank}));
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Constant", {}, {two}));
  c.ArgInt("value_int", 2);
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Constant", {}, {zero}));
  c.ArgInt("value_int", 0);
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Mul", {rank, two}, {limit}));
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Range", {zero, limit, two}, {axes}));
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("ReduceSum", {g, axes}, {c.GI(0)}));
  c.ArgInt("keepdims", 0);
  return Status::Ok();
}

// Elu: EluGradient(dY, X) = X > 0 ? dY : dY * alpha * exp(X).
Status EluGradient(GradientContext& c) {
  if (c.GI(0).empty()) return Status::Ok();
  float alpha = 1.0f;
  LOOM_SDK_RETURN_IF_ERROR(c.info().GetFloat("alpha", &alpha));
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("EluGradient", {c.GO(0), c.I(0)}, {c.GI(0)}));
  c.ArgFloat("alpha", alpha);
  return Status::Ok();
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
      {"Slice", sdk::internal::GradientTrampoline<&SliceGradient>},
      {"GlobalAveragePool", sdk::internal::GradientTrampoline<&GlobalAveragePoolGradient>},
      {"Clip", sdk::internal::GradientTrampoline<&ClipGradient>},
      {"Max", sdk::internal::GradientTrampoline<&MaxMinGradient>},
      {"Min", sdk::internal::GradientTrampoline<&MaxMinGradient>},
      {"Concat", sdk::internal::GradientTrampoline<&ConcatGradient>},
      {"Split", sdk::internal::GradientTrampoline<&SplitGradient>},
      {"Gather", sdk::internal::GradientTrampoline<&GatherGradient>},
      {"Abs", sdk::internal::GradientTrampoline<&AbsGradient>},
      {"Softplus", sdk::internal::GradientTrampoline<&SoftplusGradient>},
      {"Erf", sdk::internal::GradientTrampoline<&ErfGradient>},
      {"LeakyRelu", sdk::internal::GradientTrampoline<&LeakyReluGradient>},
      {"HardSigmoid", sdk::internal::GradientTrampoline<&HardSigmoidGradient>},
      {"ThresholdedRelu", sdk::internal::GradientTrampoline<&ThresholdedReluGradient>},
      {"Softsign", sdk::internal::GradientTrampoline<&SoftsignGradient>},
      {"Pow", sdk::internal::GradientTrampoline<&PowGradient>},
      {"Where", sdk::internal::GradientTrampoline<&WhereGradient>},
      {"Cast", sdk::internal::GradientTrampoline<&CastGradient>},
      {"CastLike", sdk::internal::GradientTrampoline<&CastLikeGradient>},
      {"Less", sdk::internal::GradientTrampoline<&NotDifferentiable>},
      {"LessOrEqual", sdk::internal::GradientTrampoline<&NotDifferentiable>},
      {"Greater", sdk::internal::GradientTrampoline<&NotDifferentiable>},
      {"GreaterOrEqual", sdk::internal::GradientTrampoline<&NotDifferentiable>},
      {"Equal", sdk::internal::GradientTrampoline<&NotDifferentiable>},
      {"And", sdk::internal::GradientTrampoline<&NotDifferentiable>},
      {"Or", sdk::internal::GradientTrampoline<&NotDifferentiable>},
      {"Xor", sdk::internal::GradientTrampoline<&NotDifferentiable>},
      {"Not", sdk::internal::GradientTrampoline<&NotDifferentiable>},
      {"IsNaN", sdk::internal::GradientTrampoline<&NotDifferentiable>},
      {"IsInf", sdk::internal::GradientTrampoline<&NotDifferentiable>},
      {"Shape", sdk::internal::GradientTrampoline<&NotDifferentiable>},
      {"Size", sdk::internal::GradientTrampoline<&NotDifferentiable>},
      {"ArgMax", sdk::internal::GradientTrampoline<&NotDifferentiable>},
      {"ArgMin", sdk::internal::GradientTrampoline<&NotDifferentiable>},
      {"ConstantOfShape", sdk::internal::GradientTrampoline<&NotDifferentiable>},
      {"Range", sdk::internal::GradientTrampoline<&NotDifferentiable>},
      {"Expand", sdk::internal::GradientTrampoline<&ExpandGradient>},
      {"Mean", sdk::internal::GradientTrampoline<&MeanGradient>},
      {"Transpose", sdk::internal::GradientTrampoline<&TransposeGradient>},
      {"ReduceMean", sdk::internal::GradientTrampoline<&ReduceMeanGradient>},
      {"Div", sdk::internal::GradientTrampoline<&DivGradient>},
      {"Log", sdk::internal::GradientTrampoline<&LogGradient>},
      {"Sqrt", sdk::internal::GradientTrampoline<&SqrtGradient>},
      {"Gemm", sdk::internal::GradientTrampoline<&GemmGradient>},
      {"MatMul", sdk::internal::GradientTrampoline<&MatMulGradient>},
      {"Reshape", sdk::internal::GradientTrampoline<&ReshapeGradient>},
      {"Flatten", sdk::internal::GradientTrampoline<&ReshapeGradient>},
      {"Squeeze", sdk::internal::GradientTrampoline<&ReshapeGradient>},
      {"Unsqueeze", sdk::internal::GradientTrampoline<&ReshapeGradient>},
      {"Softmax", sdk::internal::GradientTrampoline<&SoftmaxFamilyGradient<kSoftmaxGradient>>},
      {"SoftmaxCrossEntropyLoss", sdk::internal::GradientTrampoline<&LossGradient<true>>},
      {"NegativeLogLikelihoodLoss", sdk::internal::GradientTrampoline<&LossGradient<false>>},
      {"LogSoftmax", sdk::internal::GradientTrampoline<&SoftmaxFamilyGradient<kLogSoftmaxGradient>>},
      {"ReduceSum", sdk::internal::GradientTrampoline<&ReduceSumGradient>},
      {"Relu", sdk::internal::GradientTrampoline<&FromOutputGradient<kReluGradient>>},
      {"Sigmoid", sdk::internal::GradientTrampoline<&FromOutputGradient<kSigmoidGradient>>},
      {"Tanh", sdk::internal::GradientTrampoline<&FromOutputGradient<kTanhGradient>>},
      {"ReduceMax", sdk::internal::GradientTrampoline<&ReduceMaxGradient>},
      {"Tile", sdk::internal::GradientTrampoline<&TileGradient>},
      {"Elu", sdk::internal::GradientTrampoline<&EluGradient>},
  };
  auto it = makers.find(op);
  return it != makers.end() ? it->second : NnLayerGradient(op);
}

sdk::Status RegisterGradientSchemas(sdk::Registrar& reg) {
  const std::vector<TypeSet> f = {{"T", FloatTypes()}};
  // The loss gradients' dtypes, and the attributes they copy from the loss.
  const std::vector<TypeSet> loss_types = {{"T", FloatTypes()}, {"Tind", {LOOM_DTYPE_INT32, LOOM_DTYPE_INT64}}};
  const std::vector<std::string> loss_attrs = {"reduction:string=mean|the forward op's",
                                               "ignore_index:int?|the forward op's"};
  LOOM_SDK_RETURN_IF_ERROR(RegisterNnLayerGradientSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(RegisterOps(reg, InDomain(LOOM_OPS_DOMAIN, {
      {"SliceGradient", 1,
       "The gradient of ONNX Slice-13 (or its opset-1 attribute form): dX has X's shape, dY where the slice read "
       "X, 0 elsewhere. The slice's inputs (starts, ends, axes, steps) or attributes, as Slice's.",
       {"dY:T|the slice's shape", "X:T|Slice's input (its shape only)", "starts:Tind?", "ends:Tind?", "axes:Tind?",
        "steps:Tind?"},
       {"dX:T|X's shape"}, {{"T", FloatTypes()}, {"Tind", {LOOM_DTYPE_INT32, LOOM_DTYPE_INT64}}},
       {"starts:ints?|opset-1 form", "ends:ints?|opset-1 form", "axes:ints?|opset-1 form"}, &SameShapeAsInput1},
  })));
  return RegisterOps(reg, InDomain(LOOM_OPS_DOMAIN, {
      {"SumReduceLike", 1,
       "Caffe2 SumReduceLike with numpy broadcasting: C = A summed over the dims along which B was broadcast to "
       "A's shape (B's shape right-aligned against A's; a dim of B that is 1 or missing is summed), so C has B's "
       "shape. The gradient of a broadcasting binary op's input.",
       {"A:T|the broadcast shape", "B:T|the shape to reduce to (values unused)"}, {"C:T|B's shape"}, f, {},
       &SameShapeAsInput1},
      {"Accumulate", 1,
       "Caffe2 Accumulate: Y = X + gamma * Y, where Y is the value the output blob already holds (the op adds "
       "into it); an output that holds no tensor of X's dtype and size is first set to zeros, and one of X's size "
       "but another shape is an error. Y must be a blob the caller keeps and sets up, e.g. the links through "
       "which a backward step net adds parameter and state gradients across timesteps "
       "(RecurrentNetworkGradient): what a planned intermediate holds before the op is undefined.",
       {"X:T"}, {"Y:T|X's shape"}, f, {"gamma:float=1|factor of Y's previous value"}, &SameShapeAsInput0},
      {"ReluGradient", 1, "Caffe2 ReluGradient: dX = Y > 0 ? dY : 0, from dY and Relu's output Y.",
       {"dY:T", "Y:T"}, {"dX:T"}, f, {}, &SameShapeAsInput0},
      {"SigmoidGradient", 1, "Caffe2 SigmoidGradient: dX = dY * Y * (1 - Y), from dY and Sigmoid's output Y.",
       {"dY:T", "Y:T"}, {"dX:T"}, f, {}, &SameShapeAsInput0},
      {"TanhGradient", 1, "Caffe2 TanhGradient: dX = dY * (1 - Y * Y), from dY and Tanh's output Y.",
       {"dY:T", "Y:T"}, {"dX:T"}, f, {}, &SameShapeAsInput0},
      {"EluGradient", 1,
       "The gradient of ONNX Elu-6: dX = X > 0 ? dY : dY * alpha * exp(X), from dY and Elu's input X (from X, "
       "not Y: with a negative alpha Y > 0 on both sides of 0).",
       {"dY:T", "X:T|Elu's input, dY's shape"}, {"dX:T|X's shape"}, f, {"alpha:float=1|Elu's alpha"},
       &SameShapeAsInput0},
      {"SoftmaxGradient", 1,
       "The gradient of ONNX Softmax-13: dX = Y * (dY - sum(dY * Y, axis)), from dY and Softmax's output Y.",
       {"dY:T", "Y:T|Softmax's output, dY's shape"}, {"dX:T|Y's shape"}, f,
       {"axis:int=-1|Softmax's axis (negative counts from the end)"}, &SameShapeAsInput0},
      {"LogSoftmaxGradient", 1,
       "The gradient of ONNX LogSoftmax-13: dX = dY - exp(Y) * sum(dY, axis), from dY and LogSoftmax's output Y.",
       {"dY:T", "Y:T|LogSoftmax's output, dY's shape"}, {"dX:T|Y's shape"}, f,
       {"axis:int=-1|LogSoftmax's axis (negative counts from the end)"}, &SameShapeAsInput0},
      {"SoftmaxCrossEntropyLossGradient", 1,
       "The gradient of ONNX SoftmaxCrossEntropyLoss-13 with respect to its scores: (softmax - onehot(labels)) "
       "* weight[label] * dLoss, over the sum of weights for reduction mean; ignored entries give 0.",
       {"dLoss:T|[] (mean, sum) or [N, d...] (none)", "log_prob:T|[N, C, d...]", "labels:Tind|[N, d...]",
        "weights:T?|[C]"},
       {"dScores:T|[N, C, d...]"}, loss_types, loss_attrs, &SameShapeAsInput1},
      {"NegativeLogLikelihoodLossGradient", 1,
       "The gradient of ONNX NegativeLogLikelihoodLoss-13 with respect to its input: -weight[target] * dLoss "
       "at the target class (over the sum of weights for reduction mean), 0 elsewhere.",
       {"dLoss:T|[] (mean, sum) or [N, d...] (none)", "input:T|[N, C, d...]", "target:Tind|[N, d...]",
        "weight:T?|[C]"},
       {"dInput:T|[N, C, d...]"}, loss_types, loss_attrs, &SameShapeAsInput1},
  }));
}

}  // namespace ops
}  // namespace loom
