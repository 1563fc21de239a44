// BatchNormalization between training and inference (ONNX opset 14
// training_mode semantics; Caffe2's in-place SpatialBN running statistics).
//
// ONNX describes one training step: a training-mode BatchNormalization
// outputs the updated running_mean / running_var as new values, which
// exporters (PyTorch's TrainingMode.TRAINING) leave unread. A training loop
// must carry them into the next step and into the trained model, as ONNX
// Runtime's training does (Caffe2's SpatialBN wrote them in place). The
// first two functions do that, the third makes the inference form.
#ifndef LOOM_TRANSFORMS_BATCHNORM_TRAINING_H_
#define LOOM_TRANSFORMS_BATCHNORM_TRAINING_H_

#include "core/proto/loom.pb.h"

namespace loom {
namespace transforms {

// Gives every top-level BatchNormalization of `net` with training_mode != 0
// its running_mean and running_var outputs (1 and 2), named
// "<input_mean>_running" / "<input_var>_running" where absent or empty, so
// the forward net stays in SSA form (AddBackward's requirement) and the
// updated statistics have a blob. Returns how many ops got a name.
int NameRunningStatistics(NetDef* net);

// Appends to `net`, after everything else (the backward pass and the
// optimizer), an Identity from each training-mode BatchNormalization's
// running_mean / running_var output into its input_mean / input_var where
// that input is an initializer: each step carries the updated statistics
// into the next, into checkpoints and into inference. Returns how many
// Identity ops were appended.
int AppendRunningStatisticsWriteBack(NetDef* net);

// The inference form of a training net's forward ops: every top-level
// BatchNormalization gets training_mode = 0 (normalizing with input_mean /
// input_var) and keeps only its output Y; Dropout's training_mode input is
// dropped (Dropout is then the identity). Returns how many ops changed.
int TrainingOpsForInference(NetDef* net);

}  // namespace transforms
}  // namespace loom

#endif  // LOOM_TRANSFORMS_BATCHNORM_TRAINING_H_
