// loom_run's command line: the model, the input files and every flag, read
// into one struct so that running and reporting never touch absl flags.
#ifndef LOOM_TOOLS_RUN_RUN_OPTIONS_H_
#define LOOM_TOOLS_RUN_RUN_OPTIONS_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/fpmath_mode.h"
#include "core/limits.h"
#include "core/proto/loom.pb.h"
#include "core/tensor.h"

namespace loom {
namespace tools {

// The positional arguments, then one field per flag, with the flag's name
// and default.
struct RunOptions {
  // MODEL: a NetDef (binary or text) or an ONNX model (*.onnx). Empty: the
  // default model that ships with Loom, on random input (`random` is set).
  std::string model;
  // name=path arguments: TensorProto files (Loom's or ONNX's), in order.
  std::vector<std::pair<std::string, std::string>> inputs;

  int iterations = 10;  // timed runs, as given (at least one runs)
  int warmup = 1;       // untimed runs before them
  bool random = false;  // generate the inputs that have no file
  bool profile = false;
  std::string output_dir;  // write each output to DIR/<name>.pb ("": none)
  std::string dot;         // write the planned net as Graphviz DOT here ("": none)
  std::string trace;       // write a Chrome trace of the timed runs here ("": none)
  bool output_raw = false; // also DIR/<name>.bin
  std::string engine;      // asked of every op ("": each op's own)
  std::vector<std::string> plugin;  // loaded after the default ones
  // --input_shape, every occurrence, as (input name, dims) in order.
  std::vector<std::pair<std::string, Shape>> input_shape;
  std::string device;  // as given ("CUDA:1"); "": as in the model
  std::optional<DeviceOption> device_option;  // `device` parsed, if given
  std::string executor;  // "", "sequential" or "multi_stream"
  int max_streams = 0;   // 0: the NetDef's
  bool device_fallback = true;
  bool preload_weights = true;
  int num_threads = 0;  // per kernel; 0: all cores
  int seed = 1;         // of the first --random input (+1 per input)
  int show = 8;         // leading values printed per output
  // Limits against hostile models (NetOptions, core/limits.h); <= 0: none.
  int64_t max_tensor_bytes = kDefaultMaxTensorBytes;
  int max_nesting_depth = kDefaultMaxNestingDepth;
  int64_t max_loop_iterations = kDefaultMaxLoopIterations;
  // Memory planning (NetOptions::plan_memory, poison_released_memory) and
  // the --memory report.
  bool plan_memory = true;
  bool static_shape = true;  // NetOptions::static_shape: one signature, packed initializers freed
  int nchwc_block = -1;      // OptimizeOptions::nchwc_block for ONNX models; -1: the CPU's default
  bool winograd = true;     // OptimizeOptions::winograd for ONNX models
  FpMathMode fpmath_mode = FpMathMode::kStrict;  // NetOptions::fpmath_mode
  bool memory = false;
  bool poison_released_memory = false;
};

// Reads loom_run's command line (argv[0] is the program). Flags go through
// absl::ParseCommandLine, which sets the process's absl flags, handles
// --help and --flagfile, and exits with a message on an unknown flag or an
// unparsable value, as every absl tool does; every --input_shape occurrence
// counts (absl alone keeps the last). Errors, INVALID_ARGUMENT: an argument
// after MODEL that is not name=path; a --device other than TYPE or
// TYPE:<id>, an --executor other than sequential or multi_stream, a
// malformed --input_shape, each naming the flag, its value, what was
// expected and what was found. The message is the whole line that loom_run
// prints after "loom_run: " (failure.h).
absl::StatusOr<RunOptions> ParseRunArgs(int argc, char** argv);

}  // namespace tools
}  // namespace loom

#endif  // LOOM_TOOLS_RUN_RUN_OPTIONS_H_
