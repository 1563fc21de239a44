// The backward builder (Caffe2's AddGradientOperators): from a forward
// NetDef and its loss blob(s), appends the ops that compute the gradients
// of the blobs the losses depend on, so forward and backward run as one net
// (cached per signature and memory-planned like any other: values the
// backward reads stay alive, the rest are reused).
//
// - Each loss L (any shape) is seeded with dL/dL = ones of L's shape
//   (Shape, then ConstantOfShape of 1.0), so the gradient is that of
//   sum(L), as Caffe2 and PyTorch's backward() on a tensor of ones.
// - Ops are visited in reverse; an op gets a gradient when some output
//   leads to a loss and some input depends on a `wrt` blob. Its schema's
//   gradient maker (core/autodiff/gradient.h) emits the ops.
// - A blob read by several ops gets one gradient part per reader,
//   `<blob>_grad_autosplit_<k>`, summed into `<blob>_grad` before its own
//   producer's gradient reads it (Caffe2's DoGradientAccumulation); a blob
//   read once gets `<blob>_grad` directly.
// - `stop_gradients`: no gradient flows through these blobs.
// - The forward net must be in SSA form (each blob written by one op at
//   most), as ONNX graphs are; in-place Caffe2 nets are refused with the
//   blob named.
#ifndef LOOM_CORE_AUTODIFF_BACKWARD_H_
#define LOOM_CORE_AUTODIFF_BACKWARD_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/proto/loom.pb.h"
#include "core/registry.h"

namespace loom {

struct BackwardOptions {
  // Blobs whose gradients are wanted; empty: the net's initializers (its
  // parameters). Gradients of intermediates come along where computed.
  std::vector<std::string> wrt;
  // Blobs no gradient flows through (PyTorch's detach, TensorFlow's
  // stop_gradient).
  std::set<std::string> stop_gradients;
  // Losses whose gradient is given as a blob (loss -> gradient blob, same
  // shape) instead of ones: a nested net's outputs, whose gradients come
  // from outside it (NetBackward).
  std::map<std::string, std::string> output_gradients;
  // MXNet's grad_req = 'add' (Caffe2's Accumulate): each wanted gradient is
  // added into <wrt>_grad_accum (Accumulate, gamma 1) instead of written,
  // so several runs sum their gradients (gradient accumulation over
  // micro-batches). The accumulators start at zero when they hold no
  // tensor of the gradient's size: the caller empties them (or sets zeros)
  // before the first run of each accumulation.
  bool accumulate = false;
};

struct BackwardResult {
  // For each `wrt` blob that a loss depends on: the blob holding its
  // gradient (same dtype and shape). Blobs no loss depends on are absent.
  std::map<std::string, std::string> gradients;
  int forward_ops = 0;   // ops of the net before
  int backward_ops = 0;  // ops appended
};

// Appends the backward ops to `net` and adds the wanted gradients to its
// external outputs. Errors: a loss or wrt blob the net does not have
// (INVALID_ARGUMENT naming it), a blob written twice (INVALID_ARGUMENT,
// not SSA), an op on the path without a gradient (UNIMPLEMENTED naming the
// op and the input whose gradient was needed), CheckNet's errors.
absl::StatusOr<BackwardResult> AddBackward(const Registry& registry, const std::vector<std::string>& losses,
                                           const BackwardOptions& options, NetDef* net);

// The backward of a nested net on its own (Caffe2's recurrent.py deriving a
// backward step net; LoomApi's Grad_NetBackward): `backward` gets only the
// backward ops of `net`, with the gradients of `outputs[i]` given as blobs
// `output_grads[i]`, and as external inputs every blob those ops read and
// do not write (no external outputs: the caller decides what stays).
// wrt_grads[k] names wrt[k]'s gradient, "" where no output depends on it
// (or the net does not read it). Blobs `net` reads without
// writing count as its inputs whether declared or not. Errors: AddBackward's.
absl::Status NetBackward(const Registry& registry, const NetDef& net, const std::vector<std::string>& outputs,
                         const std::vector<std::string>& output_grads, const std::vector<std::string>& wrt,
                         NetDef* backward, std::vector<std::string>* wrt_grads);

}  // namespace loom

#endif  // LOOM_CORE_AUTODIFF_BACKWARD_H_
