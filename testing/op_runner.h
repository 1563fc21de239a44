// Test helpers: run single operators through the real core (schema checks,
// kernel selection, planning) with the standard op set and the CPU plugin.
#ifndef LOOM_TESTING_OP_RUNNER_H_
#define LOOM_TESTING_OP_RUNNER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/proto/loom.pb.h"
#include "core/registry.h"
#include "core/tensor.h"
#include "gtest/gtest.h"

namespace loom {
namespace testing {

// A registry with the built-in standard op set and the CPU plugin, found in
// the test's runfiles as "loom/plugins/cpu/libloom_cpu.so" (add
// "@loom//plugins/cpu:libloom_cpu.so", in-tree "//plugins/cpu:...", to the
// test's data; loom_plugin_test does), so it works from another workspace
// too. Loaded once per process; a failure to load fails the test, naming
// the path tried and the data dependency it needs.
Registry* CpuRegistry();

// CpuRegistry() with the plugin at `path` loaded as well, once per path per
// process; fails the test if it cannot be loaded. `path` is a runfiles path,
// "<repository>/<path in it>" (e.g. "ocr_session/libsoft_shrink.so"; add the
// plugin to the test's data), or, where no such file is in the runfiles,
// relative to the test's working directory, its own repository's root
// (Loom's tests: "plugins/rnn/libloom_rnn.so").
Registry* CpuRegistryWith(const std::string& path);

// Parses an OperatorDef from protobuf text format; fails the test on error.
OperatorDef ParseOp(const std::string& text);

// Runs one operator: `inputs[i]` feeds op.input(i) (an empty input name means
// the optional input is absent and its entry is ignored). Returns the outputs
// in op.output order (an empty output name gives an empty Tensor).
absl::StatusOr<std::vector<Tensor>> RunSingleOp(const OperatorDef& op, const std::vector<Tensor>& inputs,
                                                Registry* registry = CpuRegistry());

// Random tensor with values uniform in [lo, hi] (integers are rounded), for
// any supported dtype; deterministic for a given seed.
Tensor RandomTensor(DataType dtype, Shape dims, uint32_t seed, double lo = -1.0, double hi = 1.0);

// Element i as double (any dtype).
double ElementAsDouble(const Tensor& t, int64_t i);

// Sets element i of `t` (any dtype) from a double (integers truncate).
void SetElement(Tensor& t, int64_t i, double v);

// Same dtype and shape, and |a - e| <= atol + rtol * |e| for every element
// (NaN equals NaN). The message names the first mismatch and the worst error.
::testing::AssertionResult AllClose(const Tensor& actual, const Tensor& expected, double rtol = 1e-5,
                                    double atol = 1e-6);

// Runs `op` in a net on `inputs` and checks that the schema's shape
// inference gave every output the shape the kernel produced.
void ExpectInferredShapes(const OperatorDef& op, const std::vector<Tensor>& inputs, Registry* registry = CpuRegistry());

// ` arg { name: "<name>" ints: ... } ` for op text, or "" for an empty list.
std::string IntsArg(const std::string& name, const std::vector<int64_t>& values);

}  // namespace testing
}  // namespace loom

#endif  // LOOM_TESTING_OP_RUNNER_H_
