// Sliding-window geometry of Conv and the pooling ops: ONNX attributes
// (kernel_shape, strides, dilations, pads, auto_pad, ceil_mode) resolved for
// one input shape into output sizes and the padding oneDNN needs.
#ifndef LOOM_PLUGINS_CPU_DNNL_WINDOW_H_
#define LOOM_PLUGINS_CPU_DNNL_WINDOW_H_

#include <string>
#include <vector>

#include "oneapi/dnnl/dnnl.hpp"
#include "plugins/cpu/cpu_common.h"

namespace loom {
namespace cpu {

// The window over the spatial dims of one input shape.
struct Window {
  std::vector<int64_t> kernel, strides, dilations;  // ONNX values (dilation 1 = dense)
  std::vector<int64_t> pads_begin, pads_end;        // ONNX padding (auto_pad resolved)
  // End padding handed to oneDNN: oneDNN requires
  // (in + begin + end - effective_kernel) / stride + 1 == out exactly, so in
  // ceil mode it is larger than pads_end (the last window overhangs).
  std::vector<int64_t> dnnl_pads_end;
  std::vector<int64_t> out;  // output spatial sizes

  // oneDNN's dilation convention: 0 = dense.
  dnnl::memory::dims DnnlDilations() const;
};

// The ONNX window attributes of one operator.
struct WindowAttrs {
  std::string auto_pad = "NOTSET";
  std::vector<int64_t> kernel, strides, dilations, pads;  // empty: not given
  bool ceil_mode = false;

  // Reads auto_pad, kernel_shape, strides, dilations, pads and ceil_mode
  // (those absent keep their defaults). INVALID_ARGUMENT, naming `label`,
  // for an unknown auto_pad, a non-positive kernel/stride/dilation or a
  // negative pad.
  Status Read(const KernelInfo& info, const std::string& label);

  // Resolves the window for spatial input sizes `in` and kernel `k` (from
  // kernel_shape or from Conv's W). INVALID_ARGUMENT when ranks disagree or
  // the padded input is smaller than the window.
  Status Resolve(const std::string& label, const std::vector<int64_t>& in, const std::vector<int64_t>& k,
                 Window* w) const;
};

}  // namespace cpu
}  // namespace loom

#endif  // LOOM_PLUGINS_CPU_DNNL_WINDOW_H_
