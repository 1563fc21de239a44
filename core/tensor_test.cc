#include "core/tensor.h"

#include <cstdint>

#include "core/proto_io.h"
#include "core/workspace.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

TEST(TensorTest, DtypesSizesAndNames) {
  EXPECT_EQ(DataTypeSize(DataType::kFloat32), 4u);
  EXPECT_EQ(DataTypeSize(DataType::kFloat64), 8u);
  EXPECT_EQ(DataTypeSize(DataType::kFloat16), 2u);
  EXPECT_EQ(DataTypeSize(DataType::kBFloat16), 2u);
  EXPECT_EQ(DataTypeSize(DataType::kInt8), 1u);
  EXPECT_EQ(DataTypeSize(DataType::kUInt8), 1u);
  EXPECT_EQ(DataTypeSize(DataType::kInt32), 4u);
  EXPECT_EQ(DataTypeSize(DataType::kInt64), 8u);
  EXPECT_EQ(DataTypeSize(DataType::kBool), 1u);
  EXPECT_EQ(*ParseDataType("bfloat16"), DataType::kBFloat16);
  EXPECT_EQ(*ParseDataType("float"), DataType::kFloat32);
  EXPECT_FALSE(ParseDataType("complex64").ok());
}

TEST(TensorTest, AllocationsAre64ByteAligned) {
  for (int n : {1, 3, 17, 1000}) {
    auto t = Tensor::Create(DataType::kInt8, {n});
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t->raw_data()) % 64, 0u) << n;
  }
}

TEST(TensorTest, RankZeroAndZeroSize) {
  Tensor scalar = Tensor::FromVector<float>({}, {2.5f});
  EXPECT_EQ(scalar.rank(), 0u);
  EXPECT_EQ(scalar.num_elements(), 1);
  EXPECT_EQ(scalar.data<float>()[0], 2.5f);
  auto empty = Tensor::Create(DataType::kFloat32, {3, 0, 2});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->num_elements(), 0);
  EXPECT_EQ(empty->nbytes(), 0u);
  EXPECT_EQ(empty->raw_data(), nullptr);
  EXPECT_FALSE(Tensor::Create(DataType::kFloat32, {2, -1}).ok());
}

TEST(TensorTest, ResizeKeepsBufferWhenItFits) {
  auto t = Tensor::Create(DataType::kFloat32, {4, 4});
  void* p = t->raw_data();
  ASSERT_TRUE(t->Resize(DataType::kFloat32, {2, 8}).ok());
  EXPECT_EQ(t->raw_data(), p);
  ASSERT_TRUE(t->Resize(DataType::kInt8, {3}).ok());
  EXPECT_EQ(t->raw_data(), p);
  ASSERT_TRUE(t->Resize(DataType::kFloat64, {100}).ok());
  EXPECT_NE(t->raw_data(), nullptr);
  EXPECT_EQ(t->num_elements(), 100);
}

TEST(TensorTest, SliceIsAnAliasWithoutCopy) {
  Tensor t = Tensor::FromVector<int32_t>({3, 2}, {0, 1, 2, 3, 4, 5});
  auto rows = t.Slice(1, 3);
  ASSERT_TRUE(rows.ok());
  EXPECT_TRUE(rows->is_alias());
  EXPECT_EQ(rows->dims(), (Shape{2, 2}));
  EXPECT_EQ(rows->data<int32_t>(), t.data<int32_t>() + 2);
  rows->data<int32_t>()[0] = 42;
  EXPECT_EQ(t.data<int32_t>()[2], 42);
  EXPECT_FALSE(t.Slice(2, 4).ok());
  EXPECT_FALSE(Tensor::FromVector<float>({}, {1.0f}).Slice(0, 1).ok());
  // Resizing an alias to another size is refused rather than detaching silently.
  EXPECT_FALSE(rows->ResizeOrCheckAlias(DataType::kInt32, {3, 2}).ok());
  EXPECT_TRUE(rows->ResizeOrCheckAlias(DataType::kInt32, {4}).ok());
}

TEST(TensorTest, ProtoRoundTrip) {
  Tensor t = Tensor::FromVector<int64_t>({2, 2}, {1, -2, 3, 1LL << 40});
  auto back = TensorFromProto(TensorToProto(t, "x"));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->dims(), t.dims());
  for (int i = 0; i < 4; ++i) EXPECT_EQ(back->data<int64_t>()[i], t.data<int64_t>()[i]);
  TensorProto typed;
  typed.set_name("w");
  typed.add_dims(3);
  typed.set_data_type(1);
  typed.add_float_data(1.5f);
  auto bad = TensorFromProto(typed);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("tensor 'w'"), std::string::npos) << bad.status();
}

TEST(WorkspaceTest, ChildSeesParentAndShadows) {
  Workspace parent;
  parent.SetBlob("a", Tensor::FromVector<float>({1}, {1.0f}));
  Workspace child(&parent);
  ASSERT_NE(child.GetBlob("a"), nullptr);
  EXPECT_EQ(child.GetBlob("a")->data<float>()[0], 1.0f);
  child.SetBlob("a", Tensor::FromVector<float>({1}, {2.0f}));
  EXPECT_EQ(child.GetBlob("a")->data<float>()[0], 2.0f);
  EXPECT_EQ(parent.GetBlob("a")->data<float>()[0], 1.0f);
  EXPECT_EQ(parent.GetBlob("b"), nullptr);
  EXPECT_EQ(child.LocalBlobNames(), std::vector<std::string>{"a"});
}

TEST(WorkspaceTest, AliasOfParentSlice) {
  Workspace parent;
  parent.SetBlob("seq", Tensor::FromVector<float>({4, 2}, {0, 1, 2, 3, 4, 5, 6, 7}));
  Workspace step(&parent);
  ASSERT_TRUE(step.Alias("x_t", "seq", 2, 3).ok());
  Tensor* x = step.GetBlob("x_t");
  EXPECT_EQ(x->dims(), (Shape{1, 2}));
  EXPECT_EQ(x->data<float>(), parent.GetBlob("seq")->data<float>() + 4);
  EXPECT_EQ(step.Alias("y", "nope", 0, 1).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(step.Alias("y", "seq", 3, 9).code(), absl::StatusCode::kOutOfRange);
}

}  // namespace
}  // namespace loom

namespace loom {
namespace {

// ONNX sequence and optional values (Tensor::MakeValue): their type names
// parse back, tensors are copied in unless they already belong to a value,
// and mismatched types are refused by name.
TEST(TensorTest, SequenceAndOptionalValues) {
  EXPECT_STREQ(DataTypeName(SequenceOf(DataType::kInt64)), "seq(int64)");
  EXPECT_STREQ(DataTypeName(OptionalOf(SequenceOf(DataType::kFloat32))), "optional(seq(float32))");
  EXPECT_EQ(*ParseDataType("optional(seq(float32))"), OptionalOf(SequenceOf(DataType::kFloat32)));
  EXPECT_FALSE(ParseDataType("seq(seq(float32))").ok());
  EXPECT_EQ(DataTypeSize(SequenceOf(DataType::kFloat32)), 0u);

  Tensor a = Tensor::FromVector<float>({2}, {1, 2});
  absl::StatusOr<Tensor> s = Tensor::MakeValue(SequenceOf(DataType::kFloat32), {a});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->is_value());
  EXPECT_EQ(s->nbytes(), 0u);
  ASSERT_EQ(s->values().size(), 1u);
  // Copied: writing `a` afterwards leaves the sequence as it was.
  EXPECT_NE(s->values()[0].raw_data(), a.raw_data());
  a.data<float>()[0] = 9;
  EXPECT_EQ(s->values()[0].data<float>()[0], 1);
  // A tensor of a value is shared by the next value made from it.
  absl::StatusOr<Tensor> s2 = Tensor::MakeValue(SequenceOf(DataType::kFloat32), {s->values()[0], a});
  ASSERT_TRUE(s2.ok()) << s2.status();
  EXPECT_EQ(s2->values()[0].raw_data(), s->values()[0].raw_data());
  EXPECT_TRUE(s2->values()[0].in_value());
  // An optional of the sequence, and a none.
  absl::StatusOr<Tensor> o = Tensor::MakeValue(OptionalOf(SequenceOf(DataType::kFloat32)), {*s2});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->DebugString(), "optional(seq(float32)) of seq(float32) of 2");
  EXPECT_TRUE(Tensor::MakeValue(OptionalOf(DataType::kInt32), {})->values().empty());

  absl::StatusOr<Tensor> bad = Tensor::MakeValue(SequenceOf(DataType::kInt64), {a});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("value 0 is float32[2]; expected int64"), std::string::npos) << bad.status();
  bad = Tensor::MakeValue(OptionalOf(DataType::kFloat32), {a, a});
  ASSERT_FALSE(bad.ok());
  bad = Tensor::MakeValue(DataType::kFloat32, {});
  ASSERT_FALSE(bad.ok());
  // Resizing a value's handle makes it a tensor again.
  Tensor t = *s;
  ASSERT_TRUE(t.Resize(DataType::kFloat32, {3}).ok());
  EXPECT_FALSE(t.is_value());
  EXPECT_TRUE(t.values().empty());
  EXPECT_EQ(s->values().size(), 1u);
}

}  // namespace
}  // namespace loom

namespace loom {
namespace {

// String tensors: elements of their own (no bytes), copied by Clone and
// CopyTensorBytes, through TensorProto and back.
TEST(TensorTest, StringTensors) {
  absl::StatusOr<Tensor> t = Tensor::Create(DataType::kString, {2});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->nbytes(), 0u);
  EXPECT_EQ(t->raw_data(), nullptr);
  ASSERT_EQ(t->strings().size(), 2u);
  (*t->mutable_strings())[0] = "Monday";
  (*t->mutable_strings())[1] = std::string("a\0b", 3);
  absl::StatusOr<Tensor> c = t->Clone();
  ASSERT_TRUE(c.ok());
  (*t->mutable_strings())[0] = "changed";
  EXPECT_EQ(c->strings()[0], "Monday");
  absl::StatusOr<Tensor> back = TensorFromProto(TensorToProto(*c, "s"));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->dtype(), DataType::kString);
  EXPECT_EQ(back->dims(), Shape({2}));
  EXPECT_EQ(back->strings()[1], std::string("a\0b", 3));
  Tensor dst = *Tensor::Create(DataType::kString, {2});
  ASSERT_TRUE(CopyTensorBytes(*c, &dst).ok());
  EXPECT_EQ(dst.strings()[0], "Monday");
  Tensor floats = Tensor::Zeros(DataType::kFloat32, {2});
  EXPECT_FALSE(CopyTensorBytes(*c, &floats).ok());
  // A proto declaring more strings than it holds is refused.
  TensorProto p = TensorToProto(*c, "s");
  p.add_dims(3);
  EXPECT_FALSE(TensorFromProto(p).ok());
  EXPECT_STREQ(DataTypeName(DataType::kString), "string");
  EXPECT_EQ(*ParseDataType("string"), DataType::kString);
}

}  // namespace
}  // namespace loom

namespace loom {
namespace {

// TensorFromProto(&&) takes raw_data without a copy where it can and reads
// the same values; a proto whose bytes do not fit is still an error.
TEST(TensorTest, FromProtoTakesTheBytes) {
  Tensor w = Tensor::FromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  TensorProto p = TensorToProto(w, "w");
  const void* bytes = p.raw_data().data();
  absl::StatusOr<Tensor> t = TensorFromProto(std::move(p));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->raw_data(), bytes);  // the string's memory, not a copy
  EXPECT_EQ(t->dims(), Shape({2, 3}));
  EXPECT_EQ(t->data<float>()[5], 6);
  EXPECT_FALSE(p.has_raw_data());
  TensorProto bad = TensorToProto(w, "w");
  bad.add_dims(2);
  absl::StatusOr<Tensor> e = TensorFromProto(std::move(bad));
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("tensor 'w'"), std::string::npos) << e.status();
}

}  // namespace
}  // namespace loom
