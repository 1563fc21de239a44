// NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss, Einsum and Compress
// against naive references (plain loops), known values and error cases.
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "core/testing/op_runner.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using testing::AllClose;
using testing::ParseOp;
using testing::RandomTensor;
using testing::RunSingleOp;

// A tensor of dtype `dt` holding `v` (integers truncated).
Tensor Make(DataType dt, const Shape& shape, const std::vector<double>& v) {
  Tensor t = Tensor::Zeros(dt, shape);
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    switch (dt) {
      case DataType::kFloat32: t.data<float>()[i] = static_cast<float>(v[i]); break;
      case DataType::kFloat64: t.data<double>()[i] = v[i]; break;
      case DataType::kFloat16: t.data<uint16_t>()[i] = sdk::Float16::FromFloat(static_cast<float>(v[i])); break;
      case DataType::kInt32: t.data<int32_t>()[i] = static_cast<int32_t>(v[i]); break;
      case DataType::kInt64: t.data<int64_t>()[i] = static_cast<int64_t>(v[i]); break;
      default: ADD_FAILURE() << "Make: dtype not handled"; break;
    }
  }
  return t;
}

std::vector<int64_t> Coords(int64_t i, const Shape& shape) {
  std::vector<int64_t> c(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    c[d] = i % shape[d];
    i /= shape[d];
  }
  return c;
}

int64_t Flat(const std::vector<int64_t>& c, const Shape& shape) {
  int64_t f = 0;
  for (size_t d = 0; d < shape.size(); ++d) f = f * shape[d] + c[d];
  return f;
}

// --------------------------------------------------------------------- losses

struct LossCase {
  bool sce = false;
  std::string reduction = "mean";
  std::optional<int64_t> ignore;
  bool log_prob = false;
};

std::string LossText(const LossCase& c, bool weight) {
  std::string text = std::string("type: \"") + (c.sce ? "SoftmaxCrossEntropyLoss" : "NegativeLogLikelihoodLoss") +
                     "\" name: \"l\" input: \"x\" input: \"t\"";
  if (weight) text += " input: \"w\"";
  text += " output: \"y\"";
  if (c.log_prob) text += " output: \"lp\"";
  text += " arg { name: \"reduction\" s: \"" + c.reduction + "\" }";
  if (c.ignore) text += " arg { name: \"ignore_index\" i: " + std::to_string(*c.ignore) + " }";
  return text;
}

absl::StatusOr<std::vector<Tensor>> RunLoss(const LossCase& c, const Tensor& x, const Tensor& t, const Tensor* w) {
  std::vector<Tensor> in = {x, t};
  if (w) in.push_back(*w);
  return RunSingleOp(ParseOp(LossText(c, w != nullptr)), in);
}

// The ONNX reference formulas, in double: log_prob (the log-softmax over
// dim 1 for SCE) and the loss.
std::vector<Tensor> LossRef(const LossCase& c, const Tensor& x, const Tensor& t, const Tensor* w) {
  const Shape& xs = x.dims();
  const int64_t n = xs[0], cls = xs[1];
  int64_t d = 1;
  for (size_t i = 2; i < xs.size(); ++i) d *= xs[i];
  std::vector<double> lp(x.num_elements());
  for (int64_t i = 0; i < x.num_elements(); ++i) lp[i] = x.ElementAsDouble(i);
  if (c.sce) {
    for (int64_t a = 0; a < n; ++a) {
      for (int64_t b = 0; b < d; ++b) {
        // Straight from the definition (no max shift: the test scores are small).
        double s = 0;
        for (int64_t j = 0; j < cls; ++j) s += std::exp(x.ElementAsDouble((a * cls + j) * d + b));
        for (int64_t j = 0; j < cls; ++j) {
          lp[(a * cls + j) * d + b] = x.ElementAsDouble((a * cls + j) * d + b) - std::log(s);
        }
      }
    }
  }
  std::vector<double> loss(n * d), wt(n * d);
  for (int64_t a = 0; a < n; ++a) {
    for (int64_t b = 0; b < d; ++b) {
      const int64_t k = static_cast<int64_t>(t.ElementAsDouble(a * d + b));
      if (c.ignore && k == *c.ignore) continue;
      wt[a * d + b] = w ? w->ElementAsDouble(k) : 1.0;
      loss[a * d + b] = -lp[(a * cls + k) * d + b] * wt[a * d + b];
    }
  }
  std::vector<Tensor> out;
  if (c.reduction == "none") {
    out.push_back(Make(x.dtype(), t.dims(), loss));
  } else {
    double s = 0, ws = 0;
    for (size_t i = 0; i < loss.size(); ++i) { s += loss[i]; ws += wt[i]; }
    out.push_back(Make(x.dtype(), {}, {c.reduction == "sum" ? s : s / ws}));
  }
  out.push_back(Make(x.dtype(), xs, lp));
  return out;
}

TEST(LossTest, KnownValues) {
  // input [2, 3] of log-probabilities; targets 2 and 0; weights [1, 2, 3].
  Tensor x = Tensor::FromVector<float>({2, 3}, {-1, -2, -3, -4, -5, -6});
  Tensor t = Tensor::FromVector<int64_t>({2}, {2, 0});
  Tensor w = Tensor::FromVector<float>({3}, {1, 2, 3});
  LossCase c;
  c.reduction = "none";
  auto none = RunLoss(c, x, t, &w);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(AllClose((*none)[0], Tensor::FromVector<float>({2}, {9, 4})));
  c.reduction = "mean";  // (9 + 4) / (3 + 1)
  auto mean = RunLoss(c, x, t, &w);
  ASSERT_TRUE(mean.ok()) << mean.status();
  EXPECT_TRUE(AllClose((*mean)[0], Tensor::FromVector<float>({}, {3.25f})));
  c.ignore = 0;  // only the first entry: 9 / 3
  auto ign = RunLoss(c, x, t, &w);
  ASSERT_TRUE(ign.ok()) << ign.status();
  EXPECT_TRUE(AllClose((*ign)[0], Tensor::FromVector<float>({}, {3.0f})));
  // SCE of equal scores: log_prob = -log(3) everywhere, the loss log(3).
  LossCase s;
  s.sce = true;
  s.log_prob = true;
  s.reduction = "sum";
  Tensor z = Tensor::FromVector<float>({2, 3}, {1, 1, 1, 1, 1, 1});
  auto sce = RunLoss(s, z, t, nullptr);
  ASSERT_TRUE(sce.ok()) << sce.status();
  const float l3 = std::log(3.0f);
  EXPECT_TRUE(AllClose((*sce)[0], Tensor::FromVector<float>({}, {2 * l3})));
  EXPECT_TRUE(AllClose((*sce)[1], Tensor::FromVector<float>({2, 3}, {-l3, -l3, -l3, -l3, -l3, -l3})));
}

TEST(LossTest, MatchesReference) {
  const std::vector<Shape> shapes = {{5, 4}, {3, 4, 2, 3}, {2, 3, 1}, {1, 1}};
  int seed = 0;
  for (bool sce : {false, true}) {
    for (DataType dt : {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16}) {
      for (const Shape& xs : shapes) {
        for (DataType tdt : {DataType::kInt64, DataType::kInt32}) {
          Shape ts = xs;
          ts.erase(ts.begin() + 1);
          const int64_t cls = xs[1];
          Tensor x = RandomTensor(dt, xs, ++seed, -2, 2);
          Tensor t = RandomTensor(tdt, ts, ++seed, 0, static_cast<double>(cls - 1));
          Tensor w = RandomTensor(dt, {cls}, ++seed, 0.5, 2);
          // With ignore_index -5, put it into the target (out of [0, C)).
          Tensor t_neg = Make(tdt, ts, std::vector<double>(t.num_elements(), 0));
          for (int64_t i = 0; i < t.num_elements(); ++i) {
            const double v = i % 3 == 1 ? -5 : t.ElementAsDouble(i);
            if (tdt == DataType::kInt64) t_neg.data<int64_t>()[i] = static_cast<int64_t>(v);
            else t_neg.data<int32_t>()[i] = static_cast<int32_t>(v);
          }
          const double tol = dt == DataType::kFloat16 ? 3e-3 : 1e-5;
          for (bool weighted : {false, true}) {
            for (const char* red : {"none", "sum", "mean"}) {
              for (int ig = 0; ig < 3; ++ig) {
                LossCase c;
                c.sce = sce;
                c.reduction = red;
                c.log_prob = sce && ig != 1;
                if (ig == 1) c.ignore = 1;  // inside [0, C): ignores real classes
                if (ig == 2) c.ignore = -5;
                const Tensor& tt = ig == 2 ? t_neg : t;
                auto out = RunLoss(c, x, tt, weighted ? &w : nullptr);
                const std::string what = std::string(sce ? "SCE " : "NLL ") + DataTypeName(dt) + " " +
                                         x.DebugString() + " " + DataTypeName(tdt) + " weighted " +
                                         std::to_string(weighted) + " " + red + " ignore case " + std::to_string(ig);
                ASSERT_TRUE(out.ok()) << what << ": " << out.status();
                std::vector<Tensor> ref = LossRef(c, x, tt, weighted ? &w : nullptr);
                // A mean over entries that are all ignored is NaN in both.
                EXPECT_TRUE(AllClose((*out)[0], ref[0], tol, tol)) << what;
                if (c.log_prob) {
                  EXPECT_TRUE(AllClose((*out)[1], ref[1], tol, tol)) << what << " log_prob";
                }
              }
            }
          }
        }
      }
    }
  }
}

TEST(LossTest, ZeroSizeAndInferredShapes) {
  for (bool sce : {false, true}) {
    Tensor x = Tensor::Zeros(DataType::kFloat32, {0, 3, 2});
    Tensor t = Tensor::Zeros(DataType::kInt64, {0, 2});
    LossCase c;
    c.sce = sce;
    c.reduction = "none";
    auto none = RunLoss(c, x, t, nullptr);
    ASSERT_TRUE(none.ok()) << none.status();
    EXPECT_EQ((*none)[0].dims(), (Shape{0, 2}));
    c.reduction = "sum";
    auto sum = RunLoss(c, x, t, nullptr);
    ASSERT_TRUE(sum.ok()) << sum.status();
    EXPECT_TRUE(AllClose((*sum)[0], Tensor::FromVector<float>({}, {0})));
    Tensor xr = RandomTensor(DataType::kFloat32, {2, 3, 4}, 3);
    Tensor tr = RandomTensor(DataType::kInt64, {2, 4}, 4, 0, 2);
    for (const char* red : {"none", "mean"}) {
      c.reduction = red;
      c.log_prob = sce;
      testing::ExpectInferredShapes(ParseOp(LossText(c, false)), {xr, tr});
    }
  }
}

TEST(LossTest, BadInputsAreErrors) {
  Tensor x = RandomTensor(DataType::kFloat32, {2, 3}, 1);
  Tensor t = Tensor::FromVector<int64_t>({2}, {0, 1});
  Tensor w = RandomTensor(DataType::kFloat32, {3}, 2);
  for (bool sce : {false, true}) {
    LossCase c;
    c.sce = sce;
    EXPECT_FALSE(RunLoss(c, x, Tensor::FromVector<int64_t>({3}, {0, 1, 2}), nullptr).ok()) << "target shape";
    EXPECT_FALSE(RunLoss(c, x, Tensor::FromVector<int64_t>({2}, {0, 3}), nullptr).ok()) << "class out of range";
    EXPECT_FALSE(RunLoss(c, x, Tensor::FromVector<int64_t>({2}, {-1, 0}), nullptr).ok()) << "negative class";
    Tensor w4 = RandomTensor(DataType::kFloat32, {4}, 2);
    EXPECT_FALSE(RunLoss(c, x, t, &w4).ok()) << "weight shape";
    EXPECT_FALSE(RunLoss(c, RandomTensor(DataType::kFloat32, {3}, 1), Tensor::FromVector<int64_t>({}, {0}), nullptr)
                     .ok())
        << "rank 1";
    c.reduction = "avg";
    EXPECT_FALSE(RunLoss(c, x, t, nullptr).ok()) << "unknown reduction";
    c.reduction = "mean";
    c.ignore = -1;  // the ignored value may be out of range, others not
    EXPECT_TRUE(RunLoss(c, x, Tensor::FromVector<int64_t>({2}, {-1, 0}), &w).ok());
    EXPECT_FALSE(RunLoss(c, x, Tensor::FromVector<int64_t>({2}, {-2, 0}), &w).ok());
  }
}

// --------------------------------------------------------------------- Einsum

absl::StatusOr<std::vector<Tensor>> RunEinsum(const std::string& eq, const std::vector<Tensor>& in) {
  std::string text = "type: \"Einsum\" name: \"e\"";
  for (size_t i = 0; i < in.size(); ++i) text += " input: \"x" + std::to_string(i) + "\"";
  text += " output: \"y\" arg { name: \"equation\" s: \"" + eq + "\" }";
  return RunSingleOp(ParseOp(text), in);
}

double At(const Tensor& t, const std::vector<int64_t>& c) { return t.ElementAsDouble(Flat(c, t.dims())); }

// Checks one equation against a reference filled by `ref(out_coords)`.
template <typename F>
void CheckEinsum(const std::string& eq, const std::vector<Tensor>& in, const Shape& out_shape, F ref,
                 double tol = 1e-5) {
  auto out = RunEinsum(eq, in);
  ASSERT_TRUE(out.ok()) << eq << ": " << out.status();
  std::vector<double> v(NumElements(out_shape));
  for (int64_t i = 0; i < static_cast<int64_t>(v.size()); ++i) v[i] = ref(Coords(i, out_shape));
  EXPECT_TRUE(AllClose((*out)[0], Make(in[0].dtype(), out_shape, v), tol, tol)) << eq;
}

TEST(EinsumTest, KnownValues) {
  Tensor a = Tensor::FromVector<float>({2, 2}, {1, 2, 3, 4});
  Tensor b = Tensor::FromVector<float>({2, 2}, {5, 6, 7, 8});
  auto mm = RunEinsum("ij,jk->ik", {a, b});
  ASSERT_TRUE(mm.ok()) << mm.status();
  EXPECT_TRUE(AllClose((*mm)[0], Tensor::FromVector<float>({2, 2}, {19, 22, 43, 50})));
  auto tr = RunEinsum("ii", {a});  // implicit: i is repeated, so summed: the trace
  ASSERT_TRUE(tr.ok()) << tr.status();
  EXPECT_TRUE(AllClose((*tr)[0], Tensor::FromVector<float>({}, {5})));
  auto t2 = RunEinsum("ji", {a});  // implicit output "ij": a transpose
  ASSERT_TRUE(t2.ok()) << t2.status();
  EXPECT_TRUE(AllClose((*t2)[0], Tensor::FromVector<float>({2, 2}, {1, 3, 2, 4})));
}

TEST(EinsumTest, MatchesReference) {
  for (DataType dt : {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16, DataType::kInt32,
                      DataType::kInt64}) {
    const double tol = dt == DataType::kFloat16 ? 5e-3 : 1e-5;
    const double lo = -3, hi = 3;
    Tensor a = RandomTensor(dt, {3, 4}, 1, lo, hi), b = RandomTensor(dt, {4, 5}, 2, lo, hi);
    CheckEinsum("ij,jk->ik", {a, b}, {3, 5}, [&](const std::vector<int64_t>& o) {
      double s = 0;
      for (int64_t j = 0; j < 4; ++j) s += At(a, {o[0], j}) * At(b, {j, o[1]});
      return s;
    }, tol);
    CheckEinsum("ij->ji", {a}, {4, 3}, [&](const std::vector<int64_t>& o) { return At(a, {o[1], o[0]}); }, tol);
    CheckEinsum("ij->", {a}, {}, [&](const std::vector<int64_t>&) {
      double s = 0;
      for (int64_t i = 0; i < 12; ++i) s += a.ElementAsDouble(i);
      return s;
    }, tol);
    CheckEinsum("ij->j", {a}, {4}, [&](const std::vector<int64_t>& o) {
      double s = 0;
      for (int64_t i = 0; i < 3; ++i) s += At(a, {i, o[0]});
      return s;
    }, tol);
    Tensor sq = RandomTensor(dt, {4, 4}, 3, lo, hi);
    CheckEinsum("ii->i", {sq}, {4}, [&](const std::vector<int64_t>& o) { return At(sq, {o[0], o[0]}); }, tol);
    Tensor u = RandomTensor(dt, {4}, 4, lo, hi), v = RandomTensor(dt, {4}, 5, lo, hi);
    CheckEinsum("i,i", {u, v}, {}, [&](const std::vector<int64_t>&) {
      double s = 0;
      for (int64_t i = 0; i < 4; ++i) s += At(u, {i}) * At(v, {i});
      return s;
    }, tol);
    CheckEinsum("i,j->ij", {u, v}, {4, 4},
                [&](const std::vector<int64_t>& o) { return At(u, {o[0]}) * At(v, {o[1]}); }, tol);
    // Batched matmul, with spaces in the equation.
    Tensor ba = RandomTensor(dt, {2, 3, 4}, 6, lo, hi), bb = RandomTensor(dt, {2, 4, 2}, 7, lo, hi);
    CheckEinsum(" bij , bjk -> bik", {ba, bb}, {2, 3, 2}, [&](const std::vector<int64_t>& o) {
      double s = 0;
      for (int64_t j = 0; j < 4; ++j) s += At(ba, {o[0], o[1], j}) * At(bb, {o[0], j, o[2]});
      return s;
    }, tol);
    // Ellipsis with broadcasting and the implicit output ("...ik").
    Tensor ea = RandomTensor(dt, {2, 1, 3, 4}, 8, lo, hi), eb = RandomTensor(dt, {5, 4, 2}, 9, lo, hi);
    CheckEinsum("...ij,...jk", {ea, eb}, {2, 5, 3, 2}, [&](const std::vector<int64_t>& o) {
      double s = 0;
      for (int64_t j = 0; j < 4; ++j) s += At(ea, {o[0], 0, o[2], j}) * At(eb, {o[1], j, o[3]});
      return s;
    }, tol);
    Tensor bd = RandomTensor(dt, {2, 3, 3}, 10, lo, hi);
    CheckEinsum("...ii->...i", {bd}, {2, 3},
                [&](const std::vector<int64_t>& o) { return At(bd, {o[0], o[1], o[1]}); }, tol);
    // Ellipsis in the middle; the output puts it first.
    Tensor mid = RandomTensor(dt, {3, 2, 5, 4}, 11, lo, hi);
    CheckEinsum("i...j->...ji", {mid}, {2, 5, 4, 3},
                [&](const std::vector<int64_t>& o) { return At(mid, {o[3], o[0], o[1], o[2]}); }, tol);
    // Three operands.
    Tensor c1 = RandomTensor(dt, {2, 3, 4}, 12, lo, hi), c2 = RandomTensor(dt, {4, 2}, 13, lo, hi),
           c3 = RandomTensor(dt, {2, 3}, 14, lo, hi);
    CheckEinsum("abc,cd,de->abe", {c1, c2, c3}, {2, 3, 3}, [&](const std::vector<int64_t>& o) {
      double s = 0;
      for (int64_t c = 0; c < 4; ++c) {
        for (int64_t d = 0; d < 2; ++d) s += At(c1, {o[0], o[1], c}) * At(c2, {c, d}) * At(c3, {d, o[2]});
      }
      return s;
    }, dt == DataType::kFloat16 ? 2e-2 : tol);
    // Rank 0 operands.
    Tensor s0 = RandomTensor(dt, {}, 15, lo, hi), s1 = RandomTensor(dt, {}, 16, lo, hi);
    CheckEinsum(",->", {s0, s1}, {}, [&](const std::vector<int64_t>&) {
      return s0.ElementAsDouble(0) * s1.ElementAsDouble(0);
    }, tol);
    CheckEinsum("i,->i", {u, s0}, {4},
                [&](const std::vector<int64_t>& o) { return At(u, {o[0]}) * s0.ElementAsDouble(0); }, tol);
  }
  // Large enough for the threaded path.
  Tensor big_a = RandomTensor(DataType::kFloat32, {64, 48}, 20), big_b = RandomTensor(DataType::kFloat32, {48, 80}, 21);
  CheckEinsum("ik,kj->ij", {big_a, big_b}, {64, 80}, [&](const std::vector<int64_t>& o) {
    double s = 0;
    for (int64_t k = 0; k < 48; ++k) s += At(big_a, {o[0], k}) * At(big_b, {k, o[1]});
    return s;
  }, 1e-4);
}

TEST(EinsumTest, ZeroSize) {
  Tensor a = Tensor::Zeros(DataType::kFloat32, {2, 0}), b = Tensor::Zeros(DataType::kFloat32, {0, 3});
  auto z = RunEinsum("ij,jk->ik", {a, b});  // an empty sum is 0
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_TRUE(AllClose((*z)[0], Tensor::Zeros(DataType::kFloat32, {2, 3})));
  auto e = RunEinsum("ij,jk->ik", {b, RandomTensor(DataType::kFloat32, {3, 4}, 1)});
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ((*e)[0].dims(), (Shape{0, 4}));
}

TEST(EinsumTest, BadInputsAreErrors) {
  Tensor a = RandomTensor(DataType::kFloat32, {3, 4}, 1), b = RandomTensor(DataType::kFloat32, {5, 2}, 2);
  EXPECT_FALSE(RunEinsum("ij,jk->ik", {a}).ok()) << "operand count";
  EXPECT_FALSE(RunEinsum("ij,jk->ik", {a, b}).ok()) << "size mismatch";
  EXPECT_FALSE(RunEinsum("ij->k", {a}).ok()) << "output label not in inputs";
  EXPECT_FALSE(RunEinsum("ij->ii", {a}).ok()) << "output label twice";
  EXPECT_FALSE(RunEinsum("i$j", {a}).ok()) << "bad character";
  EXPECT_FALSE(RunEinsum("i..j", {a}).ok()) << "bad ellipsis";
  EXPECT_FALSE(RunEinsum("ijk", {a}).ok()) << "rank mismatch";
  EXPECT_FALSE(RunEinsum("...ijk", {a}).ok()) << "rank below the letters";
  EXPECT_FALSE(RunEinsum("ii->i", {a}).ok()) << "diagonal of unequal dims";
}

// ------------------------------------------------------------------- Compress

absl::StatusOr<std::vector<Tensor>> RunCompress(const Tensor& x, const std::vector<bool>& cond,
                                                std::optional<int64_t> axis) {
  std::string text = "type: \"Compress\" name: \"c\" input: \"x\" input: \"c\" output: \"y\"";
  if (axis) text += " arg { name: \"axis\" i: " + std::to_string(*axis) + " }";
  return RunSingleOp(ParseOp(text), {x, Tensor::FromVector<bool>({static_cast<int64_t>(cond.size())}, cond)});
}

// Element by element through coordinates, for any dtype (copies bytes).
Tensor CompressRef(const Tensor& x, const std::vector<bool>& cond, std::optional<int64_t> axis) {
  std::vector<int64_t> kept;
  for (size_t i = 0; i < cond.size(); ++i) {
    if (cond[i]) kept.push_back(static_cast<int64_t>(i));
  }
  Shape in_shape = x.dims();
  int64_t ax = 0;
  if (!axis) {
    in_shape = {x.num_elements()};
  } else {
    ax = *axis < 0 ? *axis + static_cast<int64_t>(in_shape.size()) : *axis;
  }
  Shape out_shape = in_shape;
  out_shape[ax] = static_cast<int64_t>(kept.size());
  Tensor y = Tensor::Zeros(x.dtype(), out_shape);
  const size_t es = DataTypeSize(x.dtype());
  for (int64_t o = 0; o < y.num_elements(); ++o) {
    std::vector<int64_t> c = Coords(o, out_shape);
    c[ax] = kept[c[ax]];
    std::memcpy(static_cast<char*>(y.raw_data()) + o * es,
                static_cast<const char*>(x.raw_data()) + Flat(c, in_shape) * es, es);
  }
  return y;
}

TEST(CompressTest, KnownValues) {
  Tensor x = Tensor::FromVector<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  auto r0 = RunCompress(x, {false, true, true}, 0);
  ASSERT_TRUE(r0.ok()) << r0.status();
  EXPECT_TRUE(AllClose((*r0)[0], Tensor::FromVector<float>({2, 2}, {3, 4, 5, 6})));
  auto r1 = RunCompress(x, {false, true}, -1);
  ASSERT_TRUE(r1.ok()) << r1.status();
  EXPECT_TRUE(AllClose((*r1)[0], Tensor::FromVector<float>({3, 1}, {2, 4, 6})));
  auto flat = RunCompress(x, {false, true, false, false, true}, std::nullopt);  // shorter: the rest false
  ASSERT_TRUE(flat.ok()) << flat.status();
  EXPECT_TRUE(AllClose((*flat)[0], Tensor::FromVector<float>({2}, {2, 5})));
}

TEST(CompressTest, MatchesReference) {
  int seed = 0;
  for (DataType dt : {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16, DataType::kInt8,
                      DataType::kInt64, DataType::kBool}) {
    for (const Shape& s : {Shape{5}, Shape{3, 4, 5}, Shape{2, 0, 3}, Shape{}}) {
      Tensor x = RandomTensor(dt, s, ++seed, -5, 5);
      const int64_t rank = static_cast<int64_t>(s.size());
      std::vector<std::optional<int64_t>> axes = {std::nullopt};
      for (int64_t a = -rank; a < rank; ++a) axes.push_back(a);
      for (const auto& axis : axes) {
        const int64_t n = axis ? s[*axis < 0 ? *axis + rank : *axis] : x.num_elements();
        for (int64_t len : {n, n > 0 ? n - 1 : 0}) {
          std::vector<bool> cond(len);
          for (int64_t i = 0; i < len; ++i) cond[i] = (i * 7 + seed) % 3 != 0;
          auto out = RunCompress(x, cond, axis);
          const std::string what = x.DebugString() + " axis " + (axis ? std::to_string(*axis) : "none") + " len " +
                                   std::to_string(len);
          ASSERT_TRUE(out.ok()) << what << ": " << out.status();
          EXPECT_TRUE(AllClose((*out)[0], CompressRef(x, cond, axis), 0, 0)) << what;
        }
      }
    }
  }
}

TEST(CompressTest, BadInputsAreErrors) {
  Tensor x = RandomTensor(DataType::kFloat32, {3, 2}, 1);
  EXPECT_FALSE(RunCompress(x, {true, true, true, true}, 0).ok()) << "condition longer than the axis";
  EXPECT_FALSE(RunCompress(x, std::vector<bool>(7, true), std::nullopt).ok()) << "longer than the flat input";
  EXPECT_FALSE(RunCompress(x, {true}, 2).ok()) << "axis out of range";
  EXPECT_FALSE(RunCompress(x, {true}, -3).ok()) << "negative axis out of range";
  EXPECT_FALSE(RunCompress(Tensor::FromVector<float>({}, {1}), {true}, 0).ok()) << "axis on a scalar";
  auto not_bool = RunSingleOp(ParseOp("type: \"Compress\" name: \"c\" input: \"x\" input: \"c\" output: \"y\""),
                              {x, Tensor::FromVector<int64_t>({2}, {1, 0})});
  EXPECT_FALSE(not_bool.ok()) << "int64 condition";
}

}  // namespace
}  // namespace loom
