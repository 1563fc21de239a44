// Small host-side helpers shared by the CUDA plugin's kernel files: the SDK
// types, the op label errors name, a dtype error, and the op's stream as a cudaStream_t.
#ifndef LOOM_PLUGINS_CUDA_KERNEL_UTIL_H_
#define LOOM_PLUGINS_CUDA_KERNEL_UTIL_H_

#include <cuda_runtime.h>

#include <string>

#include "core/api/loom_sdk.h"
#include "ops/semantics/common.h"

namespace loom {
namespace cuda {

using sdk::KernelContext;
using sdk::KernelInfo;
using sdk::Status;
using sdk::Tensor;

// "Conv 'conv1'" (how errors name an operator) and "[2, 3]" (a shape).
using semantics::OpLabel;
using semantics::ShapeStr;

// INVALID_ARGUMENT: input `input` has dtype `found`; expected `expected` on CUDA.
inline sdk::Status UnsupportedDtype(const std::string& label, const char* input, LoomDataType found,
                                    const char* expected) {
  return sdk::InvalidArgument(label + ": input " + input + " has dtype " + sdk::DTypeName(found) + "; expected " +
                              expected + " on CUDA");
}

// The stream the executor gives the op (null: the device's default stream).
inline cudaStream_t StreamOf(const sdk::KernelContext& ctx) { return static_cast<cudaStream_t>(ctx.stream()); }

}  // namespace cuda
}  // namespace loom

#endif  // LOOM_PLUGINS_CUDA_KERNEL_UTIL_H_
