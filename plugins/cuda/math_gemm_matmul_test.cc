// CUDA Gemm and MatMul (cuBLAS) against the CPU kernels on random inputs:
// every transA/transB combination, alpha/beta, each C broadcast, batched
// MatMul with broadcast batch dims and 1-D operands, zero-size dims, and
// float16 / bfloat16 (checked against the float32 CPU kernel on the same,
// exactly widened, values). Errors for bad shapes.
#include <string>
#include <vector>

#include "plugins/cuda/cuda_test_util.h"

namespace loom {
namespace {

using testing::AllClose;
using testing::ElementAsDouble;
using testing::ExpectCudaMatchesCpu;
using testing::ParseOp;
using testing::RandomTensor;
using testing::RunOnCuda;
using testing::RunSingleOp;

// float32 copy of a float16 / bfloat16 (or float32) host tensor; exact.
Tensor ToF32(const Tensor& t) {
  Tensor r = Tensor::Zeros(DataType::kFloat32, t.dims());
  for (int64_t i = 0; i < t.num_elements(); ++i) r.data<float>()[i] = static_cast<float>(ElementAsDouble(t, i));
  return r;
}

// Runs `op` on CUDA in `dt` and on the CPU in float32 on the same values.
void ExpectHalfMatchesCpu(const OperatorDef& op, DataType dt, const std::vector<Shape>& shapes, uint32_t seed,
                          double tol) {
  std::vector<Tensor> in, in32;
  for (size_t i = 0; i < shapes.size(); ++i) {
    in.push_back(RandomTensor(dt, shapes[i], seed + static_cast<uint32_t>(i)));
    in32.push_back(ToF32(in.back()));
  }
  auto cpu = RunSingleOp(op, in32, testing::CudaRegistry());
  ASSERT_TRUE(cpu.ok()) << "CPU: " << cpu.status();
  auto gpu = RunOnCuda(op, in);
  ASSERT_TRUE(gpu.ok()) << "CUDA: " << gpu.status();
  ASSERT_EQ((*gpu)[0].dtype(), dt);
  EXPECT_TRUE(AllClose(ToF32((*gpu)[0]), (*cpu)[0], tol, tol)) << op.type();
}

std::string GemmText(int ta, int tb, float alpha, float beta, bool with_c) {
  return "type: 'Gemm' input: 'a' input: 'b' " + std::string(with_c ? "input: 'c' " : "") + "output: 'y' " +
         "arg { name: 'transA' i: " + std::to_string(ta) + " } arg { name: 'transB' i: " + std::to_string(tb) +
         " } arg { name: 'alpha' f: " + std::to_string(alpha) + " } arg { name: 'beta' f: " + std::to_string(beta) +
         " }";
}

TEST(CudaBlasTest, GemmTransposesAlphaBetaAndCBroadcasts) {
  LOOM_SKIP_WITHOUT_GPU();
  const int64_t M = 33, K = 64, N = 17;
  const std::vector<Shape> c_shapes = {{}, {1}, {N}, {1, N}, {M, 1}, {M, N}, {1, 1}};
  uint32_t seed = 1;
  for (int ta = 0; ta < 2; ++ta) {
    for (int tb = 0; tb < 2; ++tb) {
      const Shape as = ta ? Shape{K, M} : Shape{M, K}, bs = tb ? Shape{N, K} : Shape{K, N};
      SCOPED_TRACE("transA " + std::to_string(ta) + " transB " + std::to_string(tb));
      ExpectCudaMatchesCpu(ParseOp(GemmText(ta, tb, 1.f, 1.f, false)),
                           {RandomTensor(DataType::kFloat32, as, seed++), RandomTensor(DataType::kFloat32, bs, seed++)},
                           1e-4, 1e-4);
      for (const Shape& cs : c_shapes) {
        for (float beta : {1.0f, 0.5f, 0.0f}) {
          ExpectCudaMatchesCpu(ParseOp(GemmText(ta, tb, 0.75f, beta, true)),
                               {RandomTensor(DataType::kFloat32, as, seed++), RandomTensor(DataType::kFloat32, bs, seed++),
                                RandomTensor(DataType::kFloat32, cs, seed++)},
                               1e-4, 1e-4);
        }
      }
    }
  }
}

TEST(CudaBlasTest, GemmLargerAndDegenerateShapes) {
  LOOM_SKIP_WITHOUT_GPU();
  ExpectCudaMatchesCpu(ParseOp(GemmText(0, 1, 1.f, 1.f, true)),
                       {RandomTensor(DataType::kFloat32, {128, 256}, 1), RandomTensor(DataType::kFloat32, {96, 256}, 2),
                        RandomTensor(DataType::kFloat32, {96}, 3)},
                       1e-4, 1e-4);
  // Vectors: M = 1, N = 1.
  ExpectCudaMatchesCpu(ParseOp(GemmText(0, 0, 2.f, 1.f, true)),
                       {RandomTensor(DataType::kFloat32, {1, 40}, 4), RandomTensor(DataType::kFloat32, {40, 1}, 5),
                        RandomTensor(DataType::kFloat32, {1}, 6)},
                       1e-4, 1e-4);
  // K = 0: Y = beta * C, or zeros without C.
  ExpectCudaMatchesCpu(ParseOp(GemmText(0, 0, 1.f, 0.5f, true)),
                       {RandomTensor(DataType::kFloat32, {3, 0}, 7), RandomTensor(DataType::kFloat32, {0, 4}, 8),
                        RandomTensor(DataType::kFloat32, {3, 4}, 9)});
  ExpectCudaMatchesCpu(ParseOp(GemmText(1, 1, 1.f, 1.f, false)),
                       {RandomTensor(DataType::kFloat32, {0, 3}, 10), RandomTensor(DataType::kFloat32, {4, 0}, 11)});
  // M = 0: an empty Y.
  ExpectCudaMatchesCpu(ParseOp(GemmText(0, 0, 1.f, 1.f, true)),
                       {RandomTensor(DataType::kFloat32, {0, 5}, 12), RandomTensor(DataType::kFloat32, {5, 4}, 13),
                        RandomTensor(DataType::kFloat32, {4}, 14)});
  auto r = RunOnCuda(ParseOp(GemmText(0, 0, 1.f, 1.f, false)),
                     {RandomTensor(DataType::kFloat32, {0, 5}, 12), RandomTensor(DataType::kFloat32, {5, 4}, 13)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].dims(), (Shape{0, 4}));
}

TEST(CudaBlasTest, GemmHalfTypes) {
  LOOM_SKIP_WITHOUT_GPU();
  for (DataType dt : {DataType::kFloat16, DataType::kBFloat16}) {
    const double tol = dt == DataType::kFloat16 ? 5e-3 : 3e-2;
    for (int ta = 0; ta < 2; ++ta) {
      for (int tb = 0; tb < 2; ++tb) {
        const Shape as = ta ? Shape{64, 40} : Shape{40, 64}, bs = tb ? Shape{24, 64} : Shape{64, 24};
        ExpectHalfMatchesCpu(ParseOp(GemmText(ta, tb, 0.5f, 1.5f, true)), dt, {as, bs, {24}}, 20, tol);
        ExpectHalfMatchesCpu(ParseOp(GemmText(ta, tb, 1.f, 1.f, true)), dt, {as, bs, {40, 24}}, 30, tol);
        ExpectHalfMatchesCpu(ParseOp(GemmText(ta, tb, 1.f, 1.f, false)), dt, {as, bs}, 40, tol);
      }
    }
  }
}

TEST(CudaBlasTest, GemmBadShapesAreErrors) {
  LOOM_SKIP_WITHOUT_GPU();
  // Inner dimensions differ.
  EXPECT_FALSE(RunOnCuda(ParseOp(GemmText(0, 0, 1.f, 1.f, false)),
                         {RandomTensor(DataType::kFloat32, {3, 4}, 1), RandomTensor(DataType::kFloat32, {5, 2}, 2)})
                   .ok());
  // A not 2-D.
  EXPECT_FALSE(RunOnCuda(ParseOp(GemmText(0, 0, 1.f, 1.f, false)),
                         {RandomTensor(DataType::kFloat32, {2, 3, 4}, 1), RandomTensor(DataType::kFloat32, {4, 2}, 2)})
                   .ok());
  // C does not broadcast to [3, 2].
  EXPECT_FALSE(RunOnCuda(ParseOp(GemmText(0, 0, 1.f, 1.f, true)),
                         {RandomTensor(DataType::kFloat32, {3, 4}, 1), RandomTensor(DataType::kFloat32, {4, 2}, 2),
                          RandomTensor(DataType::kFloat32, {3}, 3)})
                   .ok());
}

const char* kMatMul = "type: 'MatMul' input: 'a' input: 'b' output: 'y'";

TEST(CudaBlasTest, MatMulShapesAndBroadcasting) {
  LOOM_SKIP_WITHOUT_GPU();
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{3, 4}, {4, 5}},                  // plain
      {{64, 128}, {128, 96}},            // larger
      {{2, 3, 4}, {4, 5}},               // B shared: A's batches fold into M
      {{2, 3, 7, 4}, {1, 4, 5}},         // B shared through a size-1 batch dim
      {{3, 4}, {2, 4, 5}},               // A shared: stride 0
      {{2, 3, 4, 5}, {2, 3, 5, 6}},      // full batches: one strided call
      {{2, 1, 3, 4}, {5, 4, 6}},         // both broadcast: a loop of strided calls
      {{1, 3, 4}, {2, 1, 4, 5}},         // size-1 batch dims on both sides
      {{4, 1, 2, 3}, {1, 3, 3, 2}},      // [4, 3] batch from [4, 1] and [1, 3]
      {{2, 1, 3, 2, 3}, {2, 5, 1, 3, 2}},  // [2, 5, 3] batch, A and B each broadcast on a dim
      {{4}, {4, 5}},                     // 1-D A
      {{2, 3, 4}, {4}},                  // 1-D B
      {{4}, {4}},                        // dot product: scalar
      {{4}, {3, 4, 2}},                  // 1-D A against batches
      {{3, 1, 4}, {4}},                  // 1-D B, M = 1
  };
  uint32_t seed = 1;
  for (const auto& [as, bs] : cases) {
    ExpectCudaMatchesCpu(ParseOp(kMatMul),
                         {RandomTensor(DataType::kFloat32, as, seed), RandomTensor(DataType::kFloat32, bs, seed + 1)},
                         1e-4, 1e-4);
    seed += 2;
  }
}

TEST(CudaBlasTest, MatMulZeroSizes) {
  LOOM_SKIP_WITHOUT_GPU();
  // K = 0: zeros.
  ExpectCudaMatchesCpu(ParseOp(kMatMul), {RandomTensor(DataType::kFloat32, {2, 3, 0}, 1),
                                          RandomTensor(DataType::kFloat32, {0, 5}, 2)});
  auto r = RunOnCuda(ParseOp(kMatMul), {RandomTensor(DataType::kFloat32, {2, 3, 0}, 1),
                                        RandomTensor(DataType::kFloat32, {0, 5}, 2)});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ((*r)[0].dims(), (Shape{2, 3, 5}));
  for (int64_t i = 0; i < (*r)[0].num_elements(); ++i) EXPECT_EQ((*r)[0].data<float>()[i], 0.0f);
  // Empty batch, empty M.
  r = RunOnCuda(ParseOp(kMatMul), {RandomTensor(DataType::kFloat32, {0, 3, 4}, 1),
                                   RandomTensor(DataType::kFloat32, {4, 5}, 2)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].dims(), (Shape{0, 3, 5}));
  r = RunOnCuda(ParseOp(kMatMul), {RandomTensor(DataType::kFloat32, {2, 0, 4}, 1),
                                   RandomTensor(DataType::kFloat32, {2, 4, 5}, 2)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].dims(), (Shape{2, 0, 5}));
}

TEST(CudaBlasTest, MatMulHalfTypes) {
  LOOM_SKIP_WITHOUT_GPU();
  for (DataType dt : {DataType::kFloat16, DataType::kBFloat16}) {
    const double tol = dt == DataType::kFloat16 ? 5e-3 : 3e-2;
    ExpectHalfMatchesCpu(ParseOp(kMatMul), dt, {{40, 64}, {64, 24}}, 1, tol);
    ExpectHalfMatchesCpu(ParseOp(kMatMul), dt, {{2, 3, 8, 32}, {2, 3, 32, 16}}, 2, tol);
    ExpectHalfMatchesCpu(ParseOp(kMatMul), dt, {{2, 1, 8, 32}, {3, 32, 16}}, 3, tol);
    ExpectHalfMatchesCpu(ParseOp(kMatMul), dt, {{5, 8, 32}, {32, 16}}, 4, tol);
    ExpectHalfMatchesCpu(ParseOp(kMatMul), dt, {{32}, {32, 16}}, 5, tol);
  }
}

TEST(CudaBlasTest, MatMulBadShapesAreErrors) {
  LOOM_SKIP_WITHOUT_GPU();
  // K differs.
  EXPECT_FALSE(RunOnCuda(ParseOp(kMatMul), {RandomTensor(DataType::kFloat32, {3, 4}, 1),
                                            RandomTensor(DataType::kFloat32, {5, 2}, 2)})
                   .ok());
  // Batch dims 2 and 3 do not broadcast.
  EXPECT_FALSE(RunOnCuda(ParseOp(kMatMul), {RandomTensor(DataType::kFloat32, {2, 3, 4}, 1),
                                            RandomTensor(DataType::kFloat32, {3, 4, 5}, 2)})
                   .ok());
  // A scalar operand.
  EXPECT_FALSE(RunOnCuda(ParseOp(kMatMul), {RandomTensor(DataType::kFloat32, {}, 1),
                                            RandomTensor(DataType::kFloat32, {4, 5}, 2)})
                   .ok());
}

}  // namespace
}  // namespace loom
