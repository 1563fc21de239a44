// loom_run: runs a NetDef and reports outputs and timing.
//
//   loom_run [MODEL] [name=tensor.pb ...] [--random] [--iterations N] [--warmup N]
//            [--profile] [--dot FILE] [--trace FILE.json] [--output_dir DIR] [--plugin PATH] [--num_threads N]
//            [--input_shape name=1x3x224x224] [--device CUDA[:id]]
//            [--executor sequential|multi_stream] [--max_streams N] [--fpmath_mode strict|bf16]
//
// MODEL is a NetDef in binary or text format, or an ONNX model (*.onnx,
// imported by tools/onnx); with no MODEL the default model
// that ships with Loom (tools/models/default_cnn.pb, built by
// tools/make_default_model) runs on random input.
// Inputs come from TensorProto files (name=path); with --random, every
// external input without a file is generated (uniform in [-1, 1]) with the
// shape from --input_shape or from the NetDef argument "input_shape.<name>"
// (ints) and dtype from "input_dtype.<name>" (string, default float32).
//
// --input_shape: NAME=DIMS with DIMS separated by 'x' or ','
// (x=1x3x48x320 or x=1,3,48,320); several inputs in one flag
// (x=1,3,48,320,y=2,5: a piece with '=' starts the next input) or in
// repeated flags (--input_shape x=1x3 --input_shape y=2x5; every occurrence
// counts). A single dim (x=7) is the shape [7].
//
// --device TYPE[:ID] places every op (nested step nets included) on that
// device through NetDef.device_option before Net::Create (an op type with
// no kernel for that device stays on the CPU and is listed, unless
// --nodevice_fallback makes that an error); for CUDA the
// plugin is loaded from plugins/cuda/libloom_cuda.so (next to the binary,
// in its runfiles or under the current folder) unless --plugin or
// LOOM_PLUGIN_PATH already provided a CUDA device. Net inputs are fed on
// the host and copied by the planner on every run; float initializers of at
// least 1024 elements (weights) are copied to the device once, before the
// warm-up (--preload_weights, on by default), so the timed runs do not
// include re-uploading the weights.
// --executor multi_stream [--max_streams N] runs the net with the
// multi-stream executor (NetDef type "multi_stream", arg "max_streams").
//
// Exit status: 0; 2 for a bad command line; 1 when the run or the report
// fails. The parts live in tools/run/: run_options (the command line),
// model_runner (the run), report (what is printed and written).
#include <iostream>

#include "absl/flags/usage.h"
#include "tools/run/dot.h"
#include "tools/run/model_runner.h"
#include "tools/run/report.h"
#include "tools/run/run_options.h"

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("Runs a Loom NetDef: loom_run [MODEL] [name=tensor.pb ...] [flags]. See --help.");
  auto options = loom::tools::ParseRunArgs(argc, argv);
  if (!options.ok()) {
    std::cerr << "loom_run: " << options.status().message() << "\n";
    return 2;
  }
  auto result = loom::tools::RunModel(*options, std::cout, std::cerr);
  if (!result.ok()) {
    std::cerr << "loom_run: " << result.status().message() << "\n";
    return 1;
  }
  absl::Status reported = loom::tools::WriteReport(*result, *options, std::cout);
  if (!reported.ok()) {
    std::cerr << "loom_run: " << reported.message() << "\n";
    return 1;
  }
  if (result->trace != nullptr) {
    if (absl::Status s = result->trace->WriteJson(options->trace); !s.ok()) {
      std::cerr << "loom_run: --trace: " << s.message() << "\n";
      return 1;
    }
    std::cout << "loom_run: wrote " << options->trace << " (" << result->trace->size()
              << " op events; open it in chrome://tracing or ui.perfetto.dev)\n";
  }
  if (!options->dot.empty()) {
    std::string rendered;
    if (absl::Status s = loom::tools::WriteDot(*result->net, options->dot, &rendered); !s.ok()) {
      std::cerr << "loom_run: " << s.message() << "\n";
      return 1;
    }
    std::cout << "loom_run: wrote " << options->dot << (rendered.empty() ? "" : " and " + rendered) << "\n";
  }
  return 0;
}
