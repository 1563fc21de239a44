// The rnn plugin: operators that run nested nets — Caffe2's RecurrentNetwork,
// the ONNX recurrent ops as step nets, ONNX If/Loop/Scan — and fused cell
// units.
#include "plugins/rnn/rnn_ops.h"

LOOM_PLUGIN("rnn", "0.1.0", reg) {
  LOOM_SDK_RETURN_IF_ERROR(loom::rnn::RegisterRecurrentNetwork(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::rnn::RegisterCellUnits(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::rnn::RegisterOnnxRecurrent(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::rnn::RegisterIf(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::rnn::RegisterLoop(reg));
  return loom::rnn::RegisterScan(reg);
}
