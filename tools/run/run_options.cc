#include "tools/run/run_options.h"
#include "session/device_placement.h"

#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tools/run/failure.h"

ABSL_FLAG(int, iterations, 10, "Timed runs.");
ABSL_FLAG(int, warmup, 1, "Untimed runs before the timed ones.");
ABSL_FLAG(bool, random, false, "Generate inputs that have no file.");
ABSL_FLAG(bool, profile, false, "Print the per-op profile of the timed runs.");
ABSL_FLAG(std::string, dot, "",
          "Write the planned net (ops, tensors with dtype and shape, fused ops, device copies) as Graphviz DOT to "
          "FILE; with Graphviz's dot installed, also FILE's .svg and .png.");
ABSL_FLAG(std::string, trace, "",
          "Write a Chrome/Perfetto trace (JSON) of the timed runs to FILE: one event per op, one track per thread "
          "(the threaded RNN executor's workers included).");
ABSL_FLAG(std::string, output_dir, "", "Write each output to DIR/<name>.pb (an ONNX TensorProto: onnx.load_tensor reads it; a SequenceProto or OptionalProto for a sequence or optional); DIR is created if missing.");
ABSL_FLAG(bool, output_raw, false, "With --output_dir, also write DIR/<name>.bin (raw little-endian data).");
ABSL_FLAG(std::string, engine, "", "Ask every op for this kernel engine (e.g. DNNL, STEPNET); others use their default.");
ABSL_FLAG(std::vector<std::string>, plugin, {}, "Plugins to load after the default ones.");
ABSL_FLAG(std::vector<std::string>, input_shape, {},
          "Shapes for --random: name=d0xd1x... or name=d0,d1,... (repeatable; several inputs: x=1,3,y=2,5).");
ABSL_FLAG(std::string, device, "", "Place every op on this device: CPU, CUDA or CUDA:<id> (default: as in the model).");
ABSL_FLAG(std::string, executor, "", "sequential or multi_stream (default: the NetDef's type).");
ABSL_FLAG(int, max_streams, 0, "Streams of the multi_stream executor (0: the NetDef's arg max_streams, default 4).");
ABSL_FLAG(bool, device_fallback, true, "With --device, ops with no kernel for it stay on the CPU (else: an error).");
ABSL_FLAG(bool, preload_weights, true, "With --device on a non-host device, copy float initializers of >= 1024 elements there once.");
ABSL_FLAG(int, num_threads, 0, "Threads per kernel (0: all cores).");
ABSL_FLAG(int, seed, 1, "Seed for --random.");
ABSL_FLAG(int, show, 8, "Leading values printed per output.");
ABSL_FLAG(int64_t, max_tensor_bytes, loom::kDefaultMaxTensorBytes,
          "Bytes one tensor may take (checked at plan time and before each allocation; <= 0: no cap).");
ABSL_FLAG(int, max_nesting_depth, loom::kDefaultMaxNestingDepth,
          "Nets nested in nets (If/Loop/Scan bodies, step nets) allowed (<= 0: no limit).");
ABSL_FLAG(int64_t, max_loop_iterations, loom::kDefaultMaxLoopIterations,
          "Iterations one Loop op may run per run (<= 0: no limit).");
ABSL_FLAG(bool, plan_memory, true,
          "Memory planner: intermediates share one arena by liveness, run-time sizes come from a pool (false: every "
          "blob keeps its own memory).");
ABSL_FLAG(int, nchwc_block, -1,
          "ONNX models: keep oneDNN's blocked layout between convolutions with this block (8 or 16; with 16, dense "
          "convs run channels-last; 0: off; -1: the block this CPU prefers; off with a --device other than CPU). "
          "transforms/nchwc_layout.h.");
ABSL_FLAG(bool, winograd, true,
          "ONNX models with --nchwc_block 16: 3x3 stride-1 convs of 16 to 256 channels run oneDNN's Winograd "
          "kernels (faster, rounding differently); false: every conv runs direct. transforms/nchwc_layout.h.");
ABSL_FLAG(bool, static_shape, true,
          "The net runs one input signature (loom_run's), so initializers its kernels packed are freed after planning "
          "(NetOptions::static_shape).");
ABSL_FLAG(std::string, fpmath_mode, "strict",
          "strict, or bf16: float32 convolutions and matmuls round X and W to bfloat16 (float32 accumulation) where "
          "the CPU has AVX-512 BF16 or AMX (NetOptions::fpmath_mode, core/fpmath_mode.h).");
ABSL_FLAG(bool, memory, false,
          "Print memory figures: weights, planned arena, the same without reuse, dynamic pool high water, peak RSS.");
ABSL_FLAG(bool, poison_released_memory, false,
          "Debug: fill memory the planner lets go with 0xFF bytes (NaN), so a read after reuse shows.");

namespace loom {
namespace tools {
namespace {

// Every --input_shape value in argv, before absl parses it (absl keeps
// only the last occurrence of a flag).
std::vector<std::string> InputShapeValues(int argc, char** argv) {
  std::vector<std::string> values;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") break;
    for (const char* prefix : {"--input_shape", "-input_shape"}) {
      std::string p = prefix;
      if (a == p && i + 1 < argc) {
        values.push_back(argv[i + 1]);
      } else if (a.rfind(p + "=", 0) == 0) {
        values.push_back(a.substr(p.size() + 1));
      }
    }
  }
  return values;
}

// The --input_shape values into (name, shape). absl splits a list flag on
// commas, so "x=1,3,48,320" arrives as "x=1", "3", "48", "320": a piece
// without '=' continues the previous input's dims. Dims inside a piece may
// be separated by 'x' ("x=1x3x48x320").
absl::StatusOr<std::vector<std::pair<std::string, Shape>>> ParseInputShapes(const std::vector<std::string>& values) {
  std::vector<std::pair<std::string, Shape>> out;
  for (const std::string& value : values) {
    for (absl::string_view piece : absl::StrSplit(value, ',', absl::SkipEmpty())) {
      absl::string_view dims = piece;
      size_t eq = piece.find('=');
      if (eq != absl::string_view::npos) {
        out.emplace_back(std::string(piece.substr(0, eq)), Shape{});
        dims = piece.substr(eq + 1);
      } else if (out.empty()) {
        return Failure(absl::InvalidArgumentError(absl::StrCat("--input_shape '", value, "': expected NAME=d0xd1x... first")));
      }
      for (absl::string_view d : absl::StrSplit(dims, absl::ByAnyChar("xX"), absl::SkipEmpty())) {
        int64_t v;
        if (!absl::SimpleAtoi(d, &v) || v < 0) {
          return Failure(absl::InvalidArgumentError(
              absl::StrCat("--input_shape '", value, "': bad dim '", d, "', expected a non-negative integer")));
        }
        out.back().second.push_back(v);
      }
    }
  }
  return out;
}

// absl's --help and --helpshort list the flags of <program>.cc only; this
// file holds loom_run's.
void ListFlagsOfThisFileInHelp() {
  absl::FlagsUsageConfig config;
  config.contains_help_flags = [](absl::string_view file) { return file == __FILE__; };
  config.contains_helpshort_flags = config.contains_help_flags;
  absl::SetFlagsUsageConfig(config);
}

}  // namespace

absl::StatusOr<RunOptions> ParseRunArgs(int argc, char** argv) {
  ListFlagsOfThisFileInHelp();
  std::vector<std::string> shape_values = InputShapeValues(argc, argv);
  std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  RunOptions o;
  for (size_t i = 1; i < args.size(); ++i) {
    std::string a = args[i];
    size_t eq = a.find('=');
    if (eq != std::string::npos) {
      o.inputs.emplace_back(a.substr(0, eq), a.substr(eq + 1));
    } else if (o.model.empty()) {
      o.model = a;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unexpected argument '", a, "'"));
    }
  }
  o.iterations = absl::GetFlag(FLAGS_iterations);
  o.warmup = absl::GetFlag(FLAGS_warmup);
  o.random = absl::GetFlag(FLAGS_random) || o.model.empty();  // the default model runs on random input
  o.profile = absl::GetFlag(FLAGS_profile);
  o.output_dir = absl::GetFlag(FLAGS_output_dir);
  o.dot = absl::GetFlag(FLAGS_dot);
  o.trace = absl::GetFlag(FLAGS_trace);
  o.output_raw = absl::GetFlag(FLAGS_output_raw);
  o.engine = absl::GetFlag(FLAGS_engine);
  o.plugin = absl::GetFlag(FLAGS_plugin);
  o.device = absl::GetFlag(FLAGS_device);
  o.executor = absl::GetFlag(FLAGS_executor);
  o.max_streams = absl::GetFlag(FLAGS_max_streams);
  o.device_fallback = absl::GetFlag(FLAGS_device_fallback);
  o.preload_weights = absl::GetFlag(FLAGS_preload_weights);
  o.num_threads = absl::GetFlag(FLAGS_num_threads);
  o.seed = absl::GetFlag(FLAGS_seed);
  o.show = absl::GetFlag(FLAGS_show);
  o.max_tensor_bytes = absl::GetFlag(FLAGS_max_tensor_bytes);
  o.max_nesting_depth = absl::GetFlag(FLAGS_max_nesting_depth);
  o.max_loop_iterations = absl::GetFlag(FLAGS_max_loop_iterations);
  o.plan_memory = absl::GetFlag(FLAGS_plan_memory);
  o.static_shape = absl::GetFlag(FLAGS_static_shape);
  o.nchwc_block = absl::GetFlag(FLAGS_nchwc_block);
  o.winograd = absl::GetFlag(FLAGS_winograd);
  absl::StatusOr<FpMathMode> fpmath = ParseFpMathMode(absl::GetFlag(FLAGS_fpmath_mode));
  if (!fpmath.ok()) return absl::InvalidArgumentError(absl::StrCat("--", fpmath.status().message()));
  o.fpmath_mode = *fpmath;
  if (o.nchwc_block != -1 && o.nchwc_block != 0 && o.nchwc_block != 8 && o.nchwc_block != 16) {
    return absl::InvalidArgumentError(absl::StrCat("--nchwc_block ", o.nchwc_block, ": expected -1, 0, 8 or 16"));
  }
  o.memory = absl::GetFlag(FLAGS_memory);
  o.poison_released_memory = absl::GetFlag(FLAGS_poison_released_memory);
  if (!o.device.empty()) {
    auto d = ParseDeviceName(o.device);
    if (!d.ok()) return Failure(absl::InvalidArgumentError(absl::StrCat("--device '", o.device, "': ", d.status().message())));
    o.device_option = *d;
  }
  if (!o.executor.empty() && o.executor != "sequential" && o.executor != "multi_stream") {
    return absl::InvalidArgumentError(absl::StrCat("--executor '", o.executor, "': expected sequential or multi_stream"));
  }
  // Values absl alone saw (from --flagfile, say) count when argv has none.
  auto shapes = ParseInputShapes(shape_values.empty() ? absl::GetFlag(FLAGS_input_shape) : shape_values);
  if (!shapes.ok()) return shapes.status();
  o.input_shape = *std::move(shapes);
  return o;
}

}  // namespace tools
}  // namespace loom
