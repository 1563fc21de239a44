// Pad, DepthToSpace and SpaceToDepth against naive references on random
// inputs for every dtype; known values; error cases (a non-OK status, never
// a crash).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "core/proto_io.h"
#include "testing/op_runner.h"
#include "plugins/cpu/kernel_test_util.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

// ---- Pad -----------------------------------------------------------------------------
// Source index of output index o on an axis of size n padded by `begin`, by
// the definition of each mode (reflect bounces off both ends until inside);
// -1 for the constant.
int64_t PadSource(int64_t o, int64_t begin, int64_t n, const std::string& mode) {
  int64_t j = o - begin;
  if (j >= 0 && j < n) return j;
  if (mode == "constant") return -1;
  if (mode == "edge") return j < 0 ? 0 : n - 1;
  if (mode == "wrap") {
    while (j < 0) j += n;
    while (j >= n) j -= n;
    return j;
  }
  if (n == 1) return 0;
  while (j < 0 || j >= n) j = j < 0 ? -j : 2 * (n - 1) - j;
  return j;
}

TEST(Pad, MatchesNaiveEveryModeAndDtype) {
  struct Case { Shape in; std::vector<int64_t> pads, axes; };  // axes empty: all
  const std::vector<Case> cases = {
      {{}, {}, {}},
      {{5}, {2, 3}, {}},
      {{3, 4}, {1, 0, 2, 3}, {}},
      {{3, 4}, {-1, 2, 0, -2}, {}},      // crop and pad
      {{2, 3, 4}, {3, 5}, {-1}},          // one negative axis; pad beyond the size
      {{2, 3, 4}, {1, 1, 2, 0}, {2, 0}},
      {{2, 0, 3}, {1, 0, 0, 1}, {0, 2}},  // zero-size dim not padded
      {{1, 3}, {2, 1, 2, 1}, {}},         // size-1 axis padded
  };
  uint32_t seed = 600;
  for (const std::string mode : {"constant", "reflect", "edge", "wrap"}) {
    for (DataType dt : AllTypes()) {
      for (const Case& c : cases) {
        const size_t rank = c.in.size();
        std::vector<int64_t> axes = c.axes;
        if (axes.empty()) for (size_t i = 0; i < rank; ++i) axes.push_back(static_cast<int64_t>(i));
        std::vector<int64_t> begin(rank, 0), out = c.in;
        for (size_t a = 0; a < axes.size(); ++a) {
          const size_t ax = static_cast<size_t>(axes[a] < 0 ? axes[a] + static_cast<int64_t>(rank) : axes[a]);
          begin[ax] = c.pads[a];
          out[ax] += c.pads[a] + c.pads[a + axes.size()];
        }
        Tensor x = RandomTensor(dt, c.in, seed++, -9, 9);
        Tensor cv = RandomTensor(dt, {}, seed++, -9, 9);
        std::string text = "type: \"Pad\" input: \"x\" input: \"p\" input: \"c\" output: \"y\" "
                           "arg { name: \"mode\" s: \"" + mode + "\" }";
        std::vector<Tensor> inputs = {x, I64(c.pads), cv};
        if (!c.axes.empty()) {
          text = "type: \"Pad\" input: \"x\" input: \"p\" input: \"c\" input: \"a\" output: \"y\" "
                 "arg { name: \"mode\" s: \"" + mode + "\" }";
          inputs.push_back(Tensor::FromVector<int32_t>({static_cast<int64_t>(c.axes.size())},
                                                       std::vector<int32_t>(c.axes.begin(), c.axes.end())));
        }
        Tensor y = Run1(ParseOp(text), inputs);
        Tensor expected = Tensor::Zeros(dt, out);
        const size_t es = DataTypeSize(dt);
        for (int64_t f = 0; f < expected.num_elements(); ++f) {
          const Shape o = Unravel(f, out);
          Shape i(rank);
          bool fill = false;
          for (size_t k = 0; k < rank; ++k) {
            i[k] = PadSource(o[k], begin[k], c.in[k], mode);
            fill = fill || i[k] < 0;
          }
          std::memcpy(expected.data<char>() + f * es, fill ? cv.data<char>() : x.data<char>() + Ravel(i, c.in) * es, es);
        }
        EXPECT_TRUE(SameTensor(y, expected)) << mode << " " << DataTypeName(dt) << " " << ShapeToString(c.in)
                                             << " pads " << ShapeToString(c.pads);
      }
    }
  }
}

TEST(Pad, KnownValuesAndOpset2Attributes) {
  Tensor x = Tensor::FromVector<float>({3, 2}, {1.0f, 1.2f, 2.3f, 3.4f, 4.5f, 5.7f});
  // The ONNX reflect and edge examples.
  Tensor r = Run1(ParseOp(R"(type: "Pad" input: "x" input: "p" output: "y" arg { name: "mode" s: "reflect" })"),
                  {x, I64({0, 2, 0, 0})});
  EXPECT_TRUE(SameTensor(r, Tensor::FromVector<float>({3, 4}, {1.0f, 1.2f, 1.0f, 1.2f, 2.3f, 3.4f, 2.3f, 3.4f,
                                                               4.5f, 5.7f, 4.5f, 5.7f})));
  Tensor e = Run1(ParseOp(R"(type: "Pad" input: "x" input: "p" output: "y" arg { name: "mode" s: "edge" })"),
                  {x, I64({0, 2, 0, 0})});
  EXPECT_TRUE(SameTensor(e, Tensor::FromVector<float>({3, 4}, {1.0f, 1.0f, 1.0f, 1.2f, 2.3f, 2.3f, 2.3f, 3.4f,
                                                               4.5f, 4.5f, 4.5f, 5.7f})));
  // Opset 2: pads and value as attributes; default constant 0 without value.
  Tensor a = Run1(ParseOp(R"(type: "Pad" input: "x" output: "y" arg { name: "pads" ints: [1, 0, 0, 1] }
                             arg { name: "value" f: 7 })"),
                  {Tensor::FromVector<int32_t>({1, 2}, {1, 2})});
  EXPECT_TRUE(SameTensor(a, Tensor::FromVector<int32_t>({2, 3}, {7, 7, 7, 1, 2, 7})));
  Tensor z = Run1(ParseOp(R"(type: "Pad" input: "x" input: "p" output: "y")"),
                  {Tensor::FromVector<int32_t>({2}, {1, 2}), I64({1, 1})});
  EXPECT_TRUE(SameTensor(z, Tensor::FromVector<int32_t>({4}, {0, 1, 2, 0})));
}

TEST(Pad, Errors) {
  const Tensor x = Tensor::FromVector<float>({2, 2}, {1, 2, 3, 4});
  ExpectError(ParseOp(R"(type: "Pad" input: "x" input: "p" output: "y")"), {x, I64({1, 1})},
              {"Pad", "pads", "2 * 2", "2"});
  ExpectError(ParseOp(R"(type: "Pad" input: "x" input: "p" output: "y")"), {x, I64({-3, 0, 0, 0})},
              {"Pad", "negative dim"});
  ExpectError(ParseOp(R"(type: "Pad" input: "x" input: "p" output: "y" arg { name: "mode" s: "bogus" })"),
              {x, I64({0, 0, 0, 0})}, {"Pad", "mode", "bogus"});
  ExpectError(ParseOp(R"(type: "Pad" input: "x" input: "p" output: "y" arg { name: "mode" s: "edge" })"),
              {Tensor::Zeros(DataType::kFloat32, {0, 2}), I64({1, 0, 0, 0})}, {"Pad", "edge", "size 0"});
  ExpectError(ParseOp(R"(type: "Pad" input: "x" input: "p" input: "" input: "a" output: "y")"),
              {x, I64({1, 1}), Tensor(), I64({2})}, {"Pad", "axis", "2"});
  ExpectError(ParseOp(R"(type: "Pad" input: "x" input: "p" input: "c" output: "y")"),
              {x, I64({0, 0, 0, 0}), Tensor::FromVector<int32_t>({}, {1})}, {"Pad", "int32", "float32"});
}

TEST(Pad, DimsPastInt64AreErrors) {
  // dim 2 + 2^63 - 1 overflows: from the pads input (the kernel's check) and
  // from the opset-2 attribute (shape inference's). 2 - 3 + 2^63 - 1 fits
  // but is past the memory cap: an error before anything is allocated.
  const int64_t max = std::numeric_limits<int64_t>::max();
  const Tensor x = Tensor::FromVector<float>({2}, {1, 2});
  ExpectError(ParseOp(R"(type: "Pad" input: "x" input: "p" output: "y")"), {x, I64({max, 0})},
              {"Pad", "pads", "int64", std::to_string(max)});
  ExpectError(ParseOp(R"(type: "Pad" input: "x" output: "y" arg { name: "pads" ints: [1, 9223372036854775807] })"),
              {x}, {"Pad", "pads", "int64", std::to_string(max)});
  ExpectError(ParseOp(R"(type: "Pad" input: "x" input: "p" output: "y")"), {x, I64({-3, max})}, {"Pad"});
}

// ---- DepthToSpace / SpaceToDepth -------------------------------------------------------
TEST(DepthToSpace, MatchesNaiveBothModes) {
  uint32_t seed = 700;
  for (DataType dt : AllTypes()) {
    for (const std::string mode : {"DCR", "CRD"}) {
      for (const Shape& in : std::vector<Shape>{{1, 8, 2, 3}, {2, 9, 1, 2}, {0, 4, 2, 2}, {1, 4, 0, 3}}) {
        const int64_t b = in[1] == 9 ? 3 : 2, oc = in[1] / (b * b);
        Tensor x = RandomTensor(dt, in, seed++, -9, 9);
        Tensor y = Run1(ParseOp("type: \"DepthToSpace\" input: \"x\" output: \"y\" arg { name: \"blocksize\" i: " +
                                std::to_string(b) + " } arg { name: \"mode\" s: \"" + mode + "\" }"),
                        {x});
        const Shape out = {in[0], oc, in[2] * b, in[3] * b};
        Tensor expected = Gather(x, out, [&](const Shape& o) {
          const int64_t bh = o[2] % b, bw = o[3] % b;
          const int64_t c = mode == "DCR" ? (bh * b + bw) * oc + o[1] : o[1] * b * b + bh * b + bw;
          return Ravel({o[0], c, o[2] / b, o[3] / b}, in);
        });
        EXPECT_TRUE(SameTensor(y, expected)) << mode << " " << DataTypeName(dt) << " " << ShapeToString(in);
      }
    }
  }
}

TEST(SpaceToDepth, MatchesNaiveAndInvertsDepthToSpace) {
  uint32_t seed = 800;
  for (DataType dt : AllTypes()) {
    for (const Shape& in : std::vector<Shape>{{1, 2, 4, 6}, {2, 1, 3, 3}, {0, 2, 2, 2}, {1, 0, 2, 4}}) {
      const int64_t b = in[2] == 3 ? 3 : 2;
      Tensor x = RandomTensor(dt, in, seed++, -9, 9);
      const std::string arg = " arg { name: \"blocksize\" i: " + std::to_string(b) + " }";
      Tensor y = Run1(ParseOp(R"(type: "SpaceToDepth" input: "x" output: "y")" + arg), {x});
      const Shape out = {in[0], in[1] * b * b, in[2] / b, in[3] / b};
      Tensor expected = Gather(x, out, [&](const Shape& o) {
        const int64_t blk = o[1] / in[1], c = o[1] % in[1];
        return Ravel({o[0], c, o[2] * b + blk / b, o[3] * b + blk % b}, in);
      });
      EXPECT_TRUE(SameTensor(y, expected)) << DataTypeName(dt) << " " << ShapeToString(in);
      Tensor back = Run1(ParseOp(R"(type: "DepthToSpace" input: "x" output: "y")" + arg), {y});
      EXPECT_TRUE(SameTensor(back, x)) << DataTypeName(dt) << " " << ShapeToString(in);
    }
  }
}

TEST(DepthToSpace, KnownValuesAndErrors) {
  // The ONNX example: channel c holds 9c + 3h + w; DCR's first output row.
  std::vector<float> v;
  for (int c = 0; c < 8; ++c) for (int h = 0; h < 2; ++h) for (int w = 0; w < 3; ++w) v.push_back(9 * c + 3 * h + w);
  Tensor y = Run1(ParseOp(R"(type: "DepthToSpace" input: "x" output: "y" arg { name: "blocksize" i: 2 })"),
                  {Tensor::FromVector<float>({1, 8, 2, 3}, v)});
  ASSERT_EQ(y.dims(), (Shape{1, 2, 4, 6}));
  const std::vector<float> row0 = {0, 18, 1, 19, 2, 20}, row1 = {36, 54, 37, 55, 38, 56};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(y.data<float>()[i], row0[i]);
    EXPECT_EQ(y.data<float>()[6 + i], row1[i]);
  }
  ExpectError(ParseOp(R"(type: "DepthToSpace" input: "x" output: "y" arg { name: "blocksize" i: 2 })"),
              {Tensor::Zeros(DataType::kFloat32, {1, 6, 2, 2})}, {"DepthToSpace", "6", "blocksize^2"});
  ExpectError(ParseOp(R"(type: "DepthToSpace" input: "x" output: "y" arg { name: "blocksize" i: 2 })"),
              {Tensor::Zeros(DataType::kFloat32, {4, 2, 2})}, {"DepthToSpace", "4-D", "[4, 2, 2]"});
  ExpectError(ParseOp(R"(type: "SpaceToDepth" input: "x" output: "y" arg { name: "blocksize" i: 2 })"),
              {Tensor::Zeros(DataType::kFloat32, {1, 1, 3, 2})}, {"SpaceToDepth", "3", "multiples"});
  ExpectError(ParseOp(R"(type: "SpaceToDepth" input: "x" output: "y" arg { name: "blocksize" i: 0 })"),
              {Tensor::Zeros(DataType::kFloat32, {1, 1, 2, 2})}, {"SpaceToDepth", "blocksize", "> 0"});
}

TEST(DepthToSpace, HugeBlocksizes) {
  // b = 2^32: b^2 overflows int64, so only C = 0 is a multiple of it; with
  // C = 0 the output [1, 0, 2^32, 2^32] is empty. b = 2^62: H * b = 2^64
  // overflows.
  const std::string b32 = R"( output: "y" arg { name: "blocksize" i: 4294967296 })";
  const std::string b62 = R"( output: "y" arg { name: "blocksize" i: 4611686018427387904 })";
  ExpectError(ParseOp(R"(type: "DepthToSpace" input: "x")" + b32), {Tensor::Zeros(DataType::kFloat32, {1, 4, 1, 1})},
              {"DepthToSpace", "4294967296^2"});
  Tensor y = Run1(ParseOp(R"(type: "DepthToSpace" input: "x")" + b32), {Tensor::Zeros(DataType::kFloat32, {1, 0, 1, 1})});
  EXPECT_EQ(y.dims(), (Shape{1, 0, 4294967296, 4294967296}));
  ExpectError(ParseOp(R"(type: "DepthToSpace" input: "x")" + b62), {Tensor::Zeros(DataType::kFloat32, {1, 0, 4, 1})},
              {"DepthToSpace", "blocksize", "4611686018427387904", "H * b or W * b", "overflow"});
  // SpaceToDepth: C * b^2 with C = 1 overflows; with C = 0 it is 0.
  ExpectError(ParseOp(R"(type: "SpaceToDepth" input: "x")" + b32), {Tensor::Zeros(DataType::kFloat32, {1, 1, 0, 0})},
              {"SpaceToDepth", "blocksize", "4294967296", "C * b^2", "overflow"});
  Tensor z = Run1(ParseOp(R"(type: "SpaceToDepth" input: "x")" + b32), {Tensor::Zeros(DataType::kFloat32, {1, 0, 0, 0})});
  EXPECT_EQ(z.dims(), (Shape{1, 0, 0, 0}));
}

}  // namespace
}  // namespace loom
