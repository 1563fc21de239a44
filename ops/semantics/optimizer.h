// The input/output layout of the ai.onnx.preview.training optimizers
// (Adagrad, Momentum: one state; Adam: two), shared by their schemas'
// inference (ops/training.cc) and every device's kernels: inputs R, T, then
// n parameters X, their n gradients G and n per state; outputs the n new
// parameters, then n per state.
#ifndef LOOM_OPS_SEMANTICS_OPTIMIZER_H_
#define LOOM_OPS_SEMANTICS_OPTIMIZER_H_

#include <cstddef>

namespace loom {
namespace semantics {

struct OptimizerLayout {
  size_t n = 0;        // tensors optimized
  size_t states = 1;   // state tensors per parameter
  bool valid = false;  // the counts fit the layout

  OptimizerLayout(size_t num_inputs, size_t num_outputs, size_t states_per_param) : states(states_per_param) {
    const size_t groups = 2 + states;
    valid = num_inputs >= 2 && (num_inputs - 2) % groups == 0;
    n = valid ? (num_inputs - 2) / groups : 0;
    valid = valid && num_outputs == n * (1 + states);
  }
  // Input index of X_i (group 0), G_i (group 1) or state s of parameter i
  // (group 2 + s).
  size_t Input(size_t group, size_t i) const { return 2 + group * n + i; }
  // Output index of X_new_i (group 0) or new state s (group 1 + s).
  size_t Output(size_t group, size_t i) const { return group * n + i; }
  // The input whose shape output k has: X_i for X_new_i, the old state for
  // a new state.
  size_t SourceOfOutput(size_t k) const {
    const size_t group = n == 0 ? 0 : k / n, i = n == 0 ? 0 : k % n;
    return Input(group == 0 ? 0 : group + 1, i);
  }
};

}  // namespace semantics
}  // namespace loom

#endif  // LOOM_OPS_SEMANTICS_OPTIMIZER_H_
