// Schemas of the spectral signal operators: DFT, STFT and MelWeightMatrix
// (ONNX opset 17: DFT-17, STFT-17, MelWeightMatrix-17). The output shapes
// and the checks they share with the kernels are in ops/semantics/spectral.h.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/semantics/spectral.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

// The single value of constant int input i: false when the input is absent,
// not constant or not one element.
bool ConstantScalar(const sdk::InferenceContext& ctx, size_t i, int64_t* v) {
  std::vector<int64_t> vals;
  if (!ConstantInts(ctx, i, &vals) || vals.size() != 1) return false;
  *v = vals[0];
  return true;
}

// output: input's dtype; its shape by DftGeometryOf when the input's shape is
// known and dft_length is absent or constant.
sdk::Status InferDft(sdk::InferenceContext& ctx) {
  semantics::DftAttrs attrs;
  LOOM_SDK_RETURN_IF_ERROR(attrs.Read(ctx.info(), "DFT"));
  ctx.SetOutputDType(0, ctx.InputDType(0));
  std::vector<int64_t> in;
  if (!ctx.InputShape(0, &in)) return sdk::Status::Ok();
  int64_t dft_length = -1;
  if (HasInput(ctx, 1) && !ConstantScalar(ctx, 1, &dft_length)) return sdk::Status::Ok();
  semantics::DftGeometry g;
  LOOM_SDK_RETURN_IF_ERROR(semantics::DftGeometryOf("DFT", in, attrs, dft_length, &g));
  ctx.SetOutputShape(0, g.out_shape);
  return sdk::Status::Ok();
}

// output: signal's dtype; [batch, frames, bins, 2] when the signal's shape,
// frame_step and the frame length (constant frame_length or the window's
// shape) are known.
sdk::Status InferStft(sdk::InferenceContext& ctx) {
  bool onesided = true;
  LOOM_SDK_RETURN_IF_ERROR(semantics::ReadStftOnesided(ctx.info(), "STFT", &onesided));
  ctx.SetOutputDType(0, ctx.InputDType(0));
  std::vector<int64_t> signal, window;
  int64_t step = 0, window_length = -1, frame_length = -1;
  if (!ctx.InputShape(0, &signal) || !ConstantScalar(ctx, 1, &step)) return sdk::Status::Ok();
  if (HasInput(ctx, 2)) {
    if (!ctx.InputShape(2, &window)) return sdk::Status::Ok();
    if (window.size() != 1) {
      return sdk::InvalidArgument("STFT: input 'window' must be 1-D [frame_length]; found " +
                                  semantics::ShapeStr(window));
    }
    window_length = window[0];
  }
  if (HasInput(ctx, 3) && !ConstantScalar(ctx, 3, &frame_length)) return sdk::Status::Ok();
  semantics::StftGeometry g;
  LOOM_SDK_RETURN_IF_ERROR(
      semantics::StftGeometryOf("STFT", signal, step, window_length, frame_length, onesided, &g));
  ctx.SetOutputShape(0, g.out_shape);
  return sdk::Status::Ok();
}

// output: output_datatype (a numeric dtype); [dft_length / 2 + 1,
// num_mel_bins] when both are constant.
sdk::Status InferMelWeightMatrix(sdk::InferenceContext& ctx) {
  const int64_t dt = ctx.info().IntOr("output_datatype", LOOM_DTYPE_FLOAT);
  const std::vector<LoomDataType> ok = NumericTypes();
  if (std::find(ok.begin(), ok.end(), static_cast<LoomDataType>(dt)) == ok.end()) {
    return sdk::InvalidArgument("MelWeightMatrix: attribute 'output_datatype' = " + std::to_string(dt) +
                                " is not a numeric dtype (ONNX TensorProto.DataType codes)");
  }
  ctx.SetOutputDType(0, static_cast<LoomDataType>(dt));
  int64_t mel = 0, n = 0, rate = 1;
  if (!ConstantScalar(ctx, 0, &mel) || !ConstantScalar(ctx, 1, &n)) return sdk::Status::Ok();
  if (!ConstantScalar(ctx, 2, &rate)) rate = 1;  // checked by the kernel when not constant
  LOOM_SDK_RETURN_IF_ERROR(semantics::CheckMelSizes("MelWeightMatrix", mel, n, rate));
  ctx.SetOutputShape(0, {semantics::OneSidedBins(n), mel});
  return sdk::Status::Ok();
}

std::vector<LoomDataType> IndexTypes() { return {LOOM_DTYPE_INT32, LOOM_DTYPE_INT64}; }

}  // namespace

sdk::Status RegisterSignalSpectralSchemas(sdk::Registrar& reg) {
  return RegisterOps(
      reg,
      {{"DFT", 17,
        "ONNX DFT-17: the discrete Fourier transform of input along `axis`: y[k] = sum_{t<n} x[t] "
        "exp(-2 pi i k t / n) (inverse: x[t] = 1/n sum_{k<n} y[k] exp(+2 pi i k t / n)), with n = dft_length "
        "(the signal zero-padded or truncated to it) or the axis's size. Input [batch, signal dims..., 1 (real) "
        "or 2 (complex: re, im)]; output the same dims with axis -> n (onesided: floor(n/2) + 1, the "
        "non-redundant bins of a real signal) and the last -> 2 (re, im). Computed in double, stored as the "
        "input's dtype. onesided needs real input and a forward transform.",
        {"input:T1|[batch, signal dims..., 1 or 2] (last: real, or re and im)",
         "dft_length:T2?|one element >= 1: the DFT length (zero-pad or truncate the signal along axis)"},
        {"output:T1|input's dims with axis -> n (onesided: floor(n/2) + 1) and the last -> 2 (re, im)"},
        {{"T1", FloatTypes()}, {"T2", IndexTypes()}},
        {"axis:int=1|the transformed axis, in [0, r - 2] (1: the first after the batch); [-r, -2] counts from the "
         "back",
         "inverse:int=0|1: the inverse DFT (scaled by 1/n)",
         "onesided:int=0|1: only bins [0, floor(n/2)] (real input, forward transform only)"},
        Fn<&InferDft>()},
       {"STFT", 17,
        "ONNX STFT-17: the short-time Fourier transform. Frame f of batch b is signal[b, f * frame_step + t] for "
        "t in [0, frame_length), times window[t] when a window is given (else a rectangular window), and its DFT "
        "of length frame_length is output[b, f]. frames = (signal_length - frame_length) / frame_step + 1 "
        "(integer division; trailing samples that do not fill a frame are dropped). frame_length is the input "
        "frame_length or the window's length (one of them is needed; both must agree). Computed in double, "
        "stored as the signal's dtype.",
        {"signal:T1|[batch, signal_length, 1 (real) or 2 (complex: re, im)]",
         "frame_step:T2|one element >= 1: samples between the starts of successive frames",
         "window:T1?|[frame_length], real: multiplies each frame",
         "frame_length:T2?|one element in [1, signal_length]: the frame and DFT length"},
        {"output:T1|[batch, frames, bins, 2] (re, im), bins = floor(frame_length/2) + 1 (onesided) or "
         "frame_length"},
        {{"T1", FloatTypes()}, {"T2", IndexTypes()}},
        {"onesided:int=1|1: only bins [0, floor(frame_length/2)] (real signals only); 0: all frame_length bins"},
        Fn<&InferStft>()},
       {"MelWeightMatrix", 17,
        "ONNX MelWeightMatrix-17: a matrix that maps a one-sided linear spectrum of a DFT of dft_length samples "
        "at sample_rate Hz (bins k = 0..floor(dft_length/2), frequency k * sample_rate / dft_length Hz) to "
        "num_mel_bins triangular mel bands, mel(f) = 2595 log10(1 + f / 700). As the ONNX reference: "
        "num_mel_bins + 2 points p_i = mel(lower_edge_hertz) + i * (mel(upper_edge_hertz) - "
        "mel(lower_edge_hertz)) / (num_mel_bins + 2) are taken back to Hz and to spectrum bins b_i = "
        "floor((dft_length + 1) * hz(p_i) / sample_rate); band m rises linearly from 0 at b_m to 1 at b_(m+1) "
        "and falls to 0 at b_(m+2) (peak 1; a band whose edges coincide is a single 1 at b_(m+1)). Weights "
        "of bins past floor(dft_length/2) are dropped. Computed in double, stored as output_datatype.",
        {"num_mel_bins:T1|one element >= 1: the number of mel bands",
         "dft_length:T1|one element >= 1: the DFT's length",
         "sample_rate:T1|one element >= 1: samples per second (Hz) of the signal",
         "lower_edge_hertz:T2|one element >= 0: the lower edge (Hz) of the lowest band",
         "upper_edge_hertz:T2|one element > lower_edge_hertz: the upper edge (Hz) of the highest band"},
        {"output:T3|[floor(dft_length/2) + 1, num_mel_bins]: spectrum bin x mel band; a spectrogram "
         "[frames, bins] times it gives [frames, num_mel_bins]"},
        {{"T1", IndexTypes()}, {"T2", FloatTypes()}, {"T3", NumericTypes()}},
        {"output_datatype:int=1|the output's dtype (ONNX TensorProto.DataType; default float)"},
        Fn<&InferMelWeightMatrix>()}});
}

}  // namespace ops
}  // namespace loom
