// The graph rewrites run on an imported NetDef before it is checked and
// planned: Loom's counterpart of ONNX Runtime's graph optimizers. Each pass is
// a pure function NetDef -> NetDef (the files beside this one); this pass
// manager picks them by optimization level, target device and training, and
// runs them in order. The ONNX frontend (frontend/onnx) only converts; the
// Session, loom_run, loom_train, loom_import, the conformance runner and the
// OCR demo call Optimize after it.
#ifndef LOOM_TRANSFORMS_OPTIMIZE_H_
#define LOOM_TRANSFORMS_OPTIMIZE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/proto/loom.pb.h"

namespace loom {
namespace transforms {

struct OptimizeOptions {
  // 0: the graph as imported (for comparing against the unfused model); 1
  // (the default): every pass below that applies.
  int level = 1;
  // The net will be trained (loom_train, AddBackward): one model serves
  // inference and training, so only gradient-safe passes run (a rewrite
  // whose ops have no gradient would be a bug), plus the passes training
  // needs (named running statistics of training-mode BatchNormalization).
  bool training = false;
  // The device type the ops run on ("CPU", "CUDA"; "" is CPU). Passes whose
  // ops have kernels on one device only (the blocked NCHWc layout: CPU) run
  // only for it.
  std::string device = "CPU";
  // The NCHWc pass's block (8 or 16; 0: the pass is off); -1: the block this
  // CPU's oneDNN prefers (NchwcBlockForThisCpu).
  int64_t nchwc_block = -1;
  // With block 16: 3x3 stride-1 convs run oneDNN's Winograd kernels; off:
  // every conv runs direct (the closest to a plain convolution's rounding).
  bool winograd = true;
};

// One pass of the pipeline.
struct Pass {
  const char* name;
  // Runs at levels >= this (0: always, e.g. what training needs).
  int level;
  // Its result has gradients and trains the same parameters, so it runs
  // when training; a pass that is not gradient-safe runs only for inference.
  bool gradient_safe;
  // Runs only when training (a training requirement, not an optimization).
  bool training_only;
  // Its ops have kernels on this device type only ("" = any).
  const char* device;
  // Rewrites the net's top level; returns how many rewrites it made.
  int (*run)(NetDef* net, const OptimizeOptions& options);
};

// The passes, in the order Optimize runs them:
//   name_running_statistics  (training only) BatchNormalization's running
//                            statistics get named outputs (batchnorm_training.h)
//   fuse_qdq                 DequantizeLinear -> Conv / Add / MaxPool ->
//                            QuantizeLinear -> int8 ops (fuse_qdq.h); CPU
//                            only, before the fusions that would take the
//                            float ops
//   int8_channels_last       runs of those int8 ops on channels-last tensors
//                            (int8_channels_last.h); CPU only
//   fuse_dynamic_quant       quantize_dynamic's DynamicQuantizeLinear ->
//                            MatMulInteger -> Cast -> Mul [-> Add] ->
//                            DynamicQuantizeMatMul (fuse_dynamic_quant.h);
//                            CPU only
//   fold_into_conv           BatchNormalization and scalar Mul/Add after a
//                            Conv fold into its weights, until none is left
//                            (fold_batchnorm.h, fuse_elementwise.h)
//   fuse_hard_swish          HardSigmoid * x -> HardSwish (fuse_elementwise.h)
//   fuse_conv_activation     Conv + activation -> FusedConv; when training
//                            only activations FusedConv's gradient handles
//                            (fuse_conv_activation.h)
//   nchwc_layout             runs of convolutions in oneDNN's blocked layout,
//                            then activations after fused residual Adds
//                            (nchwc_layout.h); CPU only
const std::vector<Pass>& Passes();

// Runs the passes of Passes() that `options` selects on `net`, in order.
// Returns (pass name, rewrites) for each pass that ran.
std::vector<std::pair<std::string, int>> Optimize(NetDef* net, const OptimizeOptions& options);

}  // namespace transforms
}  // namespace loom

#endif  // LOOM_TRANSFORMS_OPTIMIZE_H_
