// One batch row of ONNX LSTM's and GRU's cells (opset 14, default
// activations: Sigmoid, Tanh, Tanh / Sigmoid, Tanh) in float32 over arrays,
// the transcendental functions through vector_math.h where the CPU has AVX2
// (else libm): the cells of DynamicQuantizeLSTM and DynamicQuantizeGRU
// (quantized_dynamic_rnn.cc).
#ifndef LOOM_PLUGINS_CPU_RNN_CELL_ROWS_H_
#define LOOM_PLUGINS_CPU_RNN_CELL_ROWS_H_

#include <cmath>
#include <cstdint>

#include "plugins/cpu/vector_math.h"

namespace loom {
namespace cpu {

// y[i] = fn(x[i]) for i < n (x and y may alias): VectorMath, else libm.
template <VectorFn F>
void ApplyRow(const float* x, float* y, int64_t n) {
  if (VectorMathAvailable()) {
    VectorMath<F>(x, y, n);
    return;
  }
  for (int64_t i = 0; i < n; ++i) y[i] = F == VectorFn::kExp ? std::exp(x[i]) : std::tanh(x[i]);
}

// y[i] = 1 / (1 + exp(-x[i])), through `tmp` (n floats).
inline void SigmoidRow(const float* x, float* y, int64_t n, float* tmp) {
  for (int64_t i = 0; i < n; ++i) tmp[i] = -x[i];
  ApplyRow<VectorFn::kExp>(tmp, tmp, n);
  for (int64_t i = 0; i < n; ++i) y[i] = 1.0f / (1.0f + tmp[i]);
}

// The cell of one batch row: `gates` [4H] holds the summed gate inputs
// (X W + H R + biases, order i, o, f, c) and is overwritten; c [H] and
// h [H] are updated in place; p: peepholes [3H] (i, o, f) or null. `tmp`:
// 2H floats.
inline void LstmCellRow(float* gates, const float* p, int64_t H, float* c, float* h, float* tmp) {
  float *gi = gates, *go = gates + H, *gf = gates + 2 * H, *gc = gates + 3 * H;
  if (p != nullptr) {
    for (int64_t k = 0; k < H; ++k) {
      gi[k] += p[k] * c[k];
      gf[k] += p[2 * H + k] * c[k];
    }
  }
  SigmoidRow(gi, gi, H, tmp);
  SigmoidRow(gf, gf, H, tmp);
  ApplyRow<VectorFn::kTanh>(gc, gc, H);
  for (int64_t k = 0; k < H; ++k) c[k] = gf[k] * c[k] + gi[k] * gc[k];
  if (p != nullptr) {
    for (int64_t k = 0; k < H; ++k) go[k] += p[H + k] * c[k];
  }
  SigmoidRow(go, go, H, tmp);
  ApplyRow<VectorFn::kTanh>(c, tmp + H, H);
  for (int64_t k = 0; k < H; ++k) h[k] = go[k] * tmp[H + k];
}

// GRU, after its gates: `zr` [2H] holds z's and r's summed inputs (X W +
// H R + biases) and becomes sigmoid of them; `tmp`: 2H floats.
inline void GruGatesRow(float* zr, int64_t H, float* tmp) { SigmoidRow(zr, zr, 2 * H, tmp); }

// GRU's output: `hc` [H] holds h~'s summed input and becomes tanh of it;
// h [H] = (1 - z) * h~ + z * h, in place.
inline void GruOutputRow(const float* z, float* hc, int64_t H, float* h) {
  ApplyRow<VectorFn::kTanh>(hc, hc, H);
  for (int64_t k = 0; k < H; ++k) h[k] = (1.0f - z[k]) * hc[k] + z[k] * h[k];
}

}  // namespace cpu
}  // namespace loom

#endif  // LOOM_PLUGINS_CPU_RNN_CELL_ROWS_H_
