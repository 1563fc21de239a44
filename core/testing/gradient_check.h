// The generic gradient checker: the gradients the backward builder
// (core/autodiff/backward.h) makes for one operator, against central finite
// differences, in float64.
//
// The loss is L = sum_k sum(Y_k * R_k) over the op's outputs Y_k with fixed
// random weights R_k (so every output element matters, differently), and
// for every element x of every checked input
//   numeric = (L(x + eps) - L(x - eps)) / (2 eps),
// compared with the analytic gradient:
//   |analytic - numeric| <= tolerance * max(1, |numeric|).
#ifndef LOOM_CORE_TESTING_GRADIENT_CHECK_H_
#define LOOM_CORE_TESTING_GRADIENT_CHECK_H_

#include <vector>

#include "core/proto/loom.pb.h"
#include "core/registry.h"
#include "core/tensor.h"
#include "gtest/gtest.h"

namespace loom {
namespace testing {

struct GradientCheckOptions {
  double eps = 1e-6;
  double tolerance = 1e-6;
  // Inputs to check (indices into op.input); empty: every float input.
  std::vector<int> inputs;
  uint32_t seed = 7;  // of the output weights R_k
  // Builds the net again for every run, so an op whose kernel keeps state
  // across runs (Dropout's mask generator, seeded) computes the same
  // function each time.
  bool rebuild_net_per_run = false;
};

// `inputs[i]` feeds op.input(i) (float64 for the checked ones). Fails with
// the input, element, analytic and numeric values of the worst mismatch,
// or with the error of building or running the nets.
::testing::AssertionResult CheckGradient(const OperatorDef& op, const std::vector<Tensor>& inputs, Registry* registry,
                                         const GradientCheckOptions& options = {});

}  // namespace testing
}  // namespace loom

#endif  // LOOM_CORE_TESTING_GRADIENT_CHECK_H_
