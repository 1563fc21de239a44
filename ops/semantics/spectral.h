// ONNX DFT-17, STFT-17 and MelWeightMatrix-17 rules shared by the schemas
// (ops/signal_spectral.cc, shape inference) and every device's kernels
// (plugins/cpu/signal_spectral.cc): the attributes checked once, the DFT and
// STFT output geometry (axis, DFT length, one-sided bins, frame count) and
// the checks of MelWeightMatrix's scalar inputs. Errors are INVALID_ARGUMENT
// naming the operator label and the attribute or input.
#ifndef LOOM_OPS_SEMANTICS_SPECTRAL_H_
#define LOOM_OPS_SEMANTICS_SPECTRAL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "ops/semantics/common.h"

namespace loom {
namespace semantics {

// The number of distinct bins of a real signal's DFT of length n (conjugate
// symmetry): floor(n / 2) + 1.
inline int64_t OneSidedBins(int64_t n) { return n / 2 + 1; }

// DFT-17's attributes: axis (default 1), inverse and onesided (0 or 1).
// onesided with inverse is refused: DFT-17 defines the one-sided output of
// a forward transform of real input only.
struct DftAttrs {
  int64_t axis = 1;
  bool inverse = false;
  bool onesided = false;

  sdk::Status Read(const sdk::KernelInfo& info, const std::string& label) {
    axis = info.IntOr("axis", 1);
    const int64_t inv = info.IntOr("inverse", 0), one = info.IntOr("onesided", 0);
    if (inv != 0 && inv != 1) {
      return sdk::InvalidArgument(label + ": attribute 'inverse' must be 0 or 1; found " + std::to_string(inv));
    }
    if (one != 0 && one != 1) {
      return sdk::InvalidArgument(label + ": attribute 'onesided' must be 0 or 1; found " + std::to_string(one));
    }
    inverse = inv == 1;
    onesided = one == 1;
    if (inverse && onesided) {
      return sdk::InvalidArgument(label + ": attributes 'onesided' = 1 and 'inverse' = 1 together are not supported "
                                  "(DFT-17 defines the one-sided output of a forward DFT of real input only)");
    }
    return sdk::Status::Ok();
  }
};

// Where a DFT runs in its input [d0, ..., d(r-2), c] (c = 1 real, 2 complex)
// and what it produces: the input seen as [outer, length, inner, c], the
// output as [outer, bins, inner, 2].
struct DftGeometry {
  int64_t axis = 1;        // in [0, r - 2]
  int64_t length = 0;      // the input's size along axis
  int64_t n = 0;           // the DFT length: dft_length, else length
  int64_t bins = 0;        // output size along axis: n, or n / 2 + 1 one-sided
  bool complex = false;    // c == 2
  int64_t outer = 1;       // product of the dims before axis
  int64_t inner = 1;       // product of the dims between axis and c
  std::vector<int64_t> out_shape;  // the input's with axis -> bins and c -> 2
};

// The geometry of a DFT over input shape `in` with attributes `a` and
// `dft_length` (< 0: input absent). Checks: rank >= 2, last dim 1 or 2, axis
// in [0, r - 2] (negative values in [-r, -2] count from the back, as DFT-20
// allows), dft_length >= 1 (and the axis non-empty when it is absent), no
// one-sided output of complex input.
inline sdk::Status DftGeometryOf(const std::string& label, const std::vector<int64_t>& in, const DftAttrs& a,
                                 int64_t dft_length, DftGeometry* g) {
  const int64_t r = static_cast<int64_t>(in.size());
  if (r < 2 || (in.back() != 1 && in.back() != 2)) {
    return sdk::InvalidArgument(label + ": input 'input' must be [batch, signal dims..., 1 (real) or 2 (complex)]; "
                                "found " + ShapeStr(in));
  }
  int64_t axis = a.axis;
  if (axis < 0 && axis >= -r) axis += r;
  if (axis < 0 || axis > r - 2) {
    return sdk::InvalidArgument(label + ": attribute 'axis' = " + std::to_string(a.axis) + " must be in [0, " +
                                std::to_string(r - 2) + "] (or [" + std::to_string(-r) +
                                ", -2]) for input of shape " + ShapeStr(in) + " (the last dim holds re/im)");
  }
  g->axis = axis;
  g->length = in[axis];
  g->complex = in.back() == 2;
  if (dft_length >= 0 && dft_length < 1) {
    return sdk::InvalidArgument(label + ": input 'dft_length' must be >= 1; found " + std::to_string(dft_length));
  }
  g->n = dft_length >= 0 ? dft_length : g->length;
  if (g->n < 1) {
    return sdk::InvalidArgument(label + ": the DFT axis " + std::to_string(axis) + " of input shape " + ShapeStr(in) +
                                " is empty and no 'dft_length' is given");
  }
  if (a.onesided && g->complex) {
    return sdk::InvalidArgument(label + ": attribute 'onesided' = 1 needs real input (last dim 1); found " +
                                ShapeStr(in) + " (complex)");
  }
  g->bins = a.onesided ? OneSidedBins(g->n) : g->n;
  g->outer = 1;
  for (int64_t i = 0; i < axis; ++i) g->outer *= in[i];
  g->inner = 1;
  for (int64_t i = axis + 1; i < r - 1; ++i) g->inner *= in[i];
  g->out_shape = in;
  g->out_shape[axis] = g->bins;
  g->out_shape.back() = 2;
  return sdk::Status::Ok();
}

// An STFT of signal [batch, length, c] (c = 1 real, 2 complex): frames of
// frame_length samples every frame_step samples, each a DFT of length
// frame_length. Output [batch, frames, bins, 2].
struct StftGeometry {
  int64_t batch = 0, length = 0;
  int64_t frame_length = 0, frame_step = 0;
  int64_t frames = 0;  // (length - frame_length) / frame_step + 1
  int64_t bins = 0;    // frame_length, or frame_length / 2 + 1 one-sided
  bool complex = false;
  std::vector<int64_t> out_shape;
};

// The geometry of an STFT. `window_length` and `frame_length` are < 0 when
// the input is absent; at least one must be given and, when both are, they
// must agree. Checks: signal rank 3 with last dim 1 or 2, frame_step >= 1,
// 1 <= frame_length <= signal length, no one-sided output of complex input.
inline sdk::Status StftGeometryOf(const std::string& label, const std::vector<int64_t>& signal, int64_t frame_step,
                                  int64_t window_length, int64_t frame_length, bool onesided, StftGeometry* g) {
  if (signal.size() != 3 || (signal[2] != 1 && signal[2] != 2)) {
    return sdk::InvalidArgument(label + ": input 'signal' must be [batch, signal_length, 1 (real) or 2 (complex)]; "
                                "found " + ShapeStr(signal));
  }
  if (frame_step < 1) {
    return sdk::InvalidArgument(label + ": input 'frame_step' must be >= 1; found " + std::to_string(frame_step));
  }
  if (window_length < 0 && frame_length < 0) {
    return sdk::InvalidArgument(label + ": needs input 'window' or input 'frame_length' to know the frame length; "
                                "neither is given");
  }
  if (window_length >= 0 && frame_length >= 0 && window_length != frame_length) {
    return sdk::InvalidArgument(label + ": input 'window' has " + std::to_string(window_length) +
                                " elements but input 'frame_length' is " + std::to_string(frame_length) +
                                "; they must agree");
  }
  const int64_t fl = frame_length >= 0 ? frame_length : window_length;
  const char* from = frame_length >= 0 ? "input 'frame_length'" : "the length of input 'window'";
  if (fl < 1) return sdk::InvalidArgument(label + ": " + from + " must be >= 1; found " + std::to_string(fl));
  if (fl > signal[1]) {
    return sdk::InvalidArgument(label + ": " + from + " (" + std::to_string(fl) +
                                ") exceeds the signal length " + std::to_string(signal[1]) + " of input 'signal' " +
                                ShapeStr(signal));
  }
  g->complex = signal[2] == 2;
  if (onesided && g->complex) {
    return sdk::InvalidArgument(label + ": attribute 'onesided' = 1 needs a real signal (last dim 1); found " +
                                ShapeStr(signal) + " (complex); set onesided = 0");
  }
  g->batch = signal[0];
  g->length = signal[1];
  g->frame_length = fl;
  g->frame_step = frame_step;
  g->frames = (g->length - fl) / frame_step + 1;
  g->bins = onesided ? OneSidedBins(fl) : fl;
  g->out_shape = {g->batch, g->frames, g->bins, 2};
  return sdk::Status::Ok();
}

// STFT-17's onesided attribute (default 1), 0 or 1.
inline sdk::Status ReadStftOnesided(const sdk::KernelInfo& info, const std::string& label, bool* onesided) {
  const int64_t one = info.IntOr("onesided", 1);
  if (one != 0 && one != 1) {
    return sdk::InvalidArgument(label + ": attribute 'onesided' must be 0 or 1; found " + std::to_string(one));
  }
  *onesided = one == 1;
  return sdk::Status::Ok();
}

// MelWeightMatrix-17's integer inputs: num_mel_bins >= 1, dft_length >= 1,
// sample_rate >= 1 (Hz). Its output is [floor(dft_length / 2) + 1,
// num_mel_bins].
inline sdk::Status CheckMelSizes(const std::string& label, int64_t num_mel_bins, int64_t dft_length,
                                 int64_t sample_rate) {
  if (num_mel_bins < 1) {
    return sdk::InvalidArgument(label + ": input 'num_mel_bins' must be >= 1; found " + std::to_string(num_mel_bins));
  }
  if (dft_length < 1) {
    return sdk::InvalidArgument(label + ": input 'dft_length' must be >= 1; found " + std::to_string(dft_length));
  }
  if (sample_rate < 1) {
    return sdk::InvalidArgument(label + ": input 'sample_rate' must be >= 1 (Hz); found " +
                                std::to_string(sample_rate));
  }
  return sdk::Status::Ok();
}

}  // namespace semantics
}  // namespace loom

#endif  // LOOM_OPS_SEMANTICS_SPECTRAL_H_
