// The C API (loom_session_c_api.h) against loom::Session: the same outputs
// bit for bit, the infos, the options and the errors; a C translation unit
// (c_api_test_c.c) makes the calls a C program makes.
#include "session/loom_session_c_api.h"

#include <cstring>
#include <string>
#include <vector>

#include "core/proto_io.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"
#include "session/session.h"
#include "tools/runtime_setup.h"

extern "C" int LoomCRunDefaultModel(const char* path, float* pixels, float* prob, char* error, size_t error_size);

namespace loom {
namespace {

std::string DefaultModel() { return tools::FindDataFile("tools/models/default_cnn.pb"); }

const LoomSessionApi* Api() { return LoomGetSessionApi(LOOM_SESSION_API_VERSION); }

// The status's message (and releases it); "" for success.
std::string Message(LoomStatus* st) {
  std::string m = Api()->StatusMessage(st);
  Api()->ReleaseStatus(st);
  return m;
}

std::string ModelBytes() {
  absl::StatusOr<NetDef> def = ReadNetDef(DefaultModel());
  EXPECT_TRUE(def.ok()) << def.status();
  return def->SerializeAsString();
}

TEST(SessionCApiTest, VersionsAndTableSize) {
  EXPECT_EQ(LoomGetSessionApi(0), nullptr);
  EXPECT_EQ(LoomGetSessionApi(LOOM_SESSION_API_VERSION + 1), nullptr);
  ASSERT_NE(Api(), nullptr);
  EXPECT_EQ(Api()->struct_size, sizeof(LoomSessionApi));
  EXPECT_EQ(Api()->version, LOOM_SESSION_API_VERSION);
  // Version 1's layouts (x86-64), frozen: members are only appended
  // (fpmath_mode at 56 and external_data_dir at 64, read where struct_size
  // covers them).
  EXPECT_EQ(offsetof(LoomSessionOptions, fpmath_mode), 56u);
  EXPECT_EQ(offsetof(LoomSessionOptions, external_data_dir), 64u);
  EXPECT_EQ(sizeof(LoomSessionOptions), 72u);
  EXPECT_EQ(sizeof(LoomTensorInfo), 48u);
}

TEST(SessionCApiTest, FromCTheSameAsTheCppSession) {
  const Tensor x = testing::RandomTensor(DataType::kFloat32, {1, 3, 32, 32}, 7);
  absl::StatusOr<NetDef> def = ReadNetDef(DefaultModel());
  ASSERT_TRUE(def.ok());
  auto cpp = Session::FromNetDef(*def);
  ASSERT_TRUE(cpp.ok());
  auto expected = (*cpp)->Run({{"image", x}});
  ASSERT_TRUE(expected.ok());

  std::vector<float> pixels(x.data<float>(), x.data<float>() + x.num_elements());
  float prob[10] = {0};
  char error[512] = "";
  ASSERT_EQ(LoomCRunDefaultModel(DefaultModel().c_str(), pixels.data(), prob, error, sizeof error), 0) << error;
  EXPECT_EQ(std::memcmp(prob, (*expected)[0].raw_data(), sizeof prob), 0);
}

TEST(SessionCApiTest, InfosAndEveryOutput) {
  const std::string bytes = ModelBytes();
  LoomSession* s = nullptr;
  ASSERT_EQ(Api()->CreateSessionFromNetDef(bytes.data(), bytes.size(), nullptr, &s), nullptr);
  ASSERT_EQ(Api()->SessionInputCount(s), 1u);
  ASSERT_EQ(Api()->SessionOutputCount(s), 1u);
  LoomTensorInfo info;
  std::memset(&info, 0, sizeof info);
  info.struct_size = LOOM_TENSOR_INFO_STRUCT_SIZE;
  ASSERT_EQ(Api()->SessionInputInfo(s, 0, &info), nullptr);
  EXPECT_STREQ(info.name, "image");
  EXPECT_EQ(info.dtype, LOOM_DTYPE_UNDEFINED);  // a NetDef declares none
  ASSERT_EQ(Api()->SessionOutputInfo(s, 0, &info), nullptr);
  EXPECT_STREQ(info.name, "prob");
  EXPECT_NE(Message(Api()->SessionOutputInfo(s, 1, &info)).find("index 1; the model has 1"), std::string::npos);

  // num_outputs 0: every output, made by the library.
  const int64_t dims[] = {1, 3, 32, 32};
  LoomValue* x = nullptr;
  ASSERT_EQ(Api()->CreateValue(LOOM_DTYPE_FLOAT, dims, 4, &x), nullptr);
  std::memset(Api()->ValueData(x), 0, 3 * 32 * 32 * sizeof(float));
  const char* in[] = {"image"};
  LoomValue* y = nullptr;
  ASSERT_EQ(Api()->Run(s, in, &x, 1, nullptr, 0, &y), nullptr);
  ASSERT_EQ(Api()->ValueRank(y), 2u);
  EXPECT_EQ(Api()->ValueDims(y)[1], 10);
  EXPECT_EQ(Api()->ValueDType(y), LOOM_DTYPE_FLOAT);
  double sum = 0;
  for (int i = 0; i < 10; ++i) sum += static_cast<const float*>(Api()->ValueData(y))[i];
  EXPECT_NEAR(sum, 1.0, 1e-5);
  Api()->ReleaseValue(y);
  Api()->ReleaseValue(x);
  Api()->ReleaseSession(s);
}

TEST(SessionCApiTest, ErrorsAreStatusesNamingWhatIsWrong) {
  const std::string bytes = ModelBytes();
  LoomSession* s = nullptr;
  LoomSessionOptions o;
  std::memset(&o, 0, sizeof o);
  o.struct_size = 8;
  EXPECT_NE(Message(Api()->CreateSessionFromNetDef(bytes.data(), bytes.size(), &o, &s)).find("struct_size is 8"),
            std::string::npos);
  o.struct_size = LOOM_SESSION_OPTIONS_STRUCT_SIZE;
  o.optimization_level = 7;
  EXPECT_NE(Message(Api()->CreateSessionFromNetDef(bytes.data(), bytes.size(), &o, &s)).find("optimization_level is 7"),
            std::string::npos);
  o.optimization_level = LOOM_OPTIMIZE_DEFAULT;
  o.fpmath_mode = 5;
  EXPECT_NE(Message(Api()->CreateSessionFromNetDef(bytes.data(), bytes.size(), &o, &s)).find("fpmath_mode is 5"),
            std::string::npos);
  o.struct_size = offsetof(LoomSessionOptions, fpmath_mode);  // a caller from before fpmath_mode: not read
  ASSERT_EQ(Api()->CreateSessionFromNetDef(bytes.data(), bytes.size(), &o, &s), nullptr);
  Api()->ReleaseSession(s);
  s = nullptr;
  o.struct_size = LOOM_SESSION_OPTIONS_STRUCT_SIZE;
  o.fpmath_mode = LOOM_FPMATH_MODE_STRICT;
  o.device = "TPU";
  LoomStatus* st = Api()->CreateSessionFromNetDef(bytes.data(), bytes.size(), &o, &s);
  EXPECT_EQ(Api()->StatusCode(st), LOOM_NOT_FOUND);
  EXPECT_NE(Message(st).find("'TPU'"), std::string::npos);
  EXPECT_NE(Message(Api()->CreateSessionFromNetDef("junk", 4, nullptr, &s)).find("not a binary NetDef"), std::string::npos);
  st = Api()->CreateSessionFromOnnxFile("/no/such.onnx", nullptr, &s);
  EXPECT_EQ(Api()->StatusCode(st), LOOM_NOT_FOUND);
  Api()->ReleaseStatus(st);
  EXPECT_EQ(s, nullptr);  // set only on success

  o.device = "CPU";
  o.memory_mode = LOOM_MEMORY_PER_TENSOR;
  ASSERT_EQ(Api()->CreateSessionFromNetDef(bytes.data(), bytes.size(), &o, &s), nullptr);
  float pixels[3 * 32 * 32] = {0};
  const int64_t dims[] = {1, 3, 32, 32};
  LoomValue* x = nullptr;
  EXPECT_NE(Message(Api()->CreateValueOver(LOOM_DTYPE_FLOAT, dims, 4, pixels, 100, &x)).find("takes 12288 bytes; 100 given"),
            std::string::npos);
  ASSERT_EQ(Api()->CreateValueOver(LOOM_DTYPE_FLOAT, dims, 4, pixels, sizeof pixels, &x), nullptr);
  EXPECT_EQ(Api()->ValueData(x), static_cast<void*>(pixels));  // over the caller's memory, no copy
  const char* wrong[] = {"imag"};
  LoomValue* y = nullptr;
  EXPECT_NE(Message(Api()->Run(s, wrong, &x, 1, nullptr, 0, &y)).find("no input 'imag'; the inputs are image"),
            std::string::npos);
  // A caller's buffer of the wrong size: an error naming both; nothing made.
  const int64_t small_dims[] = {9};
  LoomValue* small = nullptr;
  ASSERT_EQ(Api()->CreateValue(LOOM_DTYPE_FLOAT, small_dims, 1, &small), nullptr);
  const char* in[] = {"image"};
  EXPECT_NE(Message(Api()->Run(s, in, &x, 1, nullptr, 0, &small)).find("output 'prob' is float32[1, 10]; the buffer given is float32[9]"),
            std::string::npos);
  // The run's own errors name the op.
  const int64_t bad_dims[] = {1, 5, 32, 32};
  LoomValue* bad = nullptr;
  ASSERT_EQ(Api()->CreateValue(LOOM_DTYPE_FLOAT, bad_dims, 4, &bad), nullptr);
  EXPECT_NE(Message(Api()->Run(s, in, &bad, 1, nullptr, 0, &y)).find("conv1"), std::string::npos);
  EXPECT_EQ(y, nullptr);
  EXPECT_NE(Message(Api()->Run(s, nullptr, nullptr, 1, nullptr, 0, &y)).find("`input_names` or `inputs` is NULL"),
            std::string::npos);
  EXPECT_NE(Message(Api()->Run(nullptr, in, &x, 1, nullptr, 0, &y)).find("`session` is NULL"), std::string::npos);
  LoomTensorInfo old_info;
  old_info.struct_size = 16;
  EXPECT_NE(Message(Api()->SessionInputInfo(s, 0, &old_info)).find("struct_size is 16; expected at least 48"),
            std::string::npos);
  Api()->ReleaseValue(bad);
  Api()->ReleaseValue(small);
  Api()->ReleaseValue(x);
  Api()->ReleaseSession(s);
}

}  // namespace
}  // namespace loom
