// oneDNN glue shared by the CPU plugin's oneDNN kernels.
#ifndef LOOM_PLUGINS_CPU_DNNL_COMMON_H_
#define LOOM_PLUGINS_CPU_DNNL_COMMON_H_

#include <omp.h>

#include <string>
#include <vector>

#include "oneapi/dnnl/dnnl.hpp"
#include "plugins/cpu/cpu_common.h"

namespace loom {
namespace cpu {

// The plugin's CPU engine (one per process).
inline dnnl::engine& DnnlEngine() {
  static dnnl::engine* e = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *e;
}

// Runs `prim` on a stream of the calling thread with `threads` OpenMP
// threads (oneDNN is built on OpenMP here); oneDNN errors become statuses.
inline Status DnnlExecute(const std::string& label, const dnnl::primitive& prim,
                          const std::unordered_map<int, dnnl::memory>& args, int threads) {
  try {
    thread_local dnnl::stream stream(DnnlEngine());
    omp_set_num_threads(threads > 0 ? threads : 1);
    prim.execute(stream, args);
    stream.wait();
  } catch (const dnnl::error& e) {
    return sdk::Internal(label + ": oneDNN: " + e.what());
  }
  return Status::Ok();
}

inline dnnl::memory::dims Dims(const std::vector<int64_t>& v) { return dnnl::memory::dims(v.begin(), v.end()); }

// Row-major strides of `dims`.
inline dnnl::memory::dims PlainStrides(const std::vector<int64_t>& dims) {
  dnnl::memory::dims s(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * dims[i + 1];
  return s;
}

inline dnnl::memory::desc PlainDesc(const std::vector<int64_t>& dims) {
  return dnnl::memory::desc(Dims(dims), dnnl::memory::data_type::f32, PlainStrides(dims));
}

sdk::Status RegisterDnnlMatmulKernels(sdk::Registrar& reg);    // dnnl_matmul.cc: Gemm, MatMul
sdk::Status RegisterDnnlConvPoolKernels(sdk::Registrar& reg);  // dnnl_conv_pool.cc: Conv, pools, BatchNormalization
sdk::Status RegisterDnnlRnnKernels(sdk::Registrar& reg);       // dnnl_rnn.cc: ONNX LSTM, GRU, RNN (engine DNNL)

}  // namespace cpu
}  // namespace loom

#endif  // LOOM_PLUGINS_CPU_DNNL_COMMON_H_
