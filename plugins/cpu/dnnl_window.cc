#include "plugins/cpu/dnnl_window.h"

namespace loom {
namespace cpu {

dnnl::memory::dims Window::DnnlDilations() const {
  dnnl::memory::dims d;
  for (int64_t x : dilations) d.push_back(x - 1);
  return d;
}

Status WindowAttrs::Resolve(const std::string& label, const std::vector<int64_t>& in, const std::vector<int64_t>& k,
                            Window* w) const {
  LOOM_SDK_RETURN_IF_ERROR(semantics::WindowAttrs::Resolve(label, in, k, w));
  const size_t n = in.size();
  w->dnnl_pads_end = w->pads_end;
  if (semantics::IsSameAutoPad(auto_pad) || !ceil_mode) return Status::Ok();
  // In floor mode (and with SAME_*) oneDNN's own floor division gives these
  // windows with the ONNX padding; in ceil mode the last window may
  // overhang, and oneDNN needs the end padding that ends exactly with it.
  for (size_t i = 0; i < n; ++i) {
    w->dnnl_pads_end[i] = (w->out[i] - 1) * w->strides[i] + EffectiveKernel(*w, i) - in[i] - w->pads_begin[i];
  }
  return Status::Ok();
}

}  // namespace cpu
}  // namespace loom
