#include "plugins/cpu/dnnl_window.h"

namespace loom {
namespace cpu {

dnnl::memory::dims Window::DnnlDilations() const {
  dnnl::memory::dims d;
  for (int64_t x : dilations) d.push_back(x - 1);
  return d;
}

Status WindowAttrs::Read(const KernelInfo& info, const std::string& label) {
  auto_pad = info.StringOr("auto_pad", "NOTSET");
  kernel = info.IntsOr("kernel_shape", {});
  strides = info.IntsOr("strides", {});
  dilations = info.IntsOr("dilations", {});
  pads = info.IntsOr("pads", {});
  ceil_mode = info.IntOr("ceil_mode", 0) != 0;
  if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" && auto_pad != "VALID") {
    return sdk::InvalidArgument(label + ": auto_pad must be NOTSET, SAME_UPPER, SAME_LOWER or VALID; found '" + auto_pad + "'");
  }
  auto check = [&](const char* name, const std::vector<int64_t>& v, int64_t min) {
    for (int64_t x : v) {
      if (x < min) {
        return sdk::InvalidArgument(label + ": " + name + " values must be >= " + std::to_string(min) + "; found " +
                                    ShapeStr(v));
      }
    }
    return Status::Ok();
  };
  LOOM_SDK_RETURN_IF_ERROR(check("kernel_shape", kernel, 1));
  LOOM_SDK_RETURN_IF_ERROR(check("strides", strides, 1));
  LOOM_SDK_RETURN_IF_ERROR(check("dilations", dilations, 1));
  return check("pads", pads, 0);
}

Status WindowAttrs::Resolve(const std::string& label, const std::vector<int64_t>& in, const std::vector<int64_t>& k,
                            Window* w) const {
  const size_t n = in.size();
  auto rank_error = [&](const char* what, size_t found) {
    return sdk::InvalidArgument(label + ": " + what + " has " + std::to_string(found) + " values; the input has " +
                                std::to_string(n) + " spatial dims" + (std::string(what) == "pads" ? " (2 per dim)" : ""));
  };
  if (k.size() != n) return rank_error("kernel_shape", k.size());
  if (!strides.empty() && strides.size() != n) return rank_error("strides", strides.size());
  if (!dilations.empty() && dilations.size() != n) return rank_error("dilations", dilations.size());
  if (!pads.empty() && pads.size() != 2 * n) return rank_error("pads", pads.size());
  w->kernel = k;
  w->strides = strides.empty() ? std::vector<int64_t>(n, 1) : strides;
  w->dilations = dilations.empty() ? std::vector<int64_t>(n, 1) : dilations;
  w->pads_begin.assign(n, 0);
  w->pads_end.assign(n, 0);
  w->dnnl_pads_end.assign(n, 0);
  w->out.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const int64_t ek = (k[i] - 1) * w->dilations[i] + 1, s = w->strides[i];
    int64_t& pb = w->pads_begin[i];
    int64_t& pe = w->pads_end[i];
    int64_t& out = w->out[i];
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      // Output ceil(in / stride); the odd padding element goes to the end
      // (SAME_UPPER) or the beginning (SAME_LOWER).
      out = (in[i] + s - 1) / s;
      const int64_t total = std::max<int64_t>(0, (out - 1) * s + ek - in[i]);
      pb = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pe = total - pb;
      w->dnnl_pads_end[i] = pe;
    } else {
      if (auto_pad == "NOTSET" && !pads.empty()) {
        pb = pads[i];
        pe = pads[n + i];
      }
      const int64_t span = in[i] + pb + pe - ek;
      if (span < 0) {
        return sdk::InvalidArgument(label + ": spatial dim " + std::to_string(i) + " of size " + std::to_string(in[i]) +
                                    " (padded by " + std::to_string(pb) + " and " + std::to_string(pe) +
                                    ") is smaller than the window " + std::to_string(ek));
      }
      out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
      // ceil_mode (ONNX reference, as PyTorch): the last window must start
      // inside the input or the begin padding, not in the end padding.
      if (ceil_mode && (out - 1) * s >= in[i] + pb) --out;
      // In floor mode oneDNN's own floor division gives these windows with
      // the ONNX padding; in ceil mode the last window may overhang, and
      // oneDNN needs the end padding that ends exactly with it.
      w->dnnl_pads_end[i] = ceil_mode ? (out - 1) * s + ek - in[i] - pb : pe;
    }
  }
  return Status::Ok();
}

}  // namespace cpu
}  // namespace loom
