#include "plugins/cuda/cuda_test_util.h"

#include <cuda_runtime.h>

#include "core/plugin_loader.h"

namespace loom {
namespace testing {

Registry* CudaRegistry() {
  static Registry* r = [] {
    Registry* reg = CpuRegistry();
    absl::Status s = LoadPlugin(reg, "plugins/cuda/libloom_cuda.so");
    EXPECT_TRUE(s.ok()) << s;
    return reg;
  }();
  return r;
}

bool GpuAvailable(std::string* why) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    *why = std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
    return false;
  }
  if (n == 0) {
    *why = "cudaGetDeviceCount found 0 devices";
    return false;
  }
  return true;
}

absl::StatusOr<std::vector<Tensor>> RunOnCuda(OperatorDef op, const std::vector<Tensor>& inputs) {
  op.mutable_device_option()->set_device_type("CUDA");
  op.mutable_device_option()->set_device_id(0);
  return RunSingleOp(op, inputs, CudaRegistry());
}

void ExpectCudaMatchesCpu(const OperatorDef& op, const std::vector<Tensor>& inputs, double rtol, double atol) {
  auto cpu = RunSingleOp(op, inputs, CudaRegistry());
  ASSERT_TRUE(cpu.ok()) << "CPU: " << cpu.status();
  auto gpu = RunOnCuda(op, inputs);
  ASSERT_TRUE(gpu.ok()) << "CUDA: " << gpu.status();
  ASSERT_EQ(cpu->size(), gpu->size());
  for (size_t i = 0; i < cpu->size(); ++i) {
    if ((*cpu)[i].num_elements() == 0 && (*gpu)[i].num_elements() == 0) continue;
    EXPECT_TRUE(AllClose((*gpu)[i], (*cpu)[i], rtol, atol)) << op.type() << " output " << i;
  }
}

}  // namespace testing
}  // namespace loom
