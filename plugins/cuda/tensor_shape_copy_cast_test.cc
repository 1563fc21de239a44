// CUDA tensor family (data movement) against the CPU kernels on random
// inputs: Transpose, Concat, Split, Slice, Reshape, Flatten, Squeeze,
// Unsqueeze, Gather, Cast, Where, Expand; every dtype for the byte-moving
// ops, the attribute forms of the older opsets, negative axes, zero-size
// dims, rank 0, and error cases. Data movement must be bit-exact, so the
// outputs are compared byte for byte.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "plugins/cpu/kernel_test_util.h"
#include "plugins/cuda/cuda_test_util.h"

namespace loom {
namespace {

using kernel_test::AllTypes;
using testing::IntsArg;
using testing::ParseOp;
using testing::RandomTensor;
using testing::RunOnCuda;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

// The dtypes the CUDA Cast converts between.
const std::vector<DataType>& CastTypes() {
  static const std::vector<DataType> t = {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16,
                                          DataType::kBFloat16, DataType::kInt8,   DataType::kUInt8,
                                          DataType::kInt32,   DataType::kInt64,   DataType::kBool};
  return t;
}

Tensor I64(std::vector<int64_t> v) { return Tensor::FromVector<int64_t>({static_cast<int64_t>(v.size())}, v); }
Tensor I32(std::vector<int32_t> v) { return Tensor::FromVector<int32_t>({static_cast<int64_t>(v.size())}, v); }

// Random values that mean something in every dtype (bool: about half true).
Tensor Random(DataType dt, Shape dims, uint32_t seed) { return RandomTensor(dt, std::move(dims), seed, -100, 100); }

// Same dtype, dims and bytes; with `any_nan`, any NaN also matches any NaN
// (NaN payloads may differ between the CPU's float16/bfloat16 rounding and
// CUDA's).
::testing::AssertionResult SameBytes(const Tensor& actual, const Tensor& expected, bool any_nan = false) {
  if (actual.dtype() != expected.dtype() || actual.dims() != expected.dims()) {
    return ::testing::AssertionFailure() << "expected " << expected.DebugString() << ", found " << actual.DebugString();
  }
  const size_t es = DataTypeSize(actual.dtype());
  for (int64_t i = 0; i < actual.num_elements(); ++i) {
    if (std::memcmp(static_cast<const char*>(actual.raw_data()) + i * es,
                    static_cast<const char*>(expected.raw_data()) + i * es, es) != 0) {
      if (any_nan && std::isnan(actual.ElementAsDouble(i)) && std::isnan(expected.ElementAsDouble(i))) continue;
      return ::testing::AssertionFailure() << actual.DebugString() << ": first difference at flat index " << i
                                           << ": found " << actual.ElementAsDouble(i) << ", expected "
                                           << expected.ElementAsDouble(i);
    }
  }
  return ::testing::AssertionSuccess();
}

// Runs `text` on CPU and on CUDA and expects every output bit-exact.
void ExpectSame(const std::string& text, const std::vector<Tensor>& inputs, bool any_nan = false) {
  SCOPED_TRACE(text);
  OperatorDef op = ParseOp(text);
  auto cpu = testing::RunSingleOp(op, inputs, testing::CudaRegistry());
  ASSERT_TRUE(cpu.ok()) << "CPU: " << cpu.status();
  auto gpu = RunOnCuda(op, inputs);
  ASSERT_TRUE(gpu.ok()) << "CUDA: " << gpu.status();
  ASSERT_EQ(cpu->size(), gpu->size());
  for (size_t i = 0; i < cpu->size(); ++i) {
    EXPECT_TRUE(SameBytes((*gpu)[i], (*cpu)[i], any_nan)) << "output " << i << " of " << inputs[0].DebugString();
  }
}

// Expects the CUDA run to fail (and the CPU run too: the same error cases).
void ExpectError(const std::string& text, const std::vector<Tensor>& inputs) {
  SCOPED_TRACE(text);
  OperatorDef op = ParseOp(text);
  EXPECT_FALSE(testing::RunSingleOp(op, inputs, testing::CudaRegistry()).ok());
  EXPECT_FALSE(RunOnCuda(op, inputs).ok());
}

TEST(CudaTensorTest, Transpose) {
  LOOM_SKIP_WITHOUT_GPU();
  const std::string op = "type: 'Transpose' input: 'x' output: 'y'";
  for (DataType dt : AllTypes()) {
    const Tensor x = Random(dt, {2, 3, 4, 5}, 1);
    ExpectSame(op, {x});
    ExpectSame(op + IntsArg("perm", {0, 2, 1, 3}), {x});
    ExpectSame(op + IntsArg("perm", {3, 1, 0, 2}), {x});
    ExpectSame(op + IntsArg("perm", {-1, 0, -2, 1}), {x});
    ExpectSame(op + IntsArg("perm", {2, 0, 3, 1}), {Random(dt, {1, 3, 1, 4}, 2)});
  }
  ExpectSame(op + IntsArg("perm", {2, 0, 1}), {Random(DataType::kFloat32, {2, 0, 3}, 3)});
  ExpectSame(op, {Random(DataType::kFloat32, {}, 4)});
  ExpectSame(op, {Random(DataType::kFloat16, {67, 129}, 5)});
  ExpectSame(op + IntsArg("perm", {0, 1}), {Random(DataType::kInt64, {5, 7}, 6)});  // a plain copy
  ExpectSame(op, {Random(DataType::kFloat32, {2, 1, 3, 2, 1, 2, 3, 2}, 7)});  // rank 8
  ExpectSame(op + IntsArg("perm", {8, 0, 7, 1, 6, 2, 5, 3, 4}),
             {Random(DataType::kInt8, {2, 3, 2, 3, 2, 3, 2, 3, 2}, 8)});  // 9 dims after merging: launches per leading index
  ExpectError(op + IntsArg("perm", {0, 0}), {Random(DataType::kFloat32, {2, 3}, 9)});
}

TEST(CudaTensorTest, Concat) {
  LOOM_SKIP_WITHOUT_GPU();
  auto concat = [](int64_t axis, int inputs) {
    std::string s = "type: 'Concat' output: 'y' arg { name: 'axis' i: " + std::to_string(axis) + " }";
    for (int i = 0; i < inputs; ++i) s += " input: 'x" + std::to_string(i) + "'";
    return s;
  };
  for (DataType dt : AllTypes()) {
    ExpectSame(concat(1, 4), {Random(dt, {2, 3, 4}, 1), Random(dt, {2, 1, 4}, 2), Random(dt, {2, 0, 4}, 3),
                              Random(dt, {2, 5, 4}, 4)});
    ExpectSame(concat(-1, 2), {Random(dt, {2, 3, 1}, 5), Random(dt, {2, 3, 4}, 6)});
    ExpectSame(concat(0, 2), {Random(dt, {1, 3}, 7), Random(dt, {4, 3}, 8)});
  }
  ExpectSame(concat(0, 1), {Random(DataType::kFloat32, {3, 2}, 9)});
  ExpectSame(concat(-2, 3), {Random(DataType::kFloat16, {2, 0, 3}, 10), Random(DataType::kFloat16, {2, 2, 3}, 11),
                             Random(DataType::kFloat16, {2, 1, 3}, 12)});
  ExpectError(concat(0, 2), {Random(DataType::kFloat32, {2, 3}, 13), Random(DataType::kFloat32, {2, 4}, 14)});
  ExpectError(concat(2, 2), {Random(DataType::kFloat32, {2, 3}, 15), Random(DataType::kFloat32, {2, 3}, 16)});
}

TEST(CudaTensorTest, Split) {
  LOOM_SKIP_WITHOUT_GPU();
  for (DataType dt : AllTypes()) {
    const Tensor x = Random(dt, {4, 7, 3}, 1);
    // Equal parts: ceil(7 / 3) = 3, 3, 1.
    ExpectSame("type: 'Split' input: 'x' output: 'a' output: 'b' output: 'c' arg { name: 'axis' i: 1 }", {x});
    ExpectSame("type: 'Split' input: 'x' input: 's' output: 'a' output: 'b' arg { name: 'axis' i: -2 }",
               {x, I64({2, 5})});
    ExpectSame("type: 'Split' input: 'x' output: 'a' output: 'b' output: 'c'" + IntsArg("split", {1, 1, 2}), {x});
    ExpectSame("type: 'Split' input: 'x' output: 'a' output: 'b' output: 'c' arg { name: 'axis' i: 2 }"
               " arg { name: 'num_outputs' i: 3 }",
               {x});
  }
  ExpectSame("type: 'Split' input: 'x' input: 's' output: 'a' output: 'b' output: 'c' arg { name: 'axis' i: 0 }",
             {Random(DataType::kFloat32, {5, 2}, 2), I64({0, 5, 0})});
  ExpectError("type: 'Split' input: 'x' input: 's' output: 'a' output: 'b' arg { name: 'axis' i: 1 }",
              {Random(DataType::kFloat32, {4, 7}, 3), I64({2, 2})});
  ExpectError("type: 'Split' input: 'x' output: 'a' output: 'b' arg { name: 'num_outputs' i: 3 }",
              {Random(DataType::kFloat32, {6}, 4)});
}

TEST(CudaTensorTest, Slice) {
  LOOM_SKIP_WITHOUT_GPU();
  const std::string op5 = "type: 'Slice' input: 'x' input: 'b' input: 'e' input: 'a' input: 's' output: 'y'";
  const std::string op4 = "type: 'Slice' input: 'x' input: 'b' input: 'e' input: 'a' output: 'y'";
  const std::string op3 = "type: 'Slice' input: 'x' input: 'b' input: 'e' output: 'y'";
  const std::string no_axes = "type: 'Slice' input: 'x' input: 'b' input: 'e' input: '' input: 's' output: 'y'";
  for (DataType dt : AllTypes()) {
    const Tensor x = Random(dt, {5, 6, 7}, 1);
    ExpectSame(op4, {x, I64({1, -4}), I64({4, 100}), I64({0, 2})});
    ExpectSame(op5, {x, I64({-1}), I64({kMin}), I64({1}), I64({-2})});
    ExpectSame(op5, {x, I64({1, 0, 6}), I64({kMax, 5, 0}), I64({1, 0, 2}), I64({2, 3, -3})});
  }
  const Tensor x = Random(DataType::kFloat32, {5, 6, 7}, 2);
  ExpectSame(op5, {x, I64({10}), I64({-10}), I64({0}), I64({-1})});  // clamped backward walk: all of dim 0
  ExpectSame(op5, {x, I64({-100}), I64({100}), I64({-1}), I64({kMax})});  // one element
  ExpectSame(op5, {x, I32({4, -1}), I32({1, -7}), I32({-3, 2}), I32({-1, -1})});
  ExpectSame(op3, {x, I64({1, 2, 3}), I64({3, 4, 5})});
  ExpectSame(op3, {x, I32({3}), I32({1})});  // empty result
  ExpectSame(no_axes, {x, I64({4, 5}), I64({0, -kMax}), Tensor(), I64({-1, -2})});
  ExpectSame(op5, {Random(DataType::kFloat16, {0, 3}, 3), I64({0}), I64({2}), I64({1}), I64({1})});
  // Opset 1: attributes.
  ExpectSame("type: 'Slice' input: 'x' output: 'y'" + IntsArg("starts", {1, -3}) + IntsArg("ends", {kMax, -1}) +
                 IntsArg("axes", {2, 0}),
             {x});
  ExpectSame("type: 'Slice' input: 'x' output: 'y'" + IntsArg("starts", {0, 2}) + IntsArg("ends", {2, 3}),
             {Random(DataType::kInt8, {4, 5}, 4)});
  ExpectError(op5, {x, I64({0}), I64({3}), I64({0}), I64({0})});                      // step 0
  ExpectError(op4, {x, I64({0, 0}), I64({3, 3}), I64({1, -2})});                        // repeated axis
  ExpectError(op4, {x, I64({0}), I64({3}), I64({3})});                                  // axis out of range
  ExpectError(op3, {x, I64({0, 1}), I64({3})});                                         // lengths differ
}

TEST(CudaTensorTest, ReshapeFlattenSqueezeUnsqueeze) {
  LOOM_SKIP_WITHOUT_GPU();
  const std::string reshape = "type: 'Reshape' input: 'x' input: 's' output: 'y'";
  for (DataType dt : AllTypes()) {
    const Tensor x = Random(dt, {2, 3, 4}, 1);
    ExpectSame(reshape, {x, I64({0, -1})});
    ExpectSame(reshape, {x, I64({4, 0, 2})});
    ExpectSame("type: 'Flatten' input: 'x' output: 'y' arg { name: 'axis' i: 2 }", {x});
    ExpectSame("type: 'Squeeze' input: 'x' input: 'a' output: 'y'", {Random(dt, {1, 3, 1, 4}, 2), I64({0, -2})});
    ExpectSame("type: 'Unsqueeze' input: 'x' input: 'a' output: 'y'", {x, I64({0, -1})});
  }
  const Tensor x = Random(DataType::kFloat32, {2, 3, 4}, 3);
  ExpectSame(reshape, {x, I64({-1})});
  ExpectSame(reshape, {x, I64({2, -1, 2})});
  ExpectSame(reshape + " arg { name: 'allowzero' i: 1 }", {Random(DataType::kFloat32, {0, 3}, 4), I64({3, 0})});
  ExpectSame(reshape, {Random(DataType::kFloat32, {}, 5), I64({1, 1})});
  ExpectSame(reshape, {Random(DataType::kFloat32, {1}, 6), I64({})});  // to rank 0
  ExpectError(reshape, {x, I64({5, -1})});
  ExpectError(reshape, {x, I64({-1, -1})});
  ExpectError(reshape + " arg { name: 'allowzero' i: 1 }", {x, I64({0, -1})});
  for (int64_t axis : {0, 1, 3, -1, -3}) {
    ExpectSame("type: 'Flatten' input: 'x' output: 'y' arg { name: 'axis' i: " + std::to_string(axis) + " }", {x});
  }
  ExpectError("type: 'Flatten' input: 'x' output: 'y' arg { name: 'axis' i: 4 }", {x});
  const Tensor ones = Random(DataType::kFloat16, {1, 3, 1, 4, 1}, 7);
  ExpectSame("type: 'Squeeze' input: 'x' output: 'y'", {ones});
  ExpectSame("type: 'Squeeze' input: 'x' output: 'y'" + IntsArg("axes", {2}), {ones});
  ExpectSame("type: 'Squeeze' input: 'x' input: 'a' output: 'y'", {ones, I64({-1, 0})});
  ExpectError("type: 'Squeeze' input: 'x' input: 'a' output: 'y'", {ones, I64({1})});
  ExpectSame("type: 'Unsqueeze' input: 'x' output: 'y'" + IntsArg("axes", {1, -1}), {x});
  ExpectSame("type: 'Unsqueeze' input: 'x' input: 'a' output: 'y'", {Random(DataType::kInt64, {}, 8), I64({0})});
  ExpectSame("type: 'Unsqueeze' input: 'x' input: 'a' output: 'y'", {Random(DataType::kFloat32, {0, 2}, 9), I64({1})});
  ExpectError("type: 'Unsqueeze' input: 'x' input: 'a' output: 'y'", {x, I64({0, -5})});  // both axis 0
  ExpectError("type: 'Unsqueeze' input: 'x' input: 'a' output: 'y'", {x, I64({5})});
}

TEST(CudaTensorTest, Gather) {
  LOOM_SKIP_WITHOUT_GPU();
  auto gather = [](int64_t axis) {
    return "type: 'Gather' input: 'x' input: 'i' output: 'y' arg { name: 'axis' i: " + std::to_string(axis) + " }";
  };
  for (DataType dt : AllTypes()) {
    const Tensor x = Random(dt, {5, 4, 3}, 1);
    ExpectSame(gather(0), {x, Tensor::FromVector<int64_t>({2, 2}, {0, -1, 4, 2})});
    ExpectSame(gather(1), {x, I32({3, -4, 0, 3})});
    ExpectSame(gather(-1), {x, Tensor::FromVector<int64_t>({}, {2})});
  }
  const Tensor x = Random(DataType::kFloat32, {5, 4, 3}, 2);
  ExpectSame(gather(1), {x, Tensor::FromVector<int32_t>({0}, {})});
  ExpectSame(gather(0), {Random(DataType::kFloat16, {300, 65}, 3), RandomTensor(DataType::kInt64, {17, 9}, 4, -300, 299)});
  ExpectError(gather(0), {x, I64({0, 5})});
  ExpectError(gather(1), {x, I32({-5})});
  ExpectError(gather(3), {x, I64({0})});
}

TEST(CudaTensorTest, CastEveryPair) {
  LOOM_SKIP_WITHOUT_GPU();
  for (DataType from : CastTypes()) {
    const Tensor x = RandomTensor(from, {3, 37}, 1, -300, 300);
    for (DataType to : CastTypes()) {
      ExpectSame("type: 'Cast' input: 'x' output: 'y' arg { name: 'to' i: " + std::to_string(static_cast<int>(to)) +
                     " }",
                 {x});
    }
  }
  ExpectSame("type: 'Cast' input: 'x' output: 'y' arg { name: 'to' i: 1 }", {Random(DataType::kInt64, {0, 4}, 2)});
}

TEST(CudaTensorTest, CastSpecialValues) {
  LOOM_SKIP_WITHOUT_GPU();
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> f = {0.f,   -0.f,   0.5f,   -0.5f, 1.5f,   -1.5f, 2.5f,   127.9f, 128.f, 255.5f, 256.f,
                                -1.f,  -129.f, 3e9f,   -3e9f, 1e20f,  -1e20f, 65504.f, 65520.f, 1e-8f, 6e-8f,
                                inf,   -inf,   nan,    3.3895314e38f};
  std::vector<double> d(f.begin(), f.end());
  d.push_back(1.0000000001);
  d.push_back(9.3e18);
  d.push_back(-9.3e18);
  const Tensor xf = Tensor::FromVector<float>({static_cast<int64_t>(f.size())}, f);
  const Tensor xd = Tensor::FromVector<double>({static_cast<int64_t>(d.size())}, d);
  const std::vector<int64_t> i = {0, 1, -1, 127, 128, 255, 256, -129, 65535, 16777217, 2147483648LL, kMax, kMin};
  const Tensor xi = I64(i);
  for (DataType to : CastTypes()) {
    const std::string op = "type: 'Cast' input: 'x' output: 'y' arg { name: 'to' i: " +
                           std::to_string(static_cast<int>(to)) + " }";
    ExpectSame(op, {xf}, true);
    ExpectSame(op, {xd}, true);
    ExpectSame(op, {xi}, true);
  }
}

TEST(CudaTensorTest, Where) {
  LOOM_SKIP_WITHOUT_GPU();
  const std::string op = "type: 'Where' input: 'c' input: 'x' input: 'y' output: 'z'";
  for (DataType dt : AllTypes()) {
    ExpectSame(op, {Random(DataType::kBool, {2, 1, 4}, 1), Random(dt, {3, 1}, 2), Random(dt, {2, 3, 4}, 3)});
    ExpectSame(op, {Random(DataType::kBool, {5}, 4), Random(dt, {}, 5), Random(dt, {5}, 6)});
  }
  ExpectSame(op, {Random(DataType::kBool, {}, 7), Random(DataType::kFloat32, {}, 8), Random(DataType::kFloat32, {}, 9)});
  ExpectSame(op, {Random(DataType::kBool, {0, 3}, 10), Random(DataType::kFloat32, {3}, 11),
                  Random(DataType::kFloat32, {1, 1}, 12)});
  ExpectSame(op, {Random(DataType::kBool, {64, 1}, 13), Random(DataType::kFloat16, {1, 300}, 14),
                  Random(DataType::kFloat16, {64, 300}, 15)});
  ExpectError(op, {Random(DataType::kBool, {2, 3}, 16), Random(DataType::kFloat32, {4}, 17),
                   Random(DataType::kFloat32, {1}, 18)});
}

TEST(CudaTensorTest, Expand) {
  LOOM_SKIP_WITHOUT_GPU();
  const std::string op = "type: 'Expand' input: 'x' input: 's' output: 'y'";
  for (DataType dt : AllTypes()) {
    ExpectSame(op, {Random(dt, {3, 1}, 1), I64({2, 1, 4})});
    ExpectSame(op, {Random(dt, {2, 1, 4}, 2), I64({3, 1})});
  }
  const Tensor x = Random(DataType::kFloat32, {2, 3, 4}, 3);
  ExpectSame(op, {x, I64({4})});
  ExpectSame(op, {x, I64({1, 1})});
  ExpectSame(op, {Random(DataType::kFloat32, {}, 4), I64({2, 3})});
  ExpectSame(op, {Random(DataType::kFloat32, {1}, 5), I64({0})});
  ExpectSame(op, {Random(DataType::kFloat16, {1, 1, 1, 1, 1, 1, 1, 1, 3}, 6), I64({2, 1, 2, 1, 2, 1, 2, 1, 3})});
  ExpectError(op, {Random(DataType::kFloat32, {2, 3}, 7), I64({4})});
}

// Random ranks (0-5), dims (0-4, 1 often), permutations, slices and splits,
// for the strided copy's dim merging and offsets.
TEST(CudaTensorTest, RandomShapes) {
  LOOM_SKIP_WITHOUT_GPU();
  std::mt19937 gen(7);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(gen); };
  const DataType types[] = {DataType::kFloat32, DataType::kFloat16, DataType::kInt8, DataType::kFloat64};
  for (int round = 0; round < 60; ++round) {
    const DataType dt = types[round % 4];
    const int64_t rank = pick(round < 4 ? 0 : 1, 5);
    Shape dims;
    for (int64_t d = 0; d < rank; ++d) dims.push_back(pick(0, 9) < 2 ? 1 : pick(0, 9) == 0 ? 0 : pick(2, 4));
    const Tensor x = Random(dt, dims, static_cast<uint32_t>(round));
    std::vector<int64_t> perm(rank);
    for (int64_t d = 0; d < rank; ++d) perm[d] = d;
    std::shuffle(perm.begin(), perm.end(), gen);
    ExpectSame("type: 'Transpose' input: 'x' output: 'y'" + IntsArg("perm", perm), {x});
    if (rank == 0) continue;
    std::vector<int64_t> starts, ends, axes, steps;
    for (int64_t d = 0; d < rank; ++d) {
      if (pick(0, 2) == 0) continue;
      axes.push_back(pick(0, 1) ? d : d - rank);
      starts.push_back(pick(-6, 6));
      ends.push_back(pick(-6, 6));
      steps.push_back(pick(0, 1) ? pick(1, 3) : -pick(1, 3));
    }
    ExpectSame("type: 'Slice' input: 'x' input: 'b' input: 'e' input: 'a' input: 's' output: 'y'",
               {x, I64(starts), I64(ends), I64(axes), I64(steps)});
    const int64_t axis = pick(0, rank - 1);
    Shape other = dims;
    other[axis] = pick(0, 3);
    ExpectSame("type: 'Concat' input: 'x' input: 'z' input: 'x' output: 'y' arg { name: 'axis' i: " +
                   std::to_string(axis - (pick(0, 1) ? rank : 0)) + " }",
               {x, Random(dt, other, 1000 + round), x});
    const int64_t first = pick(0, dims[axis]);
    ExpectSame("type: 'Split' input: 'x' input: 's' output: 'a' output: 'b' arg { name: 'axis' i: " +
                   std::to_string(axis) + " }",
               {x, I64({first, dims[axis] - first})});
    std::vector<int64_t> idx = {pick(0, 5), pick(-5, 5)};
    if (dims[axis] > 0) {
      for (int64_t& i : idx) i = i % dims[axis];
      ExpectSame("type: 'Gather' input: 'x' input: 'i' output: 'y' arg { name: 'axis' i: " + std::to_string(axis) +
                     " }",
                 {x, I64(idx)});
    }
    Shape bdims = dims;  // a broadcastable partner: some dims 1, maybe fewer
    for (int64_t& d : bdims) {
      if (pick(0, 2) == 0) d = 1;
    }
    bdims.erase(bdims.begin(), bdims.begin() + pick(0, rank));
    ExpectSame("type: 'Where' input: 'c' input: 'x' input: 'y' output: 'z'",
               {Random(DataType::kBool, bdims, 2000 + round), x, Random(dt, bdims, 3000 + round)});
    ExpectSame("type: 'Expand' input: 'x' input: 's' output: 'y'", {Random(dt, bdims, 4000 + round), I64(dims)});
  }
}

}  // namespace
}  // namespace loom
