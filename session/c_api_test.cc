// The C API (loom_session_c_api.h) against loom::Session: the same outputs
// bit for bit, the infos, the options and the errors; a C translation unit
// (c_api_test_c.c) makes the calls a C program makes.
#include "session/loom_session_c_api.h"

#include <cstring>
#include <string>
#include <vector>

#include "core/proto_io.h"
#include "onnx/onnx_pb.h"
#include "testing/onnx_models.h"
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

// Version 2: strings, sequences and optionals in and out, against values
// worked by hand. n = SequenceLength(xs), c = ConcatFromSequence(xs,
// axis 0), ys = SequenceInsert(xs, c), u = StringNormalizer(s, UPPER),
// has = OptionalHasElement(o).
TEST(SessionCApiTest, StringsSequencesAndOptionals) {
  onnx::GraphProto g;
  auto input = [&](const std::string& name, auto set_type) {
    onnx::ValueInfoProto* v = g.add_input();
    v->set_name(name);
    set_type(v->mutable_type());
  };
  input("xs", [](onnx::TypeProto* t) {
    t->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  });
  input("s", [](onnx::TypeProto* t) { t->mutable_tensor_type()->set_elem_type(onnx::TensorProto::STRING); });
  input("o", [](onnx::TypeProto* t) {
    t->mutable_optional_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  });
  testing::AddNode(&g, "SequenceLength", {"xs"}, {"n"});
  testing::IntAttr(testing::AddNode(&g, "ConcatFromSequence", {"xs"}, {"c"}), "axis", 0);
  testing::AddNode(&g, "SequenceInsert", {"xs", "c"}, {"ys"});
  onnx::NodeProto* norm = testing::AddNode(&g, "StringNormalizer", {"s"}, {"u"});
  onnx::AttributeProto* a = norm->add_attribute();
  a->set_name("case_change_action");
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s("UPPER");
  testing::AddNode(&g, "OptionalHasElement", {"o"}, {"has"});
  for (const char* out : {"n", "c", "ys", "u", "has"}) testing::AddOutput(&g, out, /*typed=*/false);
  const std::string model = testing::Serialize(g, 18);
  LoomSession* session = nullptr;
  ASSERT_EQ(Message(Api()->CreateSessionFromOnnxBytes(model.data(), model.size(), nullptr, &session)), "");
  LoomTensorInfo info;
  info.struct_size = LOOM_TENSOR_INFO_STRUCT_SIZE;
  ASSERT_EQ(Api()->SessionInputInfo(session, 0, &info), nullptr);
  EXPECT_EQ(info.dtype, LOOM_DTYPE_SEQUENCE | LOOM_DTYPE_FLOAT);
  ASSERT_EQ(Api()->SessionInputInfo(session, 2, &info), nullptr);
  EXPECT_EQ(info.dtype, LOOM_DTYPE_OPTIONAL | LOOM_DTYPE_FLOAT);

  // xs = [[1, 2], [3]]; s = ["ab", "c d"]; o = none.
  float one_two[] = {1, 2}, three[] = {3};
  int64_t two = 2, one = 1;
  LoomValue *x0, *x1, *xs, *s, *o;
  ASSERT_EQ(Api()->CreateValueOver(LOOM_DTYPE_FLOAT, &two, 1, one_two, sizeof one_two, &x0), nullptr);
  ASSERT_EQ(Api()->CreateValueOver(LOOM_DTYPE_FLOAT, &one, 1, three, sizeof three, &x1), nullptr);
  const LoomValue* items[] = {x0, x1};
  ASSERT_EQ(Api()->CreateSequenceValue(LOOM_DTYPE_FLOAT, items, 2, &xs), nullptr);
  one_two[0] = 100;  // the sequence holds copies
  const char* strings[] = {"ab", "c dXX"};
  const size_t lengths[] = {2, 3};
  ASSERT_EQ(Api()->CreateStringValue(&two, 1, strings, lengths, &s), nullptr);
  ASSERT_EQ(Api()->CreateOptionalValue(LOOM_DTYPE_FLOAT, nullptr, &o), nullptr);
  EXPECT_EQ(Api()->ValueDType(xs), LOOM_DTYPE_SEQUENCE | LOOM_DTYPE_FLOAT);
  EXPECT_EQ(Api()->ValueCount(xs), 2u);
  EXPECT_EQ(Api()->ValueCount(o), 0u);

  const char* in[] = {"xs", "s", "o"};
  const LoomValue* inputs[] = {xs, s, o};
  const char* out[] = {"n", "c", "ys", "u", "has"};
  LoomValue* outputs[5] = {};
  ASSERT_EQ(Message(Api()->Run(session, in, inputs, 3, out, 5, outputs)), "");
  EXPECT_EQ(static_cast<int64_t*>(Api()->ValueData(outputs[0]))[0], 2);
  const float* c = static_cast<const float*>(Api()->ValueData(outputs[1]));
  EXPECT_EQ(std::vector<float>(c, c + 3), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(Api()->ValueDType(outputs[2]), LOOM_DTYPE_SEQUENCE | LOOM_DTYPE_FLOAT);
  ASSERT_EQ(Api()->ValueCount(outputs[2]), 3u);
  LoomValue* last = nullptr;
  ASSERT_EQ(Api()->ValueItem(outputs[2], 2, &last), nullptr);
  ASSERT_EQ(Api()->ValueNumElements(last), 3);
  EXPECT_EQ(static_cast<const float*>(Api()->ValueData(last))[2], 3.0f);
  Api()->ReleaseValue(last);
  EXPECT_NE(Message(Api()->ValueItem(outputs[2], 3, &last)).find("index 3; the seq(float32) holds 3"), std::string::npos);
  const char* data = nullptr;
  size_t length = 0;
  ASSERT_EQ(Api()->ValueString(outputs[3], 1, &data, &length), nullptr);
  EXPECT_EQ(std::string(data, length), "C D");
  ASSERT_EQ(Api()->ValueString(outputs[3], 0, &data, &length), nullptr);
  EXPECT_EQ(std::string(data, length), "AB");
  EXPECT_NE(Message(Api()->ValueString(outputs[3], 2, &data, &length)).find("index 2; the tensor has 2 elements"),
            std::string::npos);
  EXPECT_NE(Message(Api()->ValueString(outputs[1], 0, &data, &length)).find("the value is a float32; expected a string"),
            std::string::npos);
  EXPECT_FALSE(static_cast<const bool*>(Api()->ValueData(outputs[4]))[0]);
  for (LoomValue* v : outputs) Api()->ReleaseValue(v);

  // An optional holding a tensor; a buffer passed for a sequence output.
  LoomValue* held = nullptr;
  ASSERT_EQ(Api()->CreateOptionalValue(LOOM_DTYPE_FLOAT, x1, &held), nullptr);
  EXPECT_EQ(Api()->ValueCount(held), 1u);
  const LoomValue* inputs2[] = {xs, s, held};
  LoomValue* has = nullptr;
  const char* has_name[] = {"has"};
  ASSERT_EQ(Message(Api()->Run(session, in, inputs2, 3, has_name, 1, &has)), "");
  EXPECT_TRUE(static_cast<const bool*>(Api()->ValueData(has))[0]);
  Api()->ReleaseValue(has);
  LoomValue* buffer = x0;
  const char* ys_name[] = {"ys"};
  EXPECT_NE(Message(Api()->Run(session, in, inputs2, 3, ys_name, 1, &buffer)).find("output 'ys' is a seq(float32); pass NULL"),
            std::string::npos);
  // Items of another dtype are refused, naming the mismatch.
  int64_t i64[] = {7};
  LoomValue* wrong = nullptr;
  ASSERT_EQ(Api()->CreateValueOver(LOOM_DTYPE_INT64, &one, 1, i64, sizeof i64, &wrong), nullptr);
  const LoomValue* mixed[] = {x0, wrong};
  LoomValue* bad = nullptr;
  const std::string mixed_error = Message(Api()->CreateSequenceValue(LOOM_DTYPE_FLOAT, mixed, 2, &bad));
  EXPECT_NE(mixed_error.find("CreateSequenceValue: "), std::string::npos) << mixed_error;
  EXPECT_NE(mixed_error.find("int64"), std::string::npos) << mixed_error;
  EXPECT_EQ(bad, nullptr);
  for (LoomValue* v : {x0, x1, xs, s, o, held, wrong}) Api()->ReleaseValue(v);
  Api()->ReleaseSession(session);
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
