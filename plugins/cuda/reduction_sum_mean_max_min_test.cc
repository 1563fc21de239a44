// CUDA Softmax / LogSoftmax and ReduceSum / ReduceMean / ReduceMax /
// ReduceMin against the CPU kernels on random inputs: every axis (negative
// too), both kernel shapes of each (contiguous rows / strided columns; a
// thread or a block per output), axes as attribute and as input, keepdims,
// noop_with_empty_axes, zero-size dims, float16 / bfloat16 / int32 / int64,
// and errors for bad axes.
#include <string>
#include <vector>

#include "plugins/cuda/cuda_test_util.h"

namespace loom {
namespace {

using testing::ExpectCudaMatchesCpu;
using testing::IntsArg;
using testing::ParseOp;
using testing::RandomTensor;
using testing::RunOnCuda;

OperatorDef SoftmaxOp(bool log, int64_t axis) {
  return ParseOp(std::string("type: '") + (log ? "LogSoftmax" : "Softmax") +
                 "' input: 'x' output: 'y' arg { name: 'axis' i: " + std::to_string(axis) + " }");
}

TEST(CudaSoftmaxTest, EveryAxisAndKernelShape) {
  LOOM_SKIP_WITHOUT_GPU();
  for (bool log : {false, true}) {
    SCOPED_TRACE(log ? "LogSoftmax" : "Softmax");
    for (int64_t axis : {-3, -2, -1, 0, 1, 2}) {
      ExpectCudaMatchesCpu(SoftmaxOp(log, axis), {RandomTensor(DataType::kFloat32, {3, 4, 5}, 1, -5, 5)}, 1e-4, 1e-5);
    }
    // Default axis (-1).
    ExpectCudaMatchesCpu(ParseOp(std::string("type: '") + (log ? "LogSoftmax" : "Softmax") +
                                 "' input: 'x' output: 'y'"),
                         {RandomTensor(DataType::kFloat32, {6, 7}, 2, -5, 5)}, 1e-4, 1e-5);
    // 1-D; a long row (a block per row); many short rows (a warp per row);
    // a strided axis with wide columns; large values (max subtraction).
    ExpectCudaMatchesCpu(SoftmaxOp(log, 0), {RandomTensor(DataType::kFloat32, {37}, 3, -5, 5)}, 1e-4, 1e-5);
    ExpectCudaMatchesCpu(SoftmaxOp(log, 1), {RandomTensor(DataType::kFloat32, {3, 5000}, 4, -5, 5)}, 1e-4, 1e-6);
    ExpectCudaMatchesCpu(SoftmaxOp(log, -1), {RandomTensor(DataType::kFloat32, {1000, 1024}, 5, -5, 5)}, 1e-4, 1e-6);
    ExpectCudaMatchesCpu(SoftmaxOp(log, -1), {RandomTensor(DataType::kFloat32, {513, 3}, 6, -5, 5)}, 1e-4, 1e-5);
    ExpectCudaMatchesCpu(SoftmaxOp(log, 1), {RandomTensor(DataType::kFloat32, {2, 50, 333}, 7, -5, 5)}, 1e-4, 1e-6);
    ExpectCudaMatchesCpu(SoftmaxOp(log, 0), {RandomTensor(DataType::kFloat32, {1, 8}, 8, -5, 5)}, 1e-4, 1e-5);
    ExpectCudaMatchesCpu(SoftmaxOp(log, -1), {RandomTensor(DataType::kFloat32, {4, 40}, 9, 80, 100)}, 1e-4, 1e-5);
  }
}

TEST(CudaSoftmaxTest, HalfTypes) {
  LOOM_SKIP_WITHOUT_GPU();
  for (bool log : {false, true}) {
    for (DataType dt : {DataType::kFloat16, DataType::kBFloat16}) {
      const double tol = dt == DataType::kFloat16 ? 5e-3 : 2e-2;
      ExpectCudaMatchesCpu(SoftmaxOp(log, -1), {RandomTensor(dt, {16, 100}, 1, -4, 4)}, tol, tol);
      ExpectCudaMatchesCpu(SoftmaxOp(log, 1), {RandomTensor(dt, {2, 30, 40}, 2, -4, 4)}, tol, tol);
      ExpectCudaMatchesCpu(SoftmaxOp(log, 1), {RandomTensor(dt, {2, 3000}, 3, -4, 4)}, tol, tol);
    }
  }
}

TEST(CudaSoftmaxTest, EmptyAndErrors) {
  LOOM_SKIP_WITHOUT_GPU();
  auto r = RunOnCuda(SoftmaxOp(false, 1), {RandomTensor(DataType::kFloat32, {0, 4}, 1)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].dims(), (Shape{0, 4}));
  r = RunOnCuda(SoftmaxOp(true, 0), {RandomTensor(DataType::kFloat32, {0, 4}, 1)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].dims(), (Shape{0, 4}));
  // Axis out of range; a rank-0 input.
  EXPECT_FALSE(RunOnCuda(SoftmaxOp(false, 3), {RandomTensor(DataType::kFloat32, {2, 3, 4}, 1)}).ok());
  EXPECT_FALSE(RunOnCuda(SoftmaxOp(true, -4), {RandomTensor(DataType::kFloat32, {2, 3, 4}, 1)}).ok());
  EXPECT_FALSE(RunOnCuda(SoftmaxOp(false, -1), {RandomTensor(DataType::kFloat32, {}, 1)}).ok());
}

const char* kReduceOps[] = {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin"};

// `op` with the axes attribute (`axes` empty: none given).
OperatorDef ReduceAttr(const std::string& op, const std::vector<int64_t>& axes, int keepdims, int noop = 0) {
  return ParseOp("type: '" + op + "' input: 'x' output: 'y'" + IntsArg("axes", axes) +
                 " arg { name: 'keepdims' i: " + std::to_string(keepdims) +
                 " } arg { name: 'noop_with_empty_axes' i: " + std::to_string(noop) + " }");
}

// `op` with the axes as its second input.
OperatorDef ReduceInput(const std::string& op, int keepdims, int noop = 0) {
  return ParseOp("type: '" + op + "' input: 'x' input: 'axes' output: 'y' arg { name: 'keepdims' i: " +
                 std::to_string(keepdims) + " } arg { name: 'noop_with_empty_axes' i: " + std::to_string(noop) + " }");
}

Tensor Axes(const std::vector<int64_t>& a) { return Tensor::FromVector<int64_t>({static_cast<int64_t>(a.size())}, a); }

TEST(CudaReduceTest, AxesAttributeKeepdimsAndKernelShapes) {
  LOOM_SKIP_WITHOUT_GPU();
  struct Case {
    Shape shape;
    std::vector<int64_t> axes;
  };
  const std::vector<Case> cases = {
      {{2, 3, 4, 5}, {1}},        {{2, 3, 4, 5}, {-1}},     {{2, 3, 4, 5}, {0, 2}},  {{2, 3, 4, 5}, {1, 3}},
      {{2, 3, 4, 5}, {}},         {{2, 3, 4, 5}, {0, -3}},  {{2, 3, 4, 5}, {3, 2, 1, 0}},
      {{4, 3000}, {1}},           // a block per output, contiguous
      {{3000, 5}, {0}},           // few outputs, long strided reduction: a block per output
      {{8, 16, 3, 16}, {1, 3}},   // a block per output over two reduced dims
      {{300, 7, 2}, {0, 2}},      // reduced dims on both sides of a kept one
      {{2000, 3}, {1}},           // short contiguous reductions: a thread per output
      {{5, 1, 6}, {1}},           // only a size-1 dim: a copy
      {{7}, {0}},                 {{1, 1, 9}, {-1}},
  };
  uint32_t seed = 1;
  for (const char* op : kReduceOps) {
    for (const Case& c : cases) {
      for (int keep : {0, 1}) {
        SCOPED_TRACE(std::string(op) + " keepdims " + std::to_string(keep) + " case " + std::to_string(seed));
        ExpectCudaMatchesCpu(ReduceAttr(op, c.axes, keep), {RandomTensor(DataType::kFloat32, c.shape, seed++)}, 1e-5,
                             1e-5);
      }
    }
  }
}

TEST(CudaReduceTest, AxesInputAndNoop) {
  LOOM_SKIP_WITHOUT_GPU();
  for (const char* op : kReduceOps) {
    SCOPED_TRACE(op);
    const Tensor x = RandomTensor(DataType::kFloat32, {3, 4, 5}, 11);
    ExpectCudaMatchesCpu(ReduceInput(op, 1), {x, Axes({-1, 0})}, 1e-5, 1e-5);
    ExpectCudaMatchesCpu(ReduceInput(op, 0), {x, Axes({1})}, 1e-5, 1e-5);
    // Empty axes: everything, or (noop_with_empty_axes) a copy.
    ExpectCudaMatchesCpu(ReduceInput(op, 0), {x, Axes({})}, 1e-5, 1e-5);
    ExpectCudaMatchesCpu(ReduceInput(op, 1, 1), {x, Axes({})}, 1e-5, 1e-5);
    ExpectCudaMatchesCpu(ReduceAttr(op, {}, 1, 1), {x}, 1e-5, 1e-5);
    // noop_with_empty_axes does not matter when axes are given.
    ExpectCudaMatchesCpu(ReduceInput(op, 1, 1), {x, Axes({2})}, 1e-5, 1e-5);
    // A scalar input.
    ExpectCudaMatchesCpu(ReduceAttr(op, {}, 1), {RandomTensor(DataType::kFloat32, {}, 12)}, 1e-5, 1e-5);
  }
}

TEST(CudaReduceTest, ZeroSizeDims) {
  LOOM_SKIP_WITHOUT_GPU();
  for (const char* op : kReduceOps) {
    SCOPED_TRACE(op);
    // Reducing the empty dim: the identity (0, NaN, -inf, +inf) per output.
    ExpectCudaMatchesCpu(ReduceAttr(op, {1}, 1), {RandomTensor(DataType::kFloat32, {2, 0, 3}, 1)});
    ExpectCudaMatchesCpu(ReduceAttr(op, {}, 0), {RandomTensor(DataType::kFloat32, {0, 3}, 1)});
    ExpectCudaMatchesCpu(ReduceAttr(op, {1}, 0), {RandomTensor(DataType::kInt32, {2, 0, 3}, 1)});
    // Keeping the empty dim: an empty output.
    auto r = RunOnCuda(ReduceAttr(op, {1}, 0), {RandomTensor(DataType::kFloat32, {0, 4}, 1)});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ((*r)[0].dims(), (Shape{0}));
  }
}

TEST(CudaReduceTest, OtherDtypes) {
  LOOM_SKIP_WITHOUT_GPU();
  for (const char* op : kReduceOps) {
    SCOPED_TRACE(op);
    for (DataType dt : {DataType::kFloat16, DataType::kBFloat16}) {
      const double tol = dt == DataType::kFloat16 ? 5e-3 : 2e-2;
      ExpectCudaMatchesCpu(ReduceAttr(op, {1}, 1), {RandomTensor(dt, {4, 50, 6}, 1)}, tol, tol);
      ExpectCudaMatchesCpu(ReduceAttr(op, {-1}, 0), {RandomTensor(dt, {8, 500}, 2)}, tol, tol);
      ExpectCudaMatchesCpu(ReduceAttr(op, {}, 0), {RandomTensor(dt, {3, 7, 5}, 3)}, tol, tol);
    }
    for (DataType dt : {DataType::kInt32, DataType::kInt64}) {
      ExpectCudaMatchesCpu(ReduceAttr(op, {1}, 1), {RandomTensor(dt, {4, 50, 6}, 4, -100, 100)}, 0, 0);
      ExpectCudaMatchesCpu(ReduceAttr(op, {0, 2}, 0), {RandomTensor(dt, {40, 5, 30}, 5, -100, 100)}, 0, 0);
      ExpectCudaMatchesCpu(ReduceAttr(op, {}, 0), {RandomTensor(dt, {3, 7, 5}, 6, -100, 100)}, 0, 0);
    }
  }
}

TEST(CudaReduceTest, BadAxesAreErrors) {
  LOOM_SKIP_WITHOUT_GPU();
  const Tensor x = RandomTensor(DataType::kFloat32, {2, 3}, 1);
  for (const char* op : kReduceOps) {
    EXPECT_FALSE(RunOnCuda(ReduceAttr(op, {2}, 1), {x}).ok()) << op;
    EXPECT_FALSE(RunOnCuda(ReduceAttr(op, {-3}, 1), {x}).ok()) << op;
    EXPECT_FALSE(RunOnCuda(ReduceAttr(op, {1, -1}, 1), {x}).ok()) << op;
    EXPECT_FALSE(RunOnCuda(ReduceInput(op, 1), {x, Axes({5})}).ok()) << op;
  }
}

}  // namespace
}  // namespace loom
