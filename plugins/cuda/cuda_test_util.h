// Test helpers for the CUDA plugin: a registry with the CPU and CUDA
// plugins, a GPU check that lets tests skip with the CUDA error, and running
// an operator on CUDA with host inputs and host outputs (the planner copies
// across devices, see core/plan.h) to compare it with the CPU kernel.
#ifndef LOOM_PLUGINS_CUDA_CUDA_TEST_UTIL_H_
#define LOOM_PLUGINS_CUDA_CUDA_TEST_UTIL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/proto/loom.pb.h"
#include "core/registry.h"
#include "core/tensor.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"

namespace loom {
namespace testing {

// The floating dtypes the CUDA kernels are tested with.
constexpr DataType kF32 = DataType::kFloat32;
constexpr DataType kF16 = DataType::kFloat16;
constexpr DataType kBF16 = DataType::kBFloat16;

// CpuRegistry() plus plugins/cuda/libloom_cuda.so (add
// "//plugins/cuda:libloom_cuda.so" to the test's data). Loaded once.
Registry* CudaRegistry();

// True when cudaGetDeviceCount succeeds with at least one device; otherwise
// false and *why holds the CUDA error (e.g. cudaErrorInsufficientDriver).
bool GpuAvailable(std::string* why);

// Runs `op` with device_option CUDA:0 on host `inputs`; the outputs come
// back on the host.
absl::StatusOr<std::vector<Tensor>> RunOnCuda(OperatorDef op, const std::vector<Tensor>& inputs);

// Runs `op` on CPU and on CUDA and expects every output to agree (AllClose).
void ExpectCudaMatchesCpu(const OperatorDef& op, const std::vector<Tensor>& inputs, double rtol = 1e-4,
                          double atol = 1e-5);

// `t` (any numeric dtype) converted to float32.
Tensor ToFloat32(const Tensor& t);

// Runs `op` on CUDA with `inputs` (float16 / bfloat16) and on the CPU with
// the same values as float32; expects the outputs (in the inputs' dtype) to
// agree.
void ExpectLowPrecisionMatchesCpu(const OperatorDef& op, const std::vector<Tensor>& inputs, double rtol,
                                  double atol);

// Argument text for ParseOp: a string and an int attribute.
std::string StrArg(const std::string& name, const std::string& v);
std::string IntArg(const std::string& name, int64_t v);

}  // namespace testing
}  // namespace loom

// First statement of every test that needs a GPU.
#define LOOM_SKIP_WITHOUT_GPU()                                              \
  do {                                                                       \
    std::string loom_why_;                                                   \
    if (!::loom::testing::GpuAvailable(&loom_why_)) {                        \
      GTEST_SKIP() << "no usable CUDA device (" << loom_why_ << "): skipped"; \
    }                                                                        \
  } while (0)

#endif  // LOOM_PLUGINS_CUDA_CUDA_TEST_UTIL_H_
