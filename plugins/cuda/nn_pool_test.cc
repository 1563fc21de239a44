// CUDA pools (MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool)
// against the CPU kernels on random inputs; float16/bfloat16 runs are
// compared with the CPU kernel on the same values widened to float32.
#include <string>
#include <vector>

#include "core/net.h"
#include "core/workspace.h"
#include "plugins/cuda/cuda_test_util.h"

namespace loom {
namespace testing {
namespace {

// ---------------------------------------------------------------------------
// MaxPool / AveragePool

struct PoolCase {
  std::string name;
  Shape x;
  std::vector<int64_t> kernel, strides, pads, dilations;  // empty: absent
  std::string auto_pad;                                   // empty: absent
  int64_t ceil_mode = 0;
};

OperatorDef PoolOp(const PoolCase& c, bool max, int64_t extra_flag, bool indices) {
  std::string text = std::string("type: '") + (max ? "MaxPool" : "AveragePool") + "' input: 'x' output: 'y'" +
                     (indices ? " output: 'i'" : "") + IntsArg("kernel_shape", c.kernel) +
                     IntsArg("strides", c.strides) + IntsArg("pads", c.pads) + IntsArg("dilations", c.dilations) +
                     IntArg("ceil_mode", c.ceil_mode) +
                     IntArg(max ? "storage_order" : "count_include_pad", extra_flag);
  if (!c.auto_pad.empty()) text += StrArg("auto_pad", c.auto_pad);
  return ParseOp(text);
}

std::vector<PoolCase> PoolCases() {
  return {
      {"k2s2", {2, 3, 8, 8}, {2, 2}, {2, 2}},
      {"k3s2_pads", {2, 3, 9, 8}, {3, 3}, {2, 2}, {1, 1, 1, 1}},
      {"asymmetric_pads", {1, 2, 7, 6}, {3, 2}, {1, 2}, {0, 1, 2, 0}},
      {"ceil_mode", {1, 2, 8, 7}, {3, 3}, {2, 2}, {}, {}, "", 1},
      {"ceil_mode_pads", {1, 2, 7, 7}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {}, "", 1},
      {"dilations", {1, 2, 9, 10}, {2, 3}, {1, 2}, {1, 0, 1, 2}, {2, 2}},
      {"same_upper", {1, 2, 7, 6}, {3, 3}, {2, 2}, {}, {}, "SAME_UPPER"},
      {"same_lower", {1, 2, 7, 6}, {2, 3}, {2, 1}, {}, {}, "SAME_LOWER"},
      {"valid", {1, 2, 7, 6}, {3, 3}, {2, 2}, {5, 5, 5, 5}, {}, "VALID"},
      {"pool1d", {2, 3, 11}, {3}, {2}, {1, 1}, {}, "", 1},
      {"pool3d", {1, 2, 5, 6, 7}, {2, 3, 2}, {2, 2, 1}, {1, 1, 0, 0, 1, 1}},
  };
}

TEST(CudaPoolTest, MaxPoolMatchesCpu) {
  LOOM_SKIP_WITHOUT_GPU();
  uint32_t seed = 400;
  for (const PoolCase& c : PoolCases()) {
    SCOPED_TRACE(c.name);
    const Tensor x = RandomTensor(kF32, c.x, seed++);
    ExpectCudaMatchesCpu(PoolOp(c, true, 0, false), {x});
    ExpectCudaMatchesCpu(PoolOp(c, true, 0, true), {x});  // with Indices, row-major
    ExpectCudaMatchesCpu(PoolOp(c, true, 1, true), {x});  // column-major
    ExpectCudaMatchesCpu(PoolOp(c, true, 0, true), {RandomTensor(DataType::kInt8, c.x, seed++, -100, 100)});
    ExpectCudaMatchesCpu(PoolOp(c, true, 0, false), {RandomTensor(DataType::kUInt8, c.x, seed++, 0, 250)});
    ExpectLowPrecisionMatchesCpu(PoolOp(c, true, 0, false), {RandomTensor(kF16, c.x, seed++)}, 0, 0);
    ExpectLowPrecisionMatchesCpu(PoolOp(c, true, 0, false), {RandomTensor(kBF16, c.x, seed++)}, 0, 0);
  }
}

TEST(CudaPoolTest, AveragePoolMatchesCpu) {
  LOOM_SKIP_WITHOUT_GPU();
  uint32_t seed = 500;
  for (const PoolCase& c : PoolCases()) {
    SCOPED_TRACE(c.name);
    const Tensor x = RandomTensor(kF32, c.x, seed++);
    ExpectCudaMatchesCpu(PoolOp(c, false, 0, false), {x}, 1e-5, 1e-6);
    ExpectCudaMatchesCpu(PoolOp(c, false, 1, false), {x}, 1e-5, 1e-6);
    ExpectLowPrecisionMatchesCpu(PoolOp(c, false, 1, false), {RandomTensor(kF16, c.x, seed++)}, 1e-2, 1e-2);
    ExpectLowPrecisionMatchesCpu(PoolOp(c, false, 0, false), {RandomTensor(kBF16, c.x, seed++)}, 2e-2, 2e-2);
  }
}

TEST(CudaPoolTest, BadAttributesAreErrors) {
  LOOM_SKIP_WITHOUT_GPU();
  PoolCase c{"bad", {1, 2, 5, 5}, {3, 3}, {}, {1, 1}};  // pads need 4 values
  EXPECT_FALSE(testing::RunOnCuda(PoolOp(c, true, 0, false), {RandomTensor(kF32, c.x, 1)}).ok());
  c = {"bad_window", {1, 2, 2, 2}, {3, 3}};  // input smaller than the window
  EXPECT_FALSE(testing::RunOnCuda(PoolOp(c, false, 0, false), {RandomTensor(kF32, c.x, 1)}).ok());
}

// ---------------------------------------------------------------------------
// Global pools

TEST(CudaPoolTest, GlobalPoolsMatchCpu) {
  LOOM_SKIP_WITHOUT_GPU();
  uint32_t seed = 600;
  for (const char* op : {"GlobalAveragePool", "GlobalMaxPool"}) {
    const OperatorDef def = ParseOp(std::string("type: '") + op + "' input: 'x' output: 'y'");
    for (const Shape& s : std::vector<Shape>{{2, 3, 7, 9}, {2, 5, 1000}, {1, 2, 3, 4, 5}, {3, 4}, {2, 3, 33, 33}}) {
      SCOPED_TRACE(std::string(op) + " " + ShapeToString(s));
      ExpectCudaMatchesCpu(def, {RandomTensor(kF32, s, seed++)}, 1e-5, 1e-6);
      ExpectLowPrecisionMatchesCpu(def, {RandomTensor(kF16, s, seed++)}, 1e-2, 1e-2);
      ExpectLowPrecisionMatchesCpu(def, {RandomTensor(kBF16, s, seed++)}, 2e-2, 2e-2);
    }
  }
  EXPECT_FALSE(testing::RunOnCuda(ParseOp("type: 'GlobalMaxPool' input: 'x' output: 'y'"),
                                  {RandomTensor(kF32, {5}, 1)})
                   .ok());
}

// Runs without a GPU: every case above is valid for the CPU reference (so a
// failure on a GPU machine is the CUDA kernel's, not the case's).
TEST(CudaPoolCasesTest, CpuReferenceAcceptsEveryCase) {
  auto run = [](const OperatorDef& op, const std::vector<Tensor>& in) {
    auto r = testing::RunSingleOp(op, in, testing::CudaRegistry());
    EXPECT_TRUE(r.ok()) << op.DebugString() << r.status();
  };
  for (const PoolCase& c : PoolCases()) {
    run(PoolOp(c, true, 1, true), {RandomTensor(kF32, c.x, 1)});
    run(PoolOp(c, true, 0, true), {RandomTensor(DataType::kInt8, c.x, 1, -100, 100)});
    run(PoolOp(c, true, 0, false), {RandomTensor(DataType::kUInt8, c.x, 1, 0, 250)});
    run(PoolOp(c, false, 1, false), {RandomTensor(kF32, c.x, 1)});
  }
}

}  // namespace
}  // namespace testing
}  // namespace loom
