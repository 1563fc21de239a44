// The rnn plugin: Caffe2's RecurrentNetwork operator and fused cell units.
#include "plugins/rnn/rnn_ops.h"

LOOM_PLUGIN("rnn", "0.1.0", reg) {
  LOOM_SDK_RETURN_IF_ERROR(loom::rnn::RegisterRecurrentNetwork(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::rnn::RegisterCellUnits(reg));
  return loom::rnn::RegisterOnnxRecurrent(reg);
}
