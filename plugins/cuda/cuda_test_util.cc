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

Tensor ToFloat32(const Tensor& t) {
  Tensor r = Tensor::Zeros(DataType::kFloat32, t.dims());
  for (int64_t i = 0; i < t.num_elements(); ++i) r.data<float>()[i] = static_cast<float>(t.ElementAsDouble(i));
  return r;
}

void ExpectLowPrecisionMatchesCpu(const OperatorDef& op, const std::vector<Tensor>& inputs, double rtol,
                                  double atol) {
  std::vector<Tensor> wide;
  for (const Tensor& t : inputs) wide.push_back(ToFloat32(t));
  auto cpu = RunSingleOp(op, wide, CudaRegistry());
  ASSERT_TRUE(cpu.ok()) << "CPU: " << cpu.status();
  auto gpu = RunOnCuda(op, inputs);
  ASSERT_TRUE(gpu.ok()) << "CUDA: " << gpu.status();
  ASSERT_EQ(cpu->size(), gpu->size());
  for (size_t i = 0; i < cpu->size(); ++i) {
    ASSERT_EQ((*gpu)[i].dtype(), inputs[0].dtype()) << op.type() << " output " << i;
    EXPECT_TRUE(AllClose(ToFloat32((*gpu)[i]), (*cpu)[i], rtol, atol)) << op.type() << " output " << i;
  }
}

std::string StrArg(const std::string& name, const std::string& v) {
  return " arg { name: '" + name + "' s: '" + v + "' }";
}

std::string IntArg(const std::string& name, int64_t v) {
  return " arg { name: '" + name + "' i: " + std::to_string(v) + " }";
}

}  // namespace testing
}  // namespace loom
