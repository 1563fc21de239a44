// How the core reads plugin structs across ABI versions: a newer plugin's
// larger structs (members appended after this core) are read up to what the
// core knows; an older one's smaller structs get zero defaults; sizes below
// the oldest layout, and arrays with uneven element sizes, are refused with
// the struct named.
#include "core/abi_reader.h"

#include <cstring>

#include "gtest/gtest.h"

namespace loom {
namespace {

// What a plugin built against a future header would pass: the current
// layout plus appended members.
struct FutureKernelDef {
  LoomKernelDef def;
  void* appended_pointer;
  int64_t appended_int;
};

struct FutureFormalParam {
  LoomFormalParam p;
  const char* appended;
};

TEST(AbiReader, LargerStructFromANewerPluginIsReadUpToWhatTheCoreKnows) {
  FutureKernelDef f;
  std::memset(&f, 0xAB, sizeof f);
  f.def.struct_size = sizeof f;
  f.def.op_type = "Op";
  f.def.prepare = nullptr;
  absl::StatusOr<LoomKernelDef> r = ReadStruct(&f.def, abi_v1::kKernelDefSize, "LoomKernelDef");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->struct_size, sizeof(LoomKernelDef));
  EXPECT_STREQ(r->op_type, "Op");
  EXPECT_EQ(r->prepare, nullptr);
}

TEST(AbiReader, SmallerStructFromAnOlderPluginGetsZeroDefaults) {
  LoomKernelDef d;
  std::memset(&d, 0xAB, sizeof d);  // garbage past the version-1 size
  d.struct_size = abi_v1::kKernelDefSize;
  absl::StatusOr<LoomKernelDef> r = ReadStruct(&d, abi_v1::kKernelDefSize, "LoomKernelDef");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->prepare, nullptr) << "a member the plugin did not have must read as its default";
}

TEST(AbiReader, TooSmallStructIsRefusedWithItsName) {
  LoomKernelDef d{};
  d.struct_size = 16;
  absl::StatusOr<LoomKernelDef> r = ReadStruct(&d, abi_v1::kKernelDefSize, "LoomKernelDef");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "LoomKernelDef.struct_size is 16; expected at least 80 (the oldest layout this core reads)");
}

TEST(AbiReader, ArraysAreWalkedWithTheElementsStructSize) {
  FutureFormalParam a[2] = {};
  const char* names[2] = {"X", "W"};
  for (int i = 0; i < 2; ++i) {
    a[i].p.struct_size = sizeof(FutureFormalParam);
    a[i].p.name = names[i];
    a[i].p.type_str = "T";
    a[i].p.option = i == 1 ? LOOM_PARAM_OPTIONAL : LOOM_PARAM_SINGLE;
    a[i].appended = "ignored";
  }
  auto r = ReadFormalParams(&a[0].p, 2, 3);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_STREQ((*r)[1].name, "W");
  EXPECT_EQ((*r)[1].option, LOOM_PARAM_OPTIONAL);

  a[1].p.struct_size = sizeof(LoomFormalParam);
  r = ReadFormalParams(&a[0].p, 2, 3);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("LoomFormalParam[1].struct_size"), std::string::npos) << r.status();
}

TEST(AbiReader, VersionOneArraysUseTheFrozenLayout) {
  const LoomDataType f32[] = {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE};
  abi_v1::TypeConstraint v1[2] = {{"T", f32, 2, "floats"}, {"I", f32, 1, "one"}};
  auto r = ReadTypeConstraints(reinterpret_cast<const LoomTypeConstraint*>(v1), 2, 1);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_STREQ((*r)[1].type_str, "I");
  EXPECT_EQ((*r)[0].num_allowed, 2u);
  EXPECT_EQ((*r)[0].allowed[1], LOOM_DTYPE_DOUBLE);
}

}  // namespace
}  // namespace loom
