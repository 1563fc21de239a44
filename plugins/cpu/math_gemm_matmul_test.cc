// Gemm, MatMul and Caffe2 FC (oneDNN matmul) against naive loops on random
// inputs.
#include <string>
#include <vector>

#include "core/net.h"
#include "testing/op_runner.h"
#include "plugins/cpu/kernel_test_util.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

// Y = alpha * op(A) * op(B) + beta * C, C broadcast to [M, N] numpy-style.
Tensor GemmRef(const Tensor& a, const Tensor& b, const Tensor* c, bool ta, bool tb, double alpha, double beta) {
  const int64_t M = ta ? a.dim(1) : a.dim(0), K = ta ? a.dim(0) : a.dim(1), N = tb ? b.dim(0) : b.dim(1);
  Tensor y = Tensor::Zeros(DataType::kFloat32, {M, N});
  const float* ap = a.data<float>();
  const float* bp = b.data<float>();
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < K; ++k) acc += double(ta ? ap[k * M + i] : ap[i * K + k]) * (tb ? bp[j * K + k] : bp[k * N + j]);
      double v = alpha * acc;
      if (c != nullptr) {
        // Right-aligned broadcast of C's (up to 2) dims.
        const Shape& cs = c->dims();
        int64_t ci = cs.size() == 2 ? (cs[0] == 1 ? 0 : i) : 0, cj = cs.empty() ? 0 : (cs.back() == 1 ? 0 : j);
        int64_t cw = cs.empty() ? 1 : cs.back();
        v += beta * c->data<float>()[ci * cw + cj];
      }
      y.data<float>()[i * N + j] = static_cast<float>(v);
    }
  }
  return y;
}

OperatorDef GemmOp(bool ta, bool tb, float alpha, float beta, bool with_c) {
  return ParseOp(std::string("type: \"Gemm\" name: \"g\" input: \"A\" input: \"B\" ") + (with_c ? "input: \"C\" " : "") +
                 "output: \"Y\" " + IntArg("transA", ta) + IntArg("transB", tb) + FloatArg("alpha", alpha) +
                 FloatArg("beta", beta));
}

TEST(GemmTest, AllTransposesAndCShapes) {
  const int64_t M = 5, K = 7, N = 3;
  const std::vector<std::pair<std::string, Shape>> c_shapes = {
      {"none", {}}, {"[N]", {N}}, {"[M,N]", {M, N}}, {"[1]", {1}}, {"scalar", {}}, {"[M,1]", {M, 1}}, {"[1,N]", {1, N}}};
  const std::vector<std::pair<float, float>> scales = {{1.0f, 1.0f}, {0.5f, 2.0f}, {-1.5f, 0.0f}, {1.0f, 0.25f}};
  uint32_t seed = 1;
  for (int ta = 0; ta < 2; ++ta) {
    for (int tb = 0; tb < 2; ++tb) {
      for (const auto& [c_name, c_shape] : c_shapes) {
        for (const auto& [alpha, beta] : scales) {
          const bool with_c = c_name != "none";
          Tensor a = RandomTensor(DataType::kFloat32, ta ? Shape{K, M} : Shape{M, K}, seed++);
          Tensor b = RandomTensor(DataType::kFloat32, tb ? Shape{N, K} : Shape{K, N}, seed++);
          Tensor c = RandomTensor(DataType::kFloat32, c_shape, seed++);
          auto out = RunSingleOp(GemmOp(ta, tb, alpha, beta, with_c), {a, b, c});
          const std::string what = "transA=" + std::to_string(ta) + " transB=" + std::to_string(tb) + " C " + c_name +
                                   " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta);
          ASSERT_TRUE(out.ok()) << what << ": " << out.status();
          EXPECT_TRUE(AllClose((*out)[0], GemmRef(a, b, with_c ? &c : nullptr, ta, tb, alpha, beta), 1e-5, 1e-5)) << what;
          ExpectInferredShapes(GemmOp(ta, tb, alpha, beta, with_c), {a, b, c});
        }
      }
    }
  }
}

TEST(GemmTest, LargerMatchesReference) {
  // Big enough for oneDNN to split the work across threads.
  Tensor a = RandomTensor(DataType::kFloat32, {130, 257}, 11), b = RandomTensor(DataType::kFloat32, {96, 257}, 12);
  Tensor c = RandomTensor(DataType::kFloat32, {130, 96}, 13);
  auto out = RunSingleOp(GemmOp(false, true, 0.75f, -0.5f, true), {a, b, c});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], GemmRef(a, b, &c, false, true, 0.75, -0.5), 1e-4, 1e-4));
}

TEST(GemmTest, KnownValues) {
  // [[1, 2], [3, 4]] * [[5, 6], [7, 8]] = [[19, 22], [43, 50]], + C row [1, -1].
  Tensor a = Tensor::FromVector<float>({2, 2}, {1, 2, 3, 4}), b = Tensor::FromVector<float>({2, 2}, {5, 6, 7, 8});
  Tensor c = Tensor::FromVector<float>({2}, {1, -1});
  auto out = RunSingleOp(GemmOp(false, false, 1, 1, true), {a, b, c});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<float>({2, 2}, {20, 21, 44, 49})));
  // transA: A^T = [[1, 3], [2, 4]]; alpha 2, beta 3 with scalar C = 1.
  auto out2 = RunSingleOp(GemmOp(true, false, 2, 3, true), {a, b, Tensor::FromVector<float>({}, {1})});
  ASSERT_TRUE(out2.ok()) << out2.status();
  // A^T B = [[26, 30], [38, 44]] -> 2x + 3.
  EXPECT_TRUE(AllClose((*out2)[0], Tensor::FromVector<float>({2, 2}, {55, 63, 79, 91})));
}

TEST(GemmTest, ZeroSizeDims) {
  // K = 0: A'B' is all zeros, Y = beta * C.
  Tensor c = RandomTensor(DataType::kFloat32, {3, 4}, 5);
  auto out = RunSingleOp(GemmOp(false, false, 1, 2, true),
                         {Tensor::Zeros(DataType::kFloat32, {3, 0}), Tensor::Zeros(DataType::kFloat32, {0, 4}), c});
  ASSERT_TRUE(out.ok()) << out.status();
  Tensor expected = Tensor::Zeros(DataType::kFloat32, {3, 4});
  for (int i = 0; i < 12; ++i) expected.data<float>()[i] = 2 * c.data<float>()[i];
  EXPECT_TRUE(AllClose((*out)[0], expected));
  // K = 0 with a row C as bias, and without C.
  Tensor row = RandomTensor(DataType::kFloat32, {4}, 6);
  out = RunSingleOp(GemmOp(false, false, 1, 1, true),
                    {Tensor::Zeros(DataType::kFloat32, {3, 0}), Tensor::Zeros(DataType::kFloat32, {0, 4}), row});
  ASSERT_TRUE(out.ok()) << out.status();
  for (int i = 0; i < 12; ++i) EXPECT_EQ((*out)[0].data<float>()[i], row.data<float>()[i % 4]);
  out = RunSingleOp(GemmOp(false, false, 1, 1, false),
                    {RandomTensor(DataType::kFloat32, {2, 0}, 7), Tensor::Zeros(DataType::kFloat32, {0, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::Zeros(DataType::kFloat32, {2, 3})));
  // M = 0.
  out = RunSingleOp(GemmOp(false, false, 1, 1, false),
                    {Tensor::Zeros(DataType::kFloat32, {0, 3}), RandomTensor(DataType::kFloat32, {3, 2}, 8)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].dims(), (Shape{0, 2}));
}

TEST(GemmTest, Errors) {
  auto expect_error = [](const absl::StatusOr<std::vector<Tensor>>& out, const std::string& part) {
    ASSERT_FALSE(out.ok());
    EXPECT_NE(std::string(out.status().message()).find("Gemm"), std::string::npos) << out.status();
    EXPECT_NE(std::string(out.status().message()).find(part), std::string::npos) << out.status();
  };
  Tensor a = RandomTensor(DataType::kFloat32, {4, 3}, 1);
  // K mismatch: A [4, 3], B [5, 2].
  expect_error(RunSingleOp(GemmOp(false, false, 1, 1, false), {a, RandomTensor(DataType::kFloat32, {5, 2}, 2)}),
               "inner dimensions");
  // transB turns B [2, 3] into [3, 2]: fine; without it K mismatches.
  EXPECT_TRUE(RunSingleOp(GemmOp(false, true, 1, 1, false), {a, RandomTensor(DataType::kFloat32, {2, 3}, 3)}).ok());
  expect_error(RunSingleOp(GemmOp(false, false, 1, 1, false), {a, RandomTensor(DataType::kFloat32, {2, 3}, 3)}),
               "inner dimensions");
  // A not 2-D.
  expect_error(RunSingleOp(GemmOp(false, false, 1, 1, false),
                           {RandomTensor(DataType::kFloat32, {2, 4, 3}, 4), RandomTensor(DataType::kFloat32, {3, 2}, 5)}),
               "2-D");
  // C does not broadcast to [4, 2].
  expect_error(RunSingleOp(GemmOp(false, false, 1, 1, true),
                           {a, RandomTensor(DataType::kFloat32, {3, 2}, 6), RandomTensor(DataType::kFloat32, {3}, 7)}),
               "C");
  // float16 has no kernel: a clear error, not a crash.
  auto f16 = RunSingleOp(GemmOp(false, false, 1, 1, false),
                         {RandomTensor(DataType::kFloat16, {2, 2}, 1), RandomTensor(DataType::kFloat16, {2, 2}, 2)});
  ASSERT_FALSE(f16.ok());
  EXPECT_NE(std::string(f16.status().message()).find("float16"), std::string::npos) << f16.status();
}

// float64 (plain loops): known values, transposes and broadcast C.
TEST(GemmTest, Float64KnownValues) {
  // A^T with A = [[1, 3], [2, 4]] is [[1, 2], [3, 4]]; times B = [[5, 6], [7, 8]] is
  // [[19, 22], [43, 50]]; alpha 2, + beta 0.5 * C [1, -1] per row.
  Tensor a = Tensor::FromVector<double>({2, 2}, {1, 3, 2, 4}), b = Tensor::FromVector<double>({2, 2}, {5, 6, 7, 8});
  auto out = RunSingleOp(GemmOp(true, false, 2, 0.5f, true), {a, b, Tensor::FromVector<double>({2}, {1, -1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<double>({2, 2}, {38.5, 43.5, 86.5, 99.5}), 0, 0));
}

TEST(MatMulTest, Float64BatchedKnownValues) {
  // Batch of 2 A [2, 1, 2] times one B [2, 2]: rows [1, 2] and [3, 4].
  auto out = RunSingleOp(ParseOp("type: \"MatMul\" input: \"A\" input: \"B\" output: \"Y\""),
                         {Tensor::FromVector<double>({2, 1, 2}, {1, 2, 3, 4}), Tensor::FromVector<double>({2, 2}, {5, 6, 7, 8})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<double>({2, 1, 2}, {19, 22, 43, 50}), 0, 0));
}

// The kernel caches its primitive: later runs bind the new buffers.
TEST(GemmTest, RepeatedRunsRebindBuffers) {
  Workspace ws;
  NetDef def;
  def.add_external_input("A");
  def.add_external_input("B");
  def.add_external_input("C");
  *def.add_op() = GemmOp(false, false, 1, 1, true);
  Tensor c = RandomTensor(DataType::kFloat32, {6}, 3);
  ws.SetBlob("C", c);
  std::unique_ptr<Net> net;
  for (uint32_t run = 0; run < 3; ++run) {
    Tensor a = RandomTensor(DataType::kFloat32, {4, 5}, 10 + run), b = RandomTensor(DataType::kFloat32, {5, 6}, 20 + run);
    ws.SetBlob("A", a);
    ws.SetBlob("B", b);
    if (!net) {
      auto n = Net::Create(def, &ws, CpuRegistry());
      ASSERT_TRUE(n.ok()) << n.status();
      net = std::move(*n);
    }
    ASSERT_TRUE(net->Run().ok());
    EXPECT_TRUE(AllClose(*ws.GetBlob("Y"), GemmRef(a, b, &c, false, false, 1, 1))) << "run " << run;
  }
  EXPECT_EQ(net->plans_built(), 1);
}

// numpy.matmul reference: batch dims broadcast, 1-D operands promoted.
Tensor MatMulRef(const Tensor& a, const Tensor& b) {
  Shape as = a.dims(), bs = b.dims();
  const bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
  if (a_vec) as.insert(as.begin(), 1);
  if (b_vec) bs.push_back(1);
  const int64_t M = as[as.size() - 2], K = as.back(), N = bs.back();
  const size_t r = std::max(as.size(), bs.size());
  as.insert(as.begin(), r - as.size(), 1);
  bs.insert(bs.begin(), r - bs.size(), 1);
  Shape batch(r - 2);
  for (size_t i = 0; i < r - 2; ++i) batch[i] = as[i] == 1 ? bs[i] : as[i];  // numpy: 1 stretches, 0 stays
  Shape out = batch;
  if (!a_vec) out.push_back(M);
  if (!b_vec) out.push_back(N);
  Tensor y = Tensor::Zeros(DataType::kFloat32, out);
  int64_t nb = 1;
  for (int64_t d : batch) nb *= d;
  for (int64_t bi = 0; bi < nb; ++bi) {
    // Batch offsets of A and B (index 0 on broadcast dims).
    int64_t rem = bi, ao = 0, bo = 0, astr = M * K, bstr = K * N;
    for (int64_t i = static_cast<int64_t>(r) - 3; i >= 0; --i) {
      const int64_t idx = rem % batch[i];
      rem /= batch[i];
      ao += (as[i] == 1 ? 0 : idx) * astr;
      bo += (bs[i] == 1 ? 0 : idx) * bstr;
      astr *= as[i];
      bstr *= bs[i];
    }
    for (int64_t m = 0; m < M; ++m) {
      for (int64_t n = 0; n < N; ++n) {
        double acc = 0;
        for (int64_t k = 0; k < K; ++k) acc += double(a.data<float>()[ao + m * K + k]) * b.data<float>()[bo + k * N + n];
        y.data<float>()[(bi * M + m) * N + n] = static_cast<float>(acc);
      }
    }
  }
  return y;
}

TEST(MatMulTest, MatchesReference) {
  const OperatorDef op = ParseOp("type: \"MatMul\" name: \"mm\" input: \"A\" input: \"B\" output: \"Y\"");
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{3, 4}, {4, 5}},          {{4}, {4, 5}},           {{3, 4}, {4}},           {{4}, {4}},
      {{2, 1, 3, 4}, {5, 4, 2}}, {{5, 4, 2}, {2, 3}},     {{3, 4}, {6, 4, 2}},     {{2, 3, 4}, {4}},
      {{4}, {2, 4, 3}},          {{1, 3, 4}, {2, 1, 4, 5}}, {{64, 96}, {96, 80}}, {{0, 3, 4}, {4, 2}},
      {{3, 0}, {0, 2}},          {{2, 3, 4}, {2, 4, 0}}};
  uint32_t seed = 1;
  for (const auto& [as, bs] : cases) {
    Tensor a = RandomTensor(DataType::kFloat32, as, seed++), b = RandomTensor(DataType::kFloat32, bs, seed++);
    auto out = RunSingleOp(op, {a, b});
    ASSERT_TRUE(out.ok()) << ShapeToString(as) << " x " << ShapeToString(bs) << ": " << out.status();
    Tensor expected = MatMulRef(a, b);
    EXPECT_EQ((*out)[0].dims(), expected.dims()) << ShapeToString(as) << " x " << ShapeToString(bs);
    EXPECT_TRUE(AllClose((*out)[0], expected, 1e-5, 1e-5)) << ShapeToString(as) << " x " << ShapeToString(bs);
    ExpectInferredShapes(op, {a, b});
  }
}

TEST(MatMulTest, KnownValuesAndShapes) {
  const OperatorDef op = ParseOp("type: \"MatMul\" input: \"A\" input: \"B\" output: \"Y\"");
  // [1, 2, 3] . [4, 5, 6] = 32, a scalar.
  auto dot = RunSingleOp(op, {Tensor::FromVector<float>({3}, {1, 2, 3}), Tensor::FromVector<float>({3}, {4, 5, 6})});
  ASSERT_TRUE(dot.ok()) << dot.status();
  EXPECT_TRUE(AllClose((*dot)[0], Tensor::FromVector<float>({}, {32})));
  // [2, 1, 3, 4] x [5, 4, 2] -> [2, 5, 3, 2].
  auto out = RunSingleOp(op, {RandomTensor(DataType::kFloat32, {2, 1, 3, 4}, 1), RandomTensor(DataType::kFloat32, {5, 4, 2}, 2)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].dims(), (Shape{2, 5, 3, 2}));
}

TEST(MatMulTest, Errors) {
  const OperatorDef op = ParseOp("type: \"MatMul\" name: \"mm\" input: \"A\" input: \"B\" output: \"Y\"");
  auto check = [&](const Shape& as, const Shape& bs, const std::string& part) {
    auto out = RunSingleOp(op, {RandomTensor(DataType::kFloat32, as, 1), RandomTensor(DataType::kFloat32, bs, 2)});
    ASSERT_FALSE(out.ok()) << ShapeToString(as) << " x " << ShapeToString(bs);
    EXPECT_NE(std::string(out.status().message()).find("MatMul"), std::string::npos) << out.status();
    EXPECT_NE(std::string(out.status().message()).find(part), std::string::npos) << out.status();
  };
  check({3, 4}, {5, 2}, "inner dimensions");
  check({2, 3, 4}, {3, 4, 2}, "broadcast");
  check({}, {3}, "rank");
}

OperatorDef FCOp(int64_t axis, int64_t axis_w) {
  return ParseOp("type: \"FC\" name: \"fc\" input: \"X\" input: \"W\" input: \"b\" output: \"Y\" " +
                 IntArg("axis", axis) + IntArg("axis_w", axis_w));
}

// FC = Gemm(X flattened at axis, W flattened at axis_w, b, transB = 1), Y
// reshaped to X.dims[:axis] + [N] (Caffe2's semantics).
TEST(FCTest, MatchesGemmReferenceForEveryAxis) {
  struct Case {
    Shape x, w;
    int64_t axis, axis_w;
    Shape y;
  };
  const std::vector<Case> cases = {
      {{4, 6}, {5, 6}, 1, 1, {4, 5}},               // plain
      {{1, 3, 8}, {16, 8}, 2, 1, {1, 3, 16}},       // a step net's [1, N, I] input
      {{1, 3, 8}, {16, 8}, -1, 1, {1, 3, 16}},      // negative axis
      {{2, 3, 2, 2}, {7, 3, 2, 2}, 1, 1, {2, 7}},   // K over several dims
      {{2, 12}, {2, 3, 12}, 1, 2, {2, 6}},          // N over W's leading dims
  };
  uint32_t seed = 40;
  for (const Case& c : cases) {
    Tensor x = RandomTensor(DataType::kFloat32, c.x, seed++), w = RandomTensor(DataType::kFloat32, c.w, seed++);
    Tensor b = RandomTensor(DataType::kFloat32, {c.y.back()}, seed++);
    auto out = RunSingleOp(FCOp(c.axis, c.axis_w), {x, w, b});
    const std::string what = "X " + ShapeToString(c.x) + " W " + ShapeToString(c.w) + " axis " + std::to_string(c.axis);
    ASSERT_TRUE(out.ok()) << what << ": " << out.status();
    ASSERT_EQ((*out)[0].dims(), c.y) << what;
    const int64_t K = NumElements(c.w) / c.y.back();
    Tensor x2 = x.Clone().value(), w2 = w.Clone().value();
    ASSERT_TRUE(x2.ResizeOrCheckAlias(DataType::kFloat32, {NumElements(c.x) / K, K}).ok());
    ASSERT_TRUE(w2.ResizeOrCheckAlias(DataType::kFloat32, {c.y.back(), K}).ok());
    Tensor ref = GemmRef(x2, w2, &b, false, true, 1, 1);
    ASSERT_TRUE(ref.ResizeOrCheckAlias(DataType::kFloat32, c.y).ok());
    EXPECT_TRUE(AllClose((*out)[0], ref, 1e-5, 1e-5)) << what;
    ExpectInferredShapes(FCOp(c.axis, c.axis_w), {x, w, b});
  }
}

TEST(FCTest, KnownValuesAndErrors) {
  // X [[1, 2]], W [[1, 0], [0, 1], [1, 1]] (N = 3), b [0.5, 0, -1]: Y = [[1.5, 2, 2]].
  auto out = RunSingleOp(FCOp(1, 1), {Tensor::FromVector<float>({1, 2}, {1, 2}),
                                      Tensor::FromVector<float>({3, 2}, {1, 0, 0, 1, 1, 1}),
                                      Tensor::FromVector<float>({3}, {0.5f, 0, -1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<float>({1, 3}, {1.5f, 2, 2})));
  auto bad_k = RunSingleOp(FCOp(1, 1), {RandomTensor(DataType::kFloat32, {2, 4}, 1), RandomTensor(DataType::kFloat32, {3, 5}, 2),
                                        RandomTensor(DataType::kFloat32, {3}, 3)});
  ASSERT_FALSE(bad_k.ok());
  EXPECT_NE(std::string(bad_k.status().message()).find("same K"), std::string::npos) << bad_k.status();
  auto bad_b = RunSingleOp(FCOp(1, 1), {RandomTensor(DataType::kFloat32, {2, 4}, 1), RandomTensor(DataType::kFloat32, {3, 4}, 2),
                                        RandomTensor(DataType::kFloat32, {4}, 3)});
  ASSERT_FALSE(bad_b.ok());
  EXPECT_NE(std::string(bad_b.status().message()).find("input b must be [3]"), std::string::npos) << bad_b.status();
}

// FC's Sum (Loom's fourth input, a step net's projected input row): Y =
// X W^T + b + Sum, for Sum of Y's shape or with leading 1s dropped or added
// (a step net's [1, N, G*H] row against Y [1, 1, N, G*H]); another shape is
// an error naming the op and the input.
TEST(FCTest, SumInputIsAddedToY) {
  const OperatorDef op = ParseOp("type: \"FC\" name: \"fc\" input: \"X\" input: \"W\" input: \"b\" input: \"S\" "
                                 "output: \"Y\" " + IntArg("axis", -1));
  const Tensor x = RandomTensor(DataType::kFloat32, {1, 1, 3, 8}, 90), w = RandomTensor(DataType::kFloat32, {16, 8}, 91);
  const Tensor b = RandomTensor(DataType::kFloat32, {16}, 92);
  Tensor x2 = x.Clone().value();
  ASSERT_TRUE(x2.ResizeOrCheckAlias(DataType::kFloat32, {3, 8}).ok());
  const Tensor gemm = GemmRef(x2, w, &b, false, true, 1, 1);
  for (const Shape& sum_shape : {Shape{1, 1, 3, 16}, Shape{1, 3, 16}, Shape{3, 16}}) {
    const Tensor sum = RandomTensor(DataType::kFloat32, sum_shape, 93);
    Tensor ref = Tensor::Zeros(DataType::kFloat32, {1, 1, 3, 16});
    for (int64_t i = 0; i < 48; ++i) ref.data<float>()[i] = gemm.data<float>()[i] + sum.data<float>()[i];
    auto out = RunSingleOp(op, {x, w, b, sum});
    ASSERT_TRUE(out.ok()) << ShapeToString(sum_shape) << ": " << out.status();
    EXPECT_TRUE(AllClose((*out)[0], ref, 1e-5, 1e-5)) << ShapeToString(sum_shape);
  }
  auto bad = RunSingleOp(op, {x, w, b, RandomTensor(DataType::kFloat32, {3, 8}, 94)});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("fc"), std::string::npos) << bad.status();
  EXPECT_NE(std::string(bad.status().message()).find("input Sum"), std::string::npos) << bad.status();
}

}  // namespace
}  // namespace loom
