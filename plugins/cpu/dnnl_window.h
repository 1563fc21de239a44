// Sliding-window geometry of Conv and the pooling ops for oneDNN: the ONNX
// rules (kernel_shape, strides, dilations, pads, auto_pad, ceil_mode) come
// from ops/semantics/window.h; this adds the padding and dilation
// conventions oneDNN needs.
#ifndef LOOM_PLUGINS_CPU_DNNL_WINDOW_H_
#define LOOM_PLUGINS_CPU_DNNL_WINDOW_H_

#include <string>
#include <vector>

#include "oneapi/dnnl/dnnl.hpp"
#include "ops/semantics/window.h"
#include "plugins/cpu/cpu_common.h"

namespace loom {
namespace cpu {

// The window over the spatial dims of one input shape.
struct Window : semantics::Window {
  // End padding handed to oneDNN: oneDNN requires
  // (in + begin + end - effective_kernel) / stride + 1 == out exactly, so in
  // ceil mode it is larger than pads_end (the last window overhangs).
  std::vector<int64_t> dnnl_pads_end;

  // oneDNN's dilation convention: 0 = dense.
  dnnl::memory::dims DnnlDilations() const;
};

// The ONNX window attributes of one operator (semantics::WindowAttrs:
// Read, and Resolve with the oneDNN end padding added).
struct WindowAttrs : semantics::WindowAttrs {
  // Resolves the window for spatial input sizes `in` and kernel `k` (from
  // kernel_shape or from Conv's W). INVALID_ARGUMENT when ranks disagree or
  // the padded input is smaller than the window.
  Status Resolve(const std::string& label, const std::vector<int64_t>& in, const std::vector<int64_t>& k,
                 Window* w) const;
};

}  // namespace cpu
}  // namespace loom

#endif  // LOOM_PLUGINS_CPU_DNNL_WINDOW_H_
