// Helpers shared by the CPU kernel tests (plugins/cpu/*_test.cc): tensor
// builders, index arithmetic for naive references, run-and-check wrappers
// and operator-text snippets. Tests pull them in with
// `using namespace loom::kernel_test;` inside their anonymous namespace; a
// test's own function of the same name hides the shared one.
#ifndef LOOM_PLUGINS_CPU_KERNEL_TEST_UTIL_H_
#define LOOM_PLUGINS_CPU_KERNEL_TEST_UTIL_H_

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "core/proto/loom.pb.h"
#include "core/tensor.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"

namespace loom {
namespace kernel_test {

using testing::AllClose;
using testing::CpuRegistry;
using testing::ExpectInferredShapes;
using testing::IntsArg;
using testing::ParseOp;
using testing::RandomTensor;
using testing::RunSingleOp;
using testing::SetElement;

// Every dtype the standard op set knows.
const std::vector<DataType>& AllTypes();

// The floating-point dtypes, and the tolerance a test on each allows.
extern const DataType kFloatTypes[4];
double Tol(DataType dt);


// A tensor of `dt` and `shape` holding `values` (converted as SetElement).
Tensor Make(DataType dt, const Shape& shape, const std::vector<double>& values);

// y[i] = f(x[i]), same dtype and dims (converted as SetElement).
Tensor Map(const Tensor& x, const std::function<double(double)>& f);

// Every element as double.
std::vector<double> Values(const Tensor& t);

// `t`'s values as a tensor of `dt` (float32 against float64 references).
Tensor Cast(DataType dt, const Tensor& t);

Tensor F32(Shape dims, std::vector<float> v);
// A 1-D int64 tensor.
Tensor I64(std::vector<int64_t> v);
// A string tensor of `dims` holding `v` (row-major).
Tensor Strings(Shape dims, std::vector<std::string> v);

// Row-major multi-index of a flat index, and back.
Shape Unravel(int64_t flat, const Shape& dims);
int64_t Ravel(const Shape& idx, const Shape& dims);

// A tensor of `dims` whose element at multi-index o is x's element at
// src(o) (a flat index), copied as bytes.
template <typename F>
Tensor Gather(const Tensor& x, const Shape& dims, F src) {
  Tensor y = Tensor::Zeros(x.dtype(), dims);
  const size_t es = DataTypeSize(x.dtype());
  for (int64_t i = 0; i < y.num_elements(); ++i) {
    std::memcpy(y.data<char>() + i * es, x.data<char>() + src(Unravel(i, dims)) * es, es);
  }
  return y;
}

// ---- Naive reductions
// A reduction over `axes` (all when empty; negative ones count from the back)
// of a tensor of `dims`: which dims it folds, the output dims (folded ones
// as 1 with keepdims, else dropped) and the dims it keeps.
struct Reduction {
  std::vector<bool> red;
  Shape out, kept;
  // The flat index into `kept` of input element i (row-major over `dims`).
  int64_t OutIndex(int64_t i, const Shape& dims) const;
};
Reduction ReductionOf(const Shape& dims, std::vector<int64_t> axes, bool keepdims);

// ---- Naive Conv/Pool references
// `v`, or n ones when it is empty (an absent strides/dilations attribute).
std::vector<int64_t> OnesIfEmpty(const std::vector<int64_t>& v, size_t n);
// Prepends `fill`s so that 1-D..3-D windows share one 3-D loop.
std::vector<int64_t> To3(std::vector<int64_t> v, int64_t fill);
// auto_pad SAME_UPPER / SAME_LOWER on one spatial axis of `in` elements,
// window extent `ek` and stride `s`: sets the output size and the padding
// before and after, and returns true; false (nothing set) for other auto_pads.
bool SamePads(const std::string& auto_pad, int64_t in, int64_t ek, int64_t s, int64_t* out, int64_t* pb, int64_t* pe);

// Same dtype, dims and bytes.
::testing::AssertionResult SameTensor(const Tensor& actual, const Tensor& expected);

// Runs op and returns output 0; fails the test (and returns an empty tensor)
// on error.
Tensor Run1(const OperatorDef& op, const std::vector<Tensor>& inputs);

// Expects `op` to fail with a message containing `part` (every one of
// `parts`).
void ExpectError(const OperatorDef& op, const std::vector<Tensor>& inputs, const char* part);
void ExpectError(const OperatorDef& op, const std::vector<Tensor>& inputs, const std::vector<std::string>& parts);

// ` arg { name: "<name>" i: <v> } `, ` arg { name: "<name>" f: <v> } ` for op text.
std::string IntArg(const std::string& name, int64_t v);
std::string FloatArg(const std::string& name, double v);
// ` ints: a ints: b ...`
std::string IntsText(const std::vector<int64_t>& v);

}  // namespace kernel_test
}  // namespace loom

#endif  // LOOM_PLUGINS_CPU_KERNEL_TEST_UTIL_H_
