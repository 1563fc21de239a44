// Registration functions of the controlflow plugin (schema and kernel of
// each op), one per file.
#ifndef LOOM_PLUGINS_CONTROLFLOW_CONTROLFLOW_OPS_H_
#define LOOM_PLUGINS_CONTROLFLOW_CONTROLFLOW_OPS_H_

#include "core/api/loom_sdk.h"

namespace loom {
namespace controlflow {

sdk::Status RegisterIf(sdk::Registrar& reg);    // if.cc: ONNX If
sdk::Status RegisterLoop(sdk::Registrar& reg);  // loop.cc: ONNX Loop
sdk::Status RegisterScan(sdk::Registrar& reg);  // scan.cc: ONNX Scan
sdk::Status RegisterSequenceMap(sdk::Registrar& reg);  // sequence_map.cc: ONNX SequenceMap

}  // namespace controlflow
}  // namespace loom

#endif  // LOOM_PLUGINS_CONTROLFLOW_CONTROLFLOW_OPS_H_
