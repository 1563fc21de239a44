// One operator's gradient (Caffe2's GradientMakerBase, through ABI 5): the
// schema's gradient maker (LoomSchemaDef::gradient, a plugin's or the
// standard ops') emits the ops that compute the op's input gradients GI
// from its inputs I, outputs O and output gradients GO.
#ifndef LOOM_CORE_AUTODIFF_GRADIENT_H_
#define LOOM_CORE_AUTODIFF_GRADIENT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/checked_net.h"
#include "core/proto/loom.pb.h"

namespace loom {

// What one op's gradient maker made: the gradient ops, and per forward
// input whether its gradient (GI) is written or the maker declared none.
struct OpGradient {
  std::vector<OperatorDef> ops;       // in order
  std::vector<bool> written;          // per input: its GI was asked for and an op writes it
  std::vector<bool> no_gradient;      // per input: the maker said it has none
};

// Runs the gradient maker of `op` (checked: attributes with defaults): its
// schema's, else (with `registry`) one a plugin registered for it apart.
// `output_grads` (per output, "" where no gradient flows) are the GO names,
// `input_grads` (per input, "" where none is needed) the GI names the ops
// must write, `temp_prefix` a prefix for temporaries unique to this op.
// UNIMPLEMENTED naming the op when its schema has no gradient maker or the
// maker refuses the configuration; INVALID_ARGUMENT when the maker's ops
// leave a needed GI unwritten without calling NoGradient.
// `registry` (may be null) lets the maker derive a nested net's backward
// (LoomApi's Grad_NetBackward, core/autodiff/backward.h NetBackward).
absl::StatusOr<OpGradient> MakeOpGradient(const CheckedOp& op, const std::vector<std::string>& output_grads,
                                          const std::vector<std::string>& input_grads, const std::string& temp_prefix,
                                          const Registry* registry = nullptr);

}  // namespace loom

#endif  // LOOM_CORE_AUTODIFF_GRADIENT_H_
