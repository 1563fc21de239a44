// Appends the parameter update to a training NetDef: one optimizer op
// (ops/training.cc: ONNX ai.onnx.preview.training Momentum, Adam or
// Adagrad) over every parameter that AddBackward gave a gradient, updating
// the parameters and their optimizer states in place. The states are new
// initializers of zeros shaped like their parameters: `<param>_momentum`
// (Momentum), `<param>_adam_v` and `<param>_adam_h` (Adam),
// `<param>_adagrad_h` (Adagrad). The learning rate and the step count are
// external inputs the caller sets before each run: `learning_rate` (float32
// scalar) and `step` (int64 scalar; Adam's bias correction and Momentum's
// first step read it).
#ifndef LOOM_CORE_AUTODIFF_OPTIMIZER_H_
#define LOOM_CORE_AUTODIFF_OPTIMIZER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/autodiff/backward.h"
#include "core/proto/loom.pb.h"

namespace loom {

struct OptimizerOptions {
  std::string type = "Momentum";  // Momentum, Adam or Adagrad
  // Momentum: alpha (decay of the momentum), beta (1: plain sum of
  // gradients, PyTorch's SGD momentum), mode standard or nesterov,
  // norm_coefficient (weight decay). Adam: alpha, beta, epsilon,
  // norm_coefficient, norm_coefficient_post. Adagrad: decay_factor,
  // epsilon, norm_coefficient. Attributes not set take the schema's
  // defaults (Momentum's are required: alpha 0.9, beta 1, standard, 0 here).
  std::vector<Argument> attributes;
  std::string learning_rate = "learning_rate";
  std::string step = "step";
  // > 0: clip by global norm first (PyTorch's clip_grad_norm_): with
  // norm = sqrt(sum over all gradients of their squares), every gradient is
  // scaled by min(1, max_gradient_norm / (norm + 1e-6)). All parameters
  // must then have one dtype.
  double max_gradient_norm = 0;
};

// Learning-rate schedules (PyTorch's StepLR, ExponentialLR); the caller sets
// the `learning_rate` input from it before each step.
struct LearningRateSchedule {
  enum class Kind { kConstant, kStep, kExponential };
  Kind kind = Kind::kConstant;
  double base = 0.01;
  double gamma = 0.1;       // kStep: factor every step_size steps; kExponential: per step
  int64_t step_size = 1;    // kStep
  // base, base * gamma^(step / step_size), or base * gamma^step.
  double At(int64_t step) const;
};

// Appends the update op for `backward.gradients` (parameters in name order)
// and the zero states, and makes the parameters external outputs.
// INVALID_ARGUMENT when a parameter is not a float32/float64 initializer of
// `net` (its shape sizes the states), a state name is taken, or the type is
// unknown.
absl::Status AddOptimizer(const BackwardResult& backward, const OptimizerOptions& options, NetDef* net);

}  // namespace loom

#endif  // LOOM_CORE_AUTODIFF_OPTIMIZER_H_
