// ConvTranspose against a naive reference on random inputs: a scatter of
// every input element through the kernel window. Known values from the
// ONNX operator docs, dtypes, zero-size dims and error cases.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/net.h"
#include "testing/op_runner.h"
#include "plugins/cpu/kernel_test_util.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

int64_t FloorDiv2(int64_t v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); }

// ---------------------------------------------------------------- ConvTranspose

struct DeconvCase {
  Shape x, w;
  int64_t group = 1;
  Shape strides, dilations, pads, output_padding, output_shape;
  std::string auto_pad = "NOTSET";
  bool bias = true;
};

std::string DeconvText(const DeconvCase& c) {
  std::string t = R"(type: "ConvTranspose" input: "x" input: "w" )";
  t += c.bias ? R"(input: "b" )" : "";
  t += R"(output: "y" )";
  t += "arg { name: \"group\" i: " + std::to_string(c.group) + " } ";
  t += "arg { name: \"auto_pad\" s: \"" + c.auto_pad + "\" } ";
  t += IntsArg("strides", c.strides) + IntsArg("dilations", c.dilations) + IntsArg("pads", c.pads) +
       IntsArg("output_padding", c.output_padding) + IntsArg("output_shape", c.output_shape);
  return t;
}

// The ONNX definition, written out: each X element scatters through the
// kernel into the full output, which is then cropped by the begin padding.
Tensor NaiveDeconv(const DeconvCase& c, const Tensor& x, const Tensor& w, const Tensor* b) {
  const size_t n = c.x.size() - 2;
  const int64_t N = c.x[0], C = c.x[1], G = c.group, Mg = c.w[1], M = Mg * G, Cg = C / G;
  Shape out(n), pb(n), s(n), d(n);
  for (size_t i = 0; i < n; ++i) {
    s[i] = c.strides.empty() ? 1 : c.strides[i];
    d[i] = c.dilations.empty() ? 1 : c.dilations[i];
    const int64_t op = c.output_padding.empty() ? 0 : c.output_padding[i];
    const int64_t natural = s[i] * (c.x[2 + i] - 1) + op + (c.w[2 + i] - 1) * d[i] + 1;
    if (!c.output_shape.empty() || c.auto_pad == "SAME_UPPER" || c.auto_pad == "SAME_LOWER") {
      out[i] = c.output_shape.empty() ? c.x[2 + i] * s[i] : c.output_shape[i];
      const int64_t total = natural - out[i];
      pb[i] = c.auto_pad == "SAME_UPPER" ? FloorDiv2(total) : total - FloorDiv2(total);
    } else if (c.auto_pad == "VALID" || c.pads.empty()) {
      out[i] = natural;
      pb[i] = 0;
    } else {
      pb[i] = c.pads[i];
      out[i] = natural - c.pads[i] - c.pads[n + i];
    }
  }
  Shape ys = {N, M};
  ys.insert(ys.end(), out.begin(), out.end());
  std::vector<double> acc(Tensor::Zeros(DataType::kFloat32, ys).num_elements(), 0.0);
  const Shape xsp(c.x.begin() + 2, c.x.end()), ksp(c.w.begin() + 2, c.w.end());
  int64_t xplane = 1, kplane = 1;
  for (int64_t v : xsp) xplane *= v;
  for (int64_t v : ksp) kplane *= v;
  for (int64_t nn = 0; nn < N; ++nn) {
    for (int64_t ci = 0; ci < C; ++ci) {
      const int64_t g = ci / Cg;
      for (int64_t p = 0; p < xplane; ++p) {
        const double xv = x.ElementAsDouble((nn * C + ci) * xplane + p);
        const Shape pi = Unravel(p, xsp);
        for (int64_t q = 0; q < kplane; ++q) {
          const Shape qi = Unravel(q, ksp);
          Shape yi(n);
          bool inside = true;
          for (size_t a = 0; a < n; ++a) {
            yi[a] = pi[a] * s[a] + qi[a] * d[a] - pb[a];
            inside = inside && yi[a] >= 0 && yi[a] < out[a];
          }
          if (!inside) continue;
          for (int64_t m = 0; m < Mg; ++m) {
            const double wv = w.ElementAsDouble((ci * Mg + m) * kplane + q);
            Shape full = {nn, g * Mg + m};
            full.insert(full.end(), yi.begin(), yi.end());
            acc[Ravel(full, ys)] += xv * wv;
          }
        }
      }
    }
  }
  Tensor y = Tensor::Zeros(DataType::kFloat32, ys);
  for (int64_t i = 0; i < y.num_elements(); ++i) {
    const int64_t m = Unravel(i, ys)[1];
    y.data<float>()[i] = static_cast<float>(acc[i] + (b ? b->ElementAsDouble(m) : 0.0));
  }
  return y;
}

TEST(ConvTranspose, MatchesNaiveScatter) {
  std::vector<DeconvCase> cases = {
      {{2, 3, 5}, {3, 2, 3}},                                                // 1-D
      {{1, 2, 4, 5}, {2, 3, 3, 2}, 1, {2, 3}},                               // strides
      {{2, 4, 3, 3}, {4, 1, 3, 3}, 2, {2, 2}, {2, 1}, {1, 0, 2, 1}},         // group, dilations, pads
      {{1, 4, 3, 4}, {4, 1, 2, 2}, 4, {2, 2}, {}, {}, {1, 1}},               // depthwise, output_padding
      {{1, 2, 3, 3}, {2, 2, 3, 3}, 1, {3, 2}, {}, {}, {}, {10, 8}},          // output_shape above natural
      {{1, 2, 3, 3}, {2, 2, 3, 3}, 1, {2, 2}, {}, {}, {}, {4, 5}},           // output_shape below natural
      {{1, 1, 3, 3}, {1, 2, 3, 3}, 1, {2, 2}, {}, {}, {}, {}, "SAME_UPPER"},
      {{1, 1, 3, 3}, {1, 2, 3, 3}, 1, {2, 2}, {}, {}, {}, {}, "SAME_LOWER"},
      {{1, 2, 3, 2}, {2, 1, 2, 3}, 1, {1, 2}, {}, {5, 5, 5, 5}, {}, {}, "VALID"},
      {{1, 2, 2, 3, 2}, {2, 2, 2, 2, 3}, 1, {2, 1, 2}, {1, 2, 1}, {1, 0, 0, 0, 1, 1}},  // 3-D
      {{1, 3, 4, 4}, {3, 2, 3, 3}, 1, {1, 1}, {}, {1, 1, 1, 1}, {}, {}, "NOTSET", false},  // no bias
      {{0, 2, 3, 3}, {2, 2, 3, 3}},                                          // N = 0
      // 8 or more output channels, group 1, 2-D: channels-last on AVX-512,
      // the bias added after oneDNN's primitive (into Y, or into the
      // scratch that output_shape above the natural size needs).
      {{2, 3, 5, 4}, {3, 16, 2, 2}, 1, {2, 2}},
      {{1, 4, 3, 3}, {4, 8, 3, 3}, 1, {2, 2}, {}, {}, {}, {9, 8}},
  };
  uint32_t seed = 1;
  for (const DeconvCase& c : cases) {
    Tensor x = RandomTensor(DataType::kFloat32, c.x, seed++);
    Tensor w = RandomTensor(DataType::kFloat32, c.w, seed++);
    Tensor b = RandomTensor(DataType::kFloat32, {c.w[1] * c.group}, seed++);
    std::vector<Tensor> in = {x, w};
    if (c.bias) in.push_back(b);
    Tensor y = Run1(ParseOp(DeconvText(c)), in);
    EXPECT_TRUE(AllClose(y, NaiveDeconv(c, x, w, c.bias ? &b : nullptr), 1e-4, 1e-5)) << DeconvText(c);
    testing::ExpectInferredShapes(ParseOp(DeconvText(c)), in);
  }
}

// ONNX's ConvTranspose doc example (test_convtranspose): X 3x3 of 0..8,
// W two 3x3 planes of ones.
TEST(ConvTranspose, KnownValues) {
  std::vector<float> xv(9), wv(18, 1.0f);
  for (int i = 0; i < 9; ++i) xv[i] = static_cast<float>(i);
  Tensor y = Run1(ParseOp(R"(type: "ConvTranspose" input: "x" input: "w" output: "y")"),
                  {F32({1, 1, 3, 3}, xv), F32({1, 2, 3, 3}, wv)});
  const std::vector<float> plane = {0,  1,  3,  3,  2,  3,  8,  15, 12, 7,  9,  21, 36,
                                    27, 15, 9,  20, 33, 24, 13, 6,  13, 21, 15, 8};
  std::vector<float> expect = plane;
  expect.insert(expect.end(), plane.begin(), plane.end());
  EXPECT_TRUE(AllClose(y, F32({1, 2, 5, 5}, expect)));
}

TEST(ConvTranspose, Errors) {
  const OperatorDef op = ParseOp(R"(type: "ConvTranspose" input: "x" input: "w" input: "b" output: "y")");
  Tensor x = RandomTensor(DataType::kFloat32, {1, 2, 3, 3}, 1);
  ExpectError(op, {x, RandomTensor(DataType::kFloat32, {3, 2, 3, 3}, 2), RandomTensor(DataType::kFloat32, {2}, 3)},
              "W[0] = C = 2");
  ExpectError(op, {x, RandomTensor(DataType::kFloat32, {2, 2, 3}, 2), RandomTensor(DataType::kFloat32, {2}, 3)},
              "X's rank");
  ExpectError(op, {x, RandomTensor(DataType::kFloat32, {2, 2, 3, 3}, 2), RandomTensor(DataType::kFloat32, {3}, 3)},
              "input B must be [2]");
  ExpectError(op, {RandomTensor(DataType::kFloat32, {2, 3}, 1), RandomTensor(DataType::kFloat32, {2, 3}, 2),
                   RandomTensor(DataType::kFloat32, {3}, 3)},
              "input X");
  ExpectError(ParseOp(R"(type: "ConvTranspose" input: "x" input: "w" output: "y")" + IntsArg("pads", {3, 3, 3, 3})),
              {x, RandomTensor(DataType::kFloat32, {2, 1, 2, 2}, 2)}, "negative");
  ExpectError(ParseOp(R"(type: "ConvTranspose" input: "x" input: "w" output: "y")" + IntsArg("strides", {1, 1, 1})),
              {x, RandomTensor(DataType::kFloat32, {2, 1, 2, 2}, 2)}, "strides");
}

}  // namespace
}  // namespace loom
