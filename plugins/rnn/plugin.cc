// The rnn plugin: operators that run nested nets — Caffe2's RecurrentNetwork,
// the ONNX recurrent ops as step nets — and fused cell units with their
// gradients. ONNX If, Loop and Scan are the controlflow plugin's
// (plugins/controlflow).
#include "plugins/rnn/rnn_ops.h"

LOOM_PLUGIN("rnn", "0.1.0", reg) {
  using namespace loom::rnn;
  return reg.Each({
    RegisterRecurrentNetwork, RegisterRecurrentNetworkGradient, RegisterCellUnits, RegisterCellUnitGradients,
    RegisterOnnxRecurrent, RegisterOnnxRecurrentGradients,
  });
}
