// The generic gradient checker: the gradients the backward builder
// (core/autodiff/backward.h) makes for one operator, against central finite
// differences, in float64 or float32 (the checked inputs' dtype; a plugin
// author's float32-only kernel is checked with float32 tolerances).
//
// The loss is L = sum_k sum(double(Y_k) * R_k) over the op's float outputs
// Y_k with fixed random float64 weights R_k (so every output element
// matters, differently; a float32 output is cast to float64 first, so the
// sum adds no rounding of its own), and for every element x of every
// checked input
//   numeric = (L(x + eps) - L(x - eps)) / (2 eps),
// compared with the analytic gradient:
//   |analytic - numeric| <= tolerance * max(1, |numeric|).
#ifndef LOOM_TESTING_GRADIENT_CHECK_H_
#define LOOM_TESTING_GRADIENT_CHECK_H_

#include <vector>

#include "core/proto/loom.pb.h"
#include "core/registry.h"
#include "core/tensor.h"
#include "gtest/gtest.h"

namespace loom {
namespace testing {

struct GradientCheckOptions {
  // 0: the checked inputs' dtype's default, 1e-6 and 1e-6 for float64,
  // 1e-2 and 1e-2 for float32 (float32 rounding over 2 eps of 1e-2 is
  // about 1e-5 of the loss; the central difference's own error is
  // O(eps^2)). TensorFlow's compute_gradient uses similar float32 steps.
  double eps = 0;
  double tolerance = 0;
  // Inputs to check (indices into op.input); empty: every float64 input,
  // or every float32 input where none is float64.
  std::vector<int> inputs;
  uint32_t seed = 7;  // of the output weights R_k
  // Builds the net again for every run, so an op whose kernel keeps state
  // across runs (Dropout's mask generator, seeded) computes the same
  // function each time.
  bool rebuild_net_per_run = false;
};

// `inputs[i]` feeds op.input(i); the checked ones are float64, or all
// float32. Fails with the input, element, analytic and numeric values of
// the worst mismatch, or with the error of building or running the nets
// (checked inputs of mixed float dtypes: INVALID_ARGUMENT's message).
::testing::AssertionResult CheckGradient(const OperatorDef& op, const std::vector<Tensor>& inputs, Registry* registry,
                                         const GradientCheckOptions& options = {});

}  // namespace testing
}  // namespace loom

#endif  // LOOM_TESTING_GRADIENT_CHECK_H_
