// Registration functions of the rnn plugin, one per file.
#ifndef LOOM_PLUGINS_RNN_RNN_OPS_H_
#define LOOM_PLUGINS_RNN_RNN_OPS_H_

#include "core/api/loom_sdk.h"

namespace loom {
namespace rnn {

// The SDK names every kernel file of this plugin uses.
using sdk::Api;
using sdk::KernelContext;
using sdk::KernelInfo;
using sdk::Status;
using sdk::Tensor;

sdk::Status RegisterRecurrentNetwork(sdk::Registrar& reg);  // recurrent_network.cc
// recurrent_network_gradient.cc: RecurrentNetworkGradient (schema, CPU
// kernel) and RecurrentNetwork's gradient maker, which derives the backward
// step net (Caffe2's recurrent.py).
sdk::Status RegisterRecurrentNetworkGradient(sdk::Registrar& reg);
sdk::Status MakeRecurrentNetworkGradient(sdk::GradientContext& g);
sdk::Status RegisterCellUnits(sdk::Registrar& reg);         // cell_units.cc: LSTMUnit, GRUUnit
sdk::Status RegisterOnnxRecurrent(sdk::Registrar& reg);     // onnx_recurrent.cc: ONNX LSTM, GRU, RNN, engine STEPNET
// onnx_recurrent_gradient.cc: the gradient makers of ONNX LSTM, GRU, RNN
// (through their step nets; RegisterGradient, ABI 7).
sdk::Status RegisterOnnxRecurrentGradients(sdk::Registrar& reg);
// cell_unit_gradients.cc: LSTMUnitGradient, GRUUnitGradient (schemas and CPU kernels).
sdk::Status RegisterCellUnitGradients(sdk::Registrar& reg);

// cell_unit_gradients.cc: the gradient makers of LSTMUnit and GRUUnit
// (Caffe2's GetLSTMUnitGradient, GetGRUUnitGradient), which their schemas
// register in cell_units.cc.
sdk::Status MakeLSTMUnitGradient(sdk::GradientContext& g);
sdk::Status MakeGRUUnitGradient(sdk::GradientContext& g);

}  // namespace rnn
}  // namespace loom

#endif  // LOOM_PLUGINS_RNN_RNN_OPS_H_
