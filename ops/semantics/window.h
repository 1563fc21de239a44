// ONNX sliding-window geometry shared by the schemas and every device's
// kernels: Conv / pooling windows (kernel_shape, strides, dilations, pads,
// auto_pad, ceil_mode; Conv-11, MaxPool-12, AveragePool-19, LpPool-18) and
// ConvTranspose-11's output size and padding (output_padding,
// output_shape). Device-independent: the oneDNN / cuDNN specifics (padding
// conventions, int sizes) stay in the plugins.
#ifndef LOOM_OPS_SEMANTICS_WINDOW_H_
#define LOOM_OPS_SEMANTICS_WINDOW_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "ops/semantics/common.h"

namespace loom {
namespace semantics {

// The window over the spatial dims of one input shape.
struct Window {
  std::vector<int64_t> kernel, strides, dilations;  // ONNX values (dilation 1 = dense)
  std::vector<int64_t> pads_begin, pads_end;        // ONNX padding (auto_pad resolved)
  std::vector<int64_t> out;                         // output spatial sizes

  // The output's full shape: [n, c, out...] (pooling: X's N and C; Conv:
  // N and W's M).
  std::vector<int64_t> OutputShape(int64_t n, int64_t c) const {
    std::vector<int64_t> ys = {n, c};
    ys.insert(ys.end(), out.begin(), out.end());
    return ys;
  }
};

inline bool IsSameAutoPad(const std::string& auto_pad) { return auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER"; }

// INVALID_ARGUMENT, naming `label`, unless auto_pad is one of ONNX's values.
inline sdk::Status CheckAutoPad(const std::string& label, const std::string& auto_pad) {
  if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" && auto_pad != "VALID") {
    return sdk::InvalidArgument(label + ": auto_pad must be NOTSET, SAME_UPPER, SAME_LOWER or VALID; found '" +
                                auto_pad + "'");
  }
  return sdk::Status::Ok();
}

// The ONNX window attributes of one operator (Conv, MaxPool, AveragePool,
// LpPool).
struct WindowAttrs {
  std::string auto_pad = "NOTSET";
  std::vector<int64_t> kernel, strides, dilations, pads;  // empty: not given
  bool ceil_mode = false;

  // Reads auto_pad, kernel_shape, strides, dilations, pads and ceil_mode
  // (those absent keep their defaults). INVALID_ARGUMENT, naming `label`,
  // for an unknown auto_pad, a non-positive kernel/stride/dilation or a
  // negative pad.
  sdk::Status Read(const sdk::KernelInfo& info, const std::string& label) {
    auto_pad = info.StringOr("auto_pad", "NOTSET");
    kernel = info.IntsOr("kernel_shape", {});
    strides = info.IntsOr("strides", {});
    dilations = info.IntsOr("dilations", {});
    pads = info.IntsOr("pads", {});
    ceil_mode = info.IntOr("ceil_mode", 0) != 0;
    LOOM_SDK_RETURN_IF_ERROR(CheckAutoPad(label, auto_pad));
    auto check = [&](const char* name, const std::vector<int64_t>& v, int64_t min) {
      for (int64_t x : v) {
        if (x < min) {
          return sdk::InvalidArgument(label + ": " + name + " values must be >= " + std::to_string(min) +
                                      "; found " + ShapeStr(v));
        }
      }
      return sdk::Status::Ok();
    };
    LOOM_SDK_RETURN_IF_ERROR(check("kernel_shape", kernel, 1));
    LOOM_SDK_RETURN_IF_ERROR(check("strides", strides, 1));
    LOOM_SDK_RETURN_IF_ERROR(check("dilations", dilations, 1));
    return check("pads", pads, 0);
  }

  // Resolves the window for spatial input sizes `in` and kernel `k` (from
  // kernel_shape or from Conv's W): SAME_* gives output ceil(in / stride)
  // with the odd padding element at the end (SAME_UPPER) or the beginning
  // (SAME_LOWER); otherwise floor (or, with ceil_mode, ceil) of
  // (in + pads - effective kernel) / stride + 1, where in ceil_mode the last
  // window must start inside the input or its begin padding (ONNX
  // reference, as PyTorch). INVALID_ARGUMENT when ranks disagree or the
  // padded input is smaller than the window.
  sdk::Status Resolve(const std::string& label, const std::vector<int64_t>& in, const std::vector<int64_t>& k,
                      Window* w) const {
    const size_t n = in.size();
    auto rank_error = [&](const char* what, size_t found) {
      return sdk::InvalidArgument(label + ": " + what + " has " + std::to_string(found) + " values; the input has " +
                                  std::to_string(n) + " spatial dims" +
                                  (std::string(what) == "pads" ? " (2 per dim)" : ""));
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
    w->out.assign(n, 0);
    for (size_t i = 0; i < n; ++i) {
      const int64_t ek = EffectiveKernel(*w, i), s = w->strides[i];
      int64_t& pb = w->pads_begin[i];
      int64_t& pe = w->pads_end[i];
      int64_t& out = w->out[i];
      if (IsSameAutoPad(auto_pad)) {
        out = (in[i] + s - 1) / s;
        const int64_t total = std::max<int64_t>(0, (out - 1) * s + ek - in[i]);
        pb = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
        pe = total - pb;
      } else {
        if (auto_pad == "NOTSET" && !pads.empty()) {
          pb = pads[i];
          pe = pads[n + i];
        }
        const int64_t span = in[i] + pb + pe - ek;
        if (span < 0) {
          return sdk::InvalidArgument(label + ": spatial dim " + std::to_string(i) + " of size " +
                                      std::to_string(in[i]) + " (padded by " + std::to_string(pb) + " and " +
                                      std::to_string(pe) + ") is smaller than the window " + std::to_string(ek));
        }
        out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
        if (ceil_mode && (out - 1) * s >= in[i] + pb) --out;
      }
    }
    return sdk::Status::Ok();
  }

  // Shape inference (lenient): Y [N, c, D'...] for X of shape `xs` [N, C,
  // D...] (rank >= 3) and kernel `k`, by Resolve. False (shape left
  // unknown) when a spatial size is unknown (< 0), a kernel dim is below 1
  // or Resolve fails.
  bool InferOutputShape(const std::vector<int64_t>& xs, int64_t c, const std::vector<int64_t>& k,
                        std::vector<int64_t>* ys) const {
    const std::vector<int64_t> in(xs.begin() + 2, xs.end());
    for (int64_t d : in) {
      if (d < 0) return false;
    }
    for (int64_t d : k) {
      if (d < 1) return false;
    }
    Window w;
    if (!Resolve("", in, k, &w).ok()) return false;
    *ys = w.OutputShape(xs[0], c);
    return true;
  }

  // (k - 1) * dilation + 1: the extent of the window along spatial dim i.
  static int64_t EffectiveKernel(const Window& w, size_t i) { return (w.kernel[i] - 1) * w.dilations[i] + 1; }
};

// The spatial values `v` (1 to 3 of them) padded in front with `fill` to
// three (D, H, W), so loops over 1-D..3-D windows can be written once.
inline std::vector<int64_t> To3(const std::vector<int64_t>& v, int64_t fill) {
  std::vector<int64_t> r(3 - v.size(), fill);
  r.insert(r.end(), v.begin(), v.end());
  return r;
}

// MaxPool-12's Indices: per (D, H, W) dim (padded to three as To3), the
// stride of the spatial position in the flat index into X's plane; the
// spatial dims `in` (1 to 3) counted row-major (storage_order 0) or
// column-major (storage_order 1); padded dims get 0.
inline std::vector<int64_t> PoolIndexStrides3(const std::vector<int64_t>& in, bool col_major) {
  const size_t n = in.size();
  const std::vector<int64_t> in3 = To3(in, 1);
  std::vector<int64_t> istride(3, 0);
  int64_t acc = 1;
  for (size_t i = 0; i < n; ++i) {
    const size_t dim = col_major ? 3 - n + i : 2 - i;  // innermost first for row-major
    istride[dim] = acc;
    acc *= in3[dim];
  }
  return istride;
}

// GlobalAveragePool-1 / GlobalMaxPool-1 / GlobalLpPool-2: X [N, C, D...]
// (rank >= 2) gives *ys = [N, C, 1...]. INVALID_ARGUMENT, naming `label`,
// for a lower rank.
inline sdk::Status GlobalPoolShape(const std::string& label, const std::vector<int64_t>& xs,
                                   std::vector<int64_t>* ys) {
  if (xs.size() < 2) return sdk::InvalidArgument(label + ": input X must be [N, C, D...]; found " + ShapeStr(xs));
  ys->assign(xs.size(), 1);
  (*ys)[0] = xs[0];
  (*ys)[1] = xs[1];
  return sdk::Status::Ok();
}

// The ranks Conv and ConvTranspose share: X [N, C, D1..Dn] with n = 1..3,
// W of X's rank. INVALID_ARGUMENT otherwise.
inline sdk::Status CheckConvRanks(const std::string& label, const std::vector<int64_t>& xs,
                                  const std::vector<int64_t>& ws) {
  if (xs.size() < 3 || xs.size() > 5) {
    return sdk::InvalidArgument(label + ": input X must be [N, C, D...] with 1 to 3 spatial dims; found " +
                                ShapeStr(xs));
  }
  if (ws.size() != xs.size()) {
    return sdk::InvalidArgument(label + ": input W must have X's rank " + std::to_string(xs.size()) + "; found " +
                                ShapeStr(ws));
  }
  return sdk::Status::Ok();
}

// Conv-11's operand shapes: X [N, C, D1..Dn] (n = 1..3), W [M, C / group,
// k1..kn], optional B [M], kernel_shape (`kernel`, empty if not given)
// equal to W's k. Sets *k to W's spatial dims. INVALID_ARGUMENT otherwise.
inline sdk::Status CheckConvOperands(const std::string& label, int64_t group, const std::vector<int64_t>& xs,
                                     const std::vector<int64_t>& ws, const sdk::Tensor& b,
                                     const std::vector<int64_t>& kernel, std::vector<int64_t>* k) {
  LOOM_SDK_RETURN_IF_ERROR(CheckConvRanks(label, xs, ws));
  const int64_t C = xs[1], M = ws[0], G = group;
  if (C % G != 0 || M % G != 0 || ws[1] != C / G) {
    return sdk::InvalidArgument(label + ": input W " + ShapeStr(ws) + " does not fit X " + ShapeStr(xs) +
                                " with group " + std::to_string(G) + ": expected W[1] = C / group = " +
                                std::to_string(C / G) + " and C, W[0] divisible by group");
  }
  if (b.present() && (b.rank() != 1 || b.dim(0) != M)) {
    return sdk::InvalidArgument(label + ": input B must be [" + std::to_string(M) + "]; found " + ShapeStr(b.shape()));
  }
  k->assign(ws.begin() + 2, ws.end());
  if (!kernel.empty() && kernel != *k) {
    return sdk::InvalidArgument(label + ": kernel_shape " + ShapeStr(kernel) + " differs from W's " + ShapeStr(*k));
  }
  for (int64_t d : *k) {
    if (d < 1) return sdk::InvalidArgument(label + ": W's kernel dims must be >= 1; found " + ShapeStr(ws));
  }
  return sdk::Status::Ok();
}

// ConvTranspose-11's operand shapes: X [N, C, D1..Dn] (n = 1..3), W [C,
// M / group, k1..kn], optional B [M] with M = W[1] * group.
// INVALID_ARGUMENT otherwise.
inline sdk::Status CheckConvTransposeOperands(const std::string& label, int64_t group, const std::vector<int64_t>& xs,
                                              const std::vector<int64_t>& ws, const sdk::Tensor& b) {
  LOOM_SDK_RETURN_IF_ERROR(CheckConvRanks(label, xs, ws));
  const int64_t C = xs[1], G = group, M = ws[1] * G;
  if (C % G != 0 || ws[0] != C) {
    return sdk::InvalidArgument(label + ": input W " + ShapeStr(ws) + " does not fit X " + ShapeStr(xs) +
                                " with group " + std::to_string(G) + ": expected W[0] = C = " + std::to_string(C) +
                                " and C divisible by group");
  }
  if (b.present() && (b.rank() != 1 || b.dim(0) != M)) {
    return sdk::InvalidArgument(label + ": input B must be [" + std::to_string(M) + "]; found " + ShapeStr(b.shape()));
  }
  return sdk::Status::Ok();
}

// ConvTranspose-11's geometry along each spatial axis.
struct ConvTransposeGeometry {
  std::vector<int64_t> strides, dilations;
  // The full (untrimmed) transposed result: stride * (in - 1) +
  // (k - 1) * dilation + 1.
  std::vector<int64_t> full;
  std::vector<int64_t> out;  // Y's spatial sizes
  // The padding that trims full to Y: Y[j] = full[j + pads_begin] and
  // pads_end = full - pads_begin - out. Negative where Y extends past full
  // (output_padding, or an output_shape larger than the natural size).
  std::vector<int64_t> pads_begin, pads_end;

  // Y's full shape: [n, m, out...] (X's N, the output channels M).
  std::vector<int64_t> OutputShape(int64_t n, int64_t m) const {
    std::vector<int64_t> ys = {n, m};
    ys.insert(ys.end(), out.begin(), out.end());
    return ys;
  }
};

// ConvTranspose-11's attributes (auto_pad, kernel_shape, pads, strides,
// dilations, output_padding, output_shape; empty: not given).
struct ConvTransposeAttrs {
  std::string auto_pad = "NOTSET";
  std::vector<int64_t> kernel, pads, strides, dilations, output_padding, output_shape;

  // Reads the attributes; INVALID_ARGUMENT, naming `label`, for an unknown
  // auto_pad.
  sdk::Status Read(const sdk::KernelInfo& info, const std::string& label) {
    auto_pad = info.StringOr("auto_pad", "NOTSET");
    LOOM_SDK_RETURN_IF_ERROR(CheckAutoPad(label, auto_pad));
    kernel = info.IntsOr("kernel_shape", {});
    pads = info.IntsOr("pads", {});
    strides = info.IntsOr("strides", {});
    dilations = info.IntsOr("dilations", {});
    output_padding = info.IntsOr("output_padding", {});
    output_shape = info.IntsOr("output_shape", {});
    return sdk::Status::Ok();
  }

  // Y's channels M = W[1] * group for W of shape `ws` [C, M / group, k...].
  static int64_t OutputChannels(const std::vector<int64_t>& ws, int64_t group) { return ws[1] * group; }

  // Whether output_shape fits `n` spatial dims (n or n + 2 values, the
  // spatial ones last); empty counts as not given, and fits.
  bool OutputShapeFits(size_t n) const {
    return output_shape.empty() || output_shape.size() == n || output_shape.size() == n + 2;
  }
  // Output_shape's size for spatial axis i of n (output_shape given and
  // fitting).
  int64_t GivenOutputSize(size_t n, size_t i) const { return output_shape[output_shape.size() - n + i]; }

  // Shape inference (lenient): Y [N, M, D'...] for X `xs` and W `ws` (equal
  // ranks >= 3) with `group` groups: D' = output_shape when given (its last n
  // values, whatever the other attributes say), else Resolve's sizes, which
  // need every spatial size known. False (shape left unknown) when the
  // output_shape does not fit, a size is unknown or Resolve fails.
  bool InferOutputShape(const std::vector<int64_t>& xs, const std::vector<int64_t>& ws, int64_t group,
                        std::vector<int64_t>* ys) const {
    const size_t n = xs.size() - 2;
    const int64_t m = OutputChannels(ws, group);
    if (!output_shape.empty()) {
      if (!OutputShapeFits(n)) return false;
      *ys = {xs[0], m};
      for (size_t i = 0; i < n; ++i) ys->push_back(GivenOutputSize(n, i));
      return true;
    }
    for (size_t i = 2; i < xs.size(); ++i) {
      if (xs[i] < 0 || ws[i] < 1) return false;
    }
    ConvTransposeGeometry g;
    if (!Resolve("", xs, ws, &g).ok()) return false;
    *ys = g.OutputShape(xs[0], m);
    return true;
  }

  // Y's spatial sizes and padding for X's shape `xs` and W's `ws` (checked
  // by CheckConvTransposeOperands): output_shape (its last n values) or, with
  // SAME_*, in * stride, the padding total = natural - out split with
  // Python's floor division (the extra element at the end for SAME_UPPER);
  // VALID: no padding; NOTSET: pads. natural = full + output_padding. An
  // empty input axis gives an empty output unless output_shape says
  // otherwise. INVALID_ARGUMENT for kernel_shape differing from W, attribute
  // lengths, non-positive strides/dilations/kernel dims, negative
  // output_padding, a negative output size.
  sdk::Status Resolve(const std::string& label, const std::vector<int64_t>& xs, const std::vector<int64_t>& ws,
                      ConvTransposeGeometry* g) const {
    const size_t n = xs.size() - 2;
    const std::vector<int64_t> in(xs.begin() + 2, xs.end()), k(ws.begin() + 2, ws.end());
    if (!kernel.empty() && kernel != k) {
      return sdk::InvalidArgument(label + ": kernel_shape " + ShapeStr(kernel) + " differs from W's " + ShapeStr(k));
    }
    auto check_len = [&](const std::vector<int64_t>& v, size_t len, const char* name) -> sdk::Status {
      if (!v.empty() && v.size() != len) {
        return sdk::InvalidArgument(label + ": attribute " + name + " must have " + std::to_string(len) +
                                    " values; found " + ShapeStr(v));
      }
      return sdk::Status::Ok();
    };
    LOOM_SDK_RETURN_IF_ERROR(check_len(strides, n, "strides"));
    LOOM_SDK_RETURN_IF_ERROR(check_len(dilations, n, "dilations"));
    LOOM_SDK_RETURN_IF_ERROR(check_len(pads, 2 * n, "pads"));
    LOOM_SDK_RETURN_IF_ERROR(check_len(output_padding, n, "output_padding"));
    if (!OutputShapeFits(n)) {
      return sdk::InvalidArgument(label + ": attribute output_shape must have " + std::to_string(n) +
                                  " values; found " + ShapeStr(output_shape));
    }
    g->strides.assign(n, 1);
    g->dilations.assign(n, 1);
    g->full.assign(n, 0);
    g->out.assign(n, 0);
    g->pads_begin.assign(n, 0);
    g->pads_end.assign(n, 0);
    for (size_t i = 0; i < n; ++i) {
      int64_t &s = g->strides[i], &dil = g->dilations[i], &out = g->out[i];
      int64_t &pb = g->pads_begin[i], &pe = g->pads_end[i];
      s = strides.empty() ? 1 : strides[i];
      dil = dilations.empty() ? 1 : dilations[i];
      const int64_t op = output_padding.empty() ? 0 : output_padding[i];
      if (s < 1 || dil < 1 || k[i] < 1 || op < 0) {
        return sdk::InvalidArgument(label + ": strides, dilations and W's kernel dims must be >= 1 and output_padding "
                                    ">= 0; found strides " + ShapeStr(strides) + ", dilations " + ShapeStr(dilations) +
                                    ", W " + ShapeStr(ws) + ", output_padding " + ShapeStr(output_padding));
      }
      g->full[i] = s * (in[i] - 1) + (k[i] - 1) * dil + 1;
      const int64_t natural = g->full[i] + op;
      if (!output_shape.empty() || IsSameAutoPad(auto_pad)) {
        out = !output_shape.empty() ? GivenOutputSize(n, i) : in[i] * s;
        const int64_t total = natural - out;
        // ONNX's total / 2 is Python's floor division (total < 0 when
        // output_shape exceeds the natural size: the extra outputs go last).
        const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
        pb = auto_pad == "SAME_UPPER" ? half : total - half;
      } else if (auto_pad == "VALID") {
        out = natural;
        pb = 0;
      } else {
        pb = pads.empty() ? 0 : pads[i];
        pe = pads.empty() ? 0 : pads[n + i];
        out = natural - pb - pe;
      }
      if (in[i] == 0) out = output_shape.empty() ? 0 : out;
      if (out < 0) {
        return sdk::InvalidArgument(label + ": the output size " + std::to_string(out) + " of spatial axis " +
                                    std::to_string(i) + " is negative (input " + ShapeStr(xs) + ", W " + ShapeStr(ws) +
                                    ", pads " + ShapeStr(pads) + ")");
      }
      pe = g->full[i] - pb - out;
    }
    return sdk::Status::Ok();
  }
};

}  // namespace semantics
}  // namespace loom

#endif  // LOOM_OPS_SEMANTICS_WINDOW_H_
