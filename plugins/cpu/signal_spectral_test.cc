// DFT, STFT and MelWeightMatrix (signal_spectral.cc) against hand-worked
// values: impulse and constant spectra, a one-sided spectrum, cosines and
// sines on the direct (n = 10) and radix-2 FFT (n = 64) paths, zero-padding
// and truncation by dft_length, axes, inverse(forward(x)) == x, STFTs of a
// constant signal and through a window, a two-band mel matrix; errors name
// the attribute or input.
#include <cmath>
#include <string>
#include <vector>

#include "plugins/cpu/kernel_test_util.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

Tensor Scalar(int64_t v) { return Tensor::FromVector<int64_t>({}, {v}); }

OperatorDef Dft(const std::string& args = "", bool with_length = false) {
  return ParseOp(std::string("type: \"DFT\" input: \"x\" ") + (with_length ? "input: \"n\" " : "") +
                 "output: \"y\" " + args);
}

// A [1, n, 2] tensor of interleaved (re, im) values.
Tensor Complex1(const std::vector<float>& re_im) {
  return F32({1, static_cast<int64_t>(re_im.size() / 2), 2}, re_im);
}

TEST(Dft, ImpulseAndConstant) {
  // DFT of an impulse is all ones; of a constant, n at bin 0.
  EXPECT_TRUE(AllClose(Run1(Dft(), {F32({1, 4, 1}, {1, 0, 0, 0})}), Complex1({1, 0, 1, 0, 1, 0, 1, 0}), 0, 1e-6));
  EXPECT_TRUE(AllClose(Run1(Dft(), {F32({1, 4, 1}, {1, 1, 1, 1})}), Complex1({4, 0, 0, 0, 0, 0, 0, 0}), 0, 1e-6));
  // Length 5 (the direct sum): an impulse delayed by one is exp(-2 pi i k / 5).
  std::vector<float> e;
  for (int k = 0; k < 5; ++k) {
    e.push_back(static_cast<float>(std::cos(2 * M_PI * k / 5)));
    e.push_back(static_cast<float>(-std::sin(2 * M_PI * k / 5)));
  }
  EXPECT_TRUE(AllClose(Run1(Dft(), {F32({1, 5, 1}, {0, 1, 0, 0, 0})}), Complex1(e), 0, 1e-6));
}

TEST(Dft, OneSidedOfARealSignal) {
  // [1, 2, 3, 4]: X0 = 10, X1 = 1 - 2i - 3 + 4i = -2 + 2i, X2 = 1 - 2 + 3 - 4 = -2; bins 0..2.
  const OperatorDef op = Dft(IntArg("onesided", 1));
  EXPECT_TRUE(AllClose(Run1(op, {F32({1, 4, 1}, {1, 2, 3, 4})}), Complex1({10, 0, -2, 2, -2, 0}), 0, 1e-5));
  // Odd length 5: floor(5/2) + 1 = 3 bins.
  const Tensor y = Run1(op, {F32({1, 5, 1}, {1, 1, 1, 1, 1})});
  EXPECT_TRUE(AllClose(y, Complex1({5, 0, 0, 0, 0, 0}), 0, 1e-5));
  ExpectInferredShapes(op, {F32({1, 5, 1}, {1, 1, 1, 1, 1})});
}

// x[t] = cos(2 pi a t / n) + sin(2 pi b t / n): X[a] = X[n-a] = n/2,
// X[b] = -i n/2, X[n-b] = +i n/2, zero elsewhere.
void ExpectCosSinSpectrum(int n, int a, int b) {
  std::vector<float> x(n), e(2 * n, 0.0f);
  for (int t = 0; t < n; ++t) {
    x[t] = static_cast<float>(std::cos(2 * M_PI * a * t / n) + std::sin(2 * M_PI * b * t / n));
  }
  e[2 * a] = e[2 * (n - a)] = n / 2.0f;
  e[2 * b + 1] = -n / 2.0f;
  e[2 * (n - b) + 1] = n / 2.0f;
  EXPECT_TRUE(AllClose(Run1(Dft(), {F32({1, n, 1}, x)}), Complex1(e), 0, 2e-5 * n)) << "n = " << n;
}

TEST(Dft, CosineAndSineSpectra) {
  ExpectCosSinSpectrum(10, 2, 3);   // direct sum
  ExpectCosSinSpectrum(64, 5, 12);  // radix-2 FFT
}

TEST(Dft, DftLengthPadsAndTruncates) {
  // [1, 1] padded to 4: X[k] = 1 + exp(-i pi k / 2) = 2, 1 - i, 0, 1 + i.
  EXPECT_TRUE(AllClose(Run1(Dft("", true), {F32({1, 2, 1}, {1, 1}), Scalar(4)}),
                       Complex1({2, 0, 1, -1, 0, 0, 1, 1}), 0, 1e-6));
  // [1, 2, 3, 4, 5] truncated to 2: [1 + 2, 1 - 2].
  EXPECT_TRUE(AllClose(Run1(Dft("", true), {F32({1, 5, 1}, {1, 2, 3, 4, 5}), Scalar(2)}),
                       Complex1({3, 0, -1, 0}), 0, 1e-6));
  // Truncated to 3 and one-sided: [1, 2, 3] -> X0 = 6, X1 = -1.5 + i sqrt(3)/2.
  EXPECT_TRUE(AllClose(Run1(Dft(IntArg("onesided", 1), true), {F32({1, 5, 1}, {1, 2, 3, 4, 5}), Scalar(3)}),
                       Complex1({6, 0, -1.5f, static_cast<float>(std::sqrt(3.0) / 2)}), 0, 1e-6));
}

TEST(Dft, AxisOverTheBatchLayout) {
  // x [1, 2, 3, 1] = [[1, 2, 3], [4, 5, 6]]; along axis 1 (length 2): the
  // sum and the difference of the rows.
  const Tensor x = F32({1, 2, 3, 1}, {1, 2, 3, 4, 5, 6});
  const Tensor e = F32({1, 2, 3, 2}, {5, 0, 7, 0, 9, 0, -3, 0, -3, 0, -3, 0});
  EXPECT_TRUE(AllClose(Run1(Dft(), {x}), e, 0, 1e-6));
  EXPECT_TRUE(AllClose(Run1(Dft(IntArg("axis", -3)), {x}), e, 0, 1e-6));  // -3 + rank 4 = 1
  // Along axis 2 (length 3): per row, X0 = sum, X1 = a + b w + c w^2 with w = exp(-2 pi i / 3).
  const double c = -0.5, s = -std::sqrt(3.0) / 2;  // w = c + i s, w^2 = c - i s
  auto x1 = [&](double a, double b, double d) {
    return std::vector<float>{static_cast<float>(a + (b + d) * c), static_cast<float>((b - d) * s)};
  };
  const std::vector<float> r0 = x1(1, 2, 3), r1 = x1(4, 5, 6);
  const Tensor e2 = F32({1, 2, 3, 2}, {6, 0, r0[0], r0[1], r0[0], -r0[1], 15, 0, r1[0], r1[1], r1[0], -r1[1]});
  EXPECT_TRUE(AllClose(Run1(Dft(IntArg("axis", 2)), {x}), e2, 0, 1e-5));
  ExpectInferredShapes(Dft(IntArg("axis", 2)), {x});
}

TEST(Dft, InverseUndoesForward) {
  // The inverse of [4, 0, 0, 0] is [1, 1, 1, 1] (scaled by 1/n).
  EXPECT_TRUE(AllClose(Run1(Dft(IntArg("inverse", 1)), {Complex1({4, 0, 0, 0, 0, 0, 0, 0})}),
                       Complex1({1, 0, 1, 0, 1, 0, 1, 0}), 0, 1e-6));
  for (int n : {6, 8}) {  // direct and FFT; axis 2 of [2, 3, n, 2]
    const Tensor x = RandomTensor(DataType::kFloat64, {2, 3, n, 2}, 7 + n);
    const Tensor f = Run1(Dft(IntArg("axis", 2)), {x});
    EXPECT_FALSE(AllClose(f, x, 0, 1e-3));  // the forward transform changed it
    EXPECT_TRUE(AllClose(Run1(Dft(IntArg("axis", 2) + IntArg("inverse", 1)), {f}), x, 0, 1e-12)) << "n = " << n;
  }
}

TEST(Dft, Float64KeepsItsDtype) {
  const Tensor y = Run1(Dft(), {Make(DataType::kFloat64, {1, 3, 1}, {1, 1, 1})});
  ASSERT_EQ(y.dtype(), DataType::kFloat64);
  EXPECT_TRUE(AllClose(y, Make(DataType::kFloat64, {1, 3, 2}, {3, 0, 0, 0, 0, 0}), 0, 1e-15));
}

TEST(Dft, ErrorsNameTheAttributeOrInput) {
  ExpectError(Dft(), {F32({1, 4, 3}, std::vector<float>(12, 0))},
              "input 'input' must be [batch, signal dims..., 1 (real) or 2 (complex)]; found [1, 4, 3]");
  ExpectError(Dft(IntArg("onesided", 1) + IntArg("inverse", 1)), {F32({1, 4, 1}, {1, 2, 3, 4})},
              "'onesided' = 1 and 'inverse' = 1 together are not supported");
  ExpectError(Dft(IntArg("onesided", 1)), {Complex1({1, 0, 2, 0})}, "'onesided' = 1 needs real input");
  ExpectError(Dft(IntArg("axis", 2)), {F32({1, 4, 1}, {1, 2, 3, 4})},
              std::vector<std::string>{"attribute 'axis' = 2 must be in [0, 1]", "[1, 4, 1]"});
  ExpectError(Dft("", true), {F32({1, 4, 1}, {1, 2, 3, 4}), Scalar(0)}, "input 'dft_length' must be >= 1; found 0");
}

OperatorDef Stft(const std::string& inputs, const std::string& args = "") {
  return ParseOp("type: \"STFT\" " + inputs + " output: \"y\" " + args);
}
const char kStepLength[] = R"(input: "x" input: "step" input: "" input: "len")";
const char kStepWindow[] = R"(input: "x" input: "step" input: "w")";

TEST(Stft, ConstantSignalRectangularFrames) {
  // Ones of length 8, frames of 4 every 2: (8 - 4) / 2 + 1 = 3 frames, each
  // [4, 0, 0] over the 3 one-sided bins.
  const Tensor x = F32({1, 8, 1}, std::vector<float>(8, 1));
  std::vector<float> e;
  for (int f = 0; f < 3; ++f) e.insert(e.end(), {4, 0, 0, 0, 0, 0});
  EXPECT_TRUE(AllClose(Run1(Stft(kStepLength), {x, Scalar(2), Tensor(), Scalar(4)}), F32({1, 3, 3, 2}, e), 0, 1e-6));
  // Length 9: the last sample does not fill a frame; still 3 frames.
  const Tensor x9 = F32({1, 9, 1}, std::vector<float>(9, 1));
  EXPECT_EQ(Run1(Stft(kStepLength), {x9, Scalar(2), Tensor(), Scalar(4)}).dims(), (Shape{1, 3, 3, 2}));
}

TEST(Stft, WindowSelectsSamples) {
  // Window [1, 0, 0, 0] keeps each frame's first sample x[2f], whose DFT is
  // that value in every bin. Two batches: x and 10 + x.
  std::vector<float> xs;
  for (int b = 0; b < 2; ++b) {
    for (int t = 0; t < 8; ++t) xs.push_back(static_cast<float>(10 * b + t));
  }
  const Tensor x = F32({2, 8, 1}, xs), w = F32({4}, {1, 0, 0, 0});
  std::vector<float> e1, e0;
  for (int b = 0; b < 2; ++b) {
    for (int f = 0; f < 3; ++f) {
      const float v = static_cast<float>(10 * b + 2 * f);
      e1.insert(e1.end(), {v, 0, v, 0, v, 0});
      e0.insert(e0.end(), {v, 0, v, 0, v, 0, v, 0});
    }
  }
  EXPECT_TRUE(AllClose(Run1(Stft(kStepWindow), {x, Scalar(2), w}), F32({2, 3, 3, 2}, e1), 0, 1e-6));
  EXPECT_TRUE(AllClose(Run1(Stft(kStepWindow, IntArg("onesided", 0)), {x, Scalar(2), w}), F32({2, 3, 4, 2}, e0), 0,
                       1e-6));
}

TEST(Stft, ComplexSignalTwoSided) {
  // A complex constant (1 + i) over frames of 2: bin 0 is 2 + 2i, bin 1 zero.
  const Tensor x = F32({1, 4, 2}, {1, 1, 1, 1, 1, 1, 1, 1});
  const Tensor y = Run1(Stft(kStepLength, IntArg("onesided", 0)), {x, Scalar(2), Tensor(), Scalar(2)});
  EXPECT_TRUE(AllClose(y, F32({1, 2, 2, 2}, {2, 2, 0, 0, 2, 2, 0, 0}), 0, 1e-6));
}

TEST(Stft, ErrorsNameTheInput) {
  const Tensor x = F32({1, 8, 1}, std::vector<float>(8, 1));
  ExpectError(Stft(kStepLength), {x, Scalar(2), Tensor(), Scalar(9)},
              "input 'frame_length' (9) exceeds the signal length 8");
  ExpectError(Stft(R"(input: "x" input: "step" input: "w" input: "len")"), {x, Scalar(2), F32({4}, {1, 1, 1, 1}), Scalar(5)},
              "input 'window' has 4 elements but input 'frame_length' is 5");
  ExpectError(Stft(R"(input: "x" input: "step")"), {x, Scalar(2)}, "needs input 'window' or input 'frame_length'");
  ExpectError(Stft(kStepLength), {x, Scalar(0), Tensor(), Scalar(4)}, "input 'frame_step' must be >= 1; found 0");
  ExpectError(Stft(kStepLength), {F32({1, 4, 2}, std::vector<float>(8, 1)), Scalar(2), Tensor(), Scalar(2)},
              "'onesided' = 1 needs a real signal");
}

OperatorDef Mel(const std::string& args = "") {
  return ParseOp(R"(type: "MelWeightMatrix" input: "m" input: "n" input: "sr" input: "lo" input: "hi" output: "y" )" +
                 args);
}

TEST(MelWeightMatrix, TwoBandsByHand) {
  // 2 bands, DFT length 16 at 16 Hz, 0..8 Hz: mel step = mel(8) / (2 + 2);
  // the points back in Hz are just under 0, 2, 4, 6 (mel is concave), so
  // the edges floor(17 * hz / 16) are bins 0, 2, 4, 6. Band 0 rises over
  // bins 0..2 and falls to bin 4; band 1 rises over 2..4 and falls to 6.
  const std::vector<Tensor> in = {Scalar(2), Scalar(16), Scalar(16), F32({}, {0}), F32({}, {8})};
  const Tensor e = F32({9, 2}, {0, 0, 0.5f, 0, 1, 0, 0.5f, 0.5f, 0, 1, 0, 0.5f, 0, 0, 0, 0, 0, 0});
  EXPECT_TRUE(AllClose(Run1(Mel(), in), e, 0, 1e-7));
  const Tensor d = Run1(Mel(IntArg("output_datatype", 11)), in);
  ASSERT_EQ(d.dtype(), DataType::kFloat64);
  EXPECT_TRUE(AllClose(d, Cast(DataType::kFloat64, e), 0, 1e-15));
}

TEST(MelWeightMatrix, ErrorsNameTheInput) {
  ExpectError(Mel(), {Scalar(2), Scalar(16), Scalar(16), F32({}, {8}), F32({}, {4})},
              "needs 0 <= lower_edge_hertz < upper_edge_hertz");
  ExpectError(Mel(), {Scalar(0), Scalar(16), Scalar(16), F32({}, {0}), F32({}, {8})},
              "input 'num_mel_bins' must be >= 1; found 0");
}

}  // namespace
}  // namespace loom
