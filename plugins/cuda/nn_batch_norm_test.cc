// CUDA BatchNormalization (inference) against the CPU kernel on random
// inputs; float16/bfloat16 runs are compared with the CPU kernel on the same
// values widened to float32.
#include <string>
#include <vector>

#include "core/net.h"
#include "core/workspace.h"
#include "plugins/cuda/cuda_test_util.h"

namespace loom {
namespace testing {
namespace {

// ---------------------------------------------------------------------------
// BatchNormalization

TEST(CudaBatchNormTest, MatchesCpu) {
  LOOM_SKIP_WITHOUT_GPU();
  uint32_t seed = 700;
  for (const Shape& s : std::vector<Shape>{{2, 3, 5, 6}, {4, 7}, {2, 3, 10}, {1, 2, 3, 4, 5}, {0, 3, 4}}) {
    SCOPED_TRACE(ShapeToString(s));
    const int64_t C = s[1];
    const OperatorDef def = ParseOp(
        "type: 'BatchNormalization' input: 'x' input: 's' input: 'b' input: 'm' input: 'v' output: 'y' "
        "arg { name: 'epsilon' f: 0.001 }");
    for (DataType dt : {kF32, kF16, kBF16}) {
      std::vector<Tensor> in = {RandomTensor(dt, s, seed++, -3, 3), RandomTensor(dt, {C}, seed++, 0.5, 2),
                                RandomTensor(dt, {C}, seed++), RandomTensor(dt, {C}, seed++),
                                RandomTensor(dt, {C}, seed++, 0.1, 2)};
      if (dt == kF32) {
        ExpectCudaMatchesCpu(def, in, 1e-5, 1e-5);
      } else {
        ExpectLowPrecisionMatchesCpu(def, in, 2e-2, 2e-2);
      }
    }
  }
}

TEST(CudaBatchNormTest, BadShapesAreErrors) {
  LOOM_SKIP_WITHOUT_GPU();
  const OperatorDef def =
      ParseOp("type: 'BatchNormalization' input: 'x' input: 's' input: 'b' input: 'm' input: 'v' output: 'y'");
  EXPECT_FALSE(testing::RunOnCuda(def, {RandomTensor(kF32, {2, 3, 4}, 1), RandomTensor(kF32, {4}, 2),
                                        RandomTensor(kF32, {3}, 3), RandomTensor(kF32, {3}, 4),
                                        RandomTensor(kF32, {3}, 5, 0.1, 1)})
                   .ok());
}

}  // namespace
}  // namespace testing
}  // namespace loom
