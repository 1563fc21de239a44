// How the core reads plugin structs across ABI versions: a struct of the
// layout its declared version had is read (an older one's members past its
// struct_size get zero defaults); any other struct_size, larger (a header
// with an extra field) or smaller, is refused with the struct, the size
// found and the size expected named; arrays with uneven element sizes too.
#include "core/abi_reader.h"

#include <cstring>

#include "gtest/gtest.h"

namespace loom {
namespace {

// What a plugin built against an edited header would pass: the layout plus
// a member of its own.
struct EditedKernelDef {
  LoomKernelDef def;
  void* extra_pointer;
};

struct EditedAttrSpec {
  LoomAttrSpec a;
  int64_t extra;
};

TEST(AbiReader, AStructLargerThanItsVersionsLayoutIsRefusedByName) {
  EditedKernelDef f{};
  f.def.struct_size = sizeof f;
  f.def.op_type = "Op";
  absl::StatusOr<LoomKernelDef> r = ReadStruct(&f.def, LOOM_ABI_VERSION, "LoomKernelDef");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "LoomKernelDef.struct_size is " + std::to_string(sizeof f) + ", but version " +
                std::to_string(LOOM_ABI_VERSION) + " of the ABI (the version the plugin declares) has " +
                std::to_string(sizeof(LoomKernelDef)) +
                ": the plugin was built against a loom_c_api.h that is not that version's (edited, or another "
                "version than it declares)");
}

TEST(AbiReader, TheCurrentLayoutIsReadWhole) {
  LoomKernelDef d{};
  d.struct_size = sizeof d;
  d.op_type = "Op";
  absl::StatusOr<LoomKernelDef> r = ReadStruct(&d, LOOM_ABI_VERSION, "LoomKernelDef");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_STREQ(r->op_type, "Op");
}

TEST(AbiReader, AnOlderVersionsSmallerStructGetsZeroDefaults) {
  LoomKernelDef d;
  std::memset(&d, 0xAB, sizeof d);  // garbage past the version-1 size
  d.struct_size = abi_v1::kKernelDefSize;
  absl::StatusOr<LoomKernelDef> r = ReadStruct(&d, 1, "LoomKernelDef");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->prepare, nullptr) << "a member the plugin did not have must read as its default";
  // The same size from a plugin declaring version 2, which had prepare: not that version's layout.
  EXPECT_FALSE(ReadStruct(&d, 2, "LoomKernelDef").ok());
}

TEST(AbiReader, TooSmallStructIsRefusedWithItsName) {
  LoomKernelDef d{};
  d.struct_size = 16;
  absl::StatusOr<LoomKernelDef> r = ReadStruct(&d, 1, "LoomKernelDef");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("LoomKernelDef.struct_size is 16, but version 1 of the ABI"),
            std::string::npos) << r.status();
}

TEST(AbiReader, ArrayElementsOfAnotherLayoutAreRefusedByName) {
  EditedAttrSpec a[2] = {};
  for (auto& e : a) {
    e.a.struct_size = sizeof(EditedAttrSpec);
    e.a.name = "n";
  }
  auto r = ReadAttrSpecs(&a[0].a, 2, LOOM_ABI_VERSION);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("LoomAttrSpec.struct_size is " + std::to_string(sizeof(EditedAttrSpec))),
            std::string::npos) << r.status();
}

TEST(AbiReader, ArraysAreWalkedWithTheElementsStructSize) {
  LoomFormalParam a[2] = {};
  const char* names[2] = {"X", "W"};
  for (int i = 0; i < 2; ++i) {
    a[i].struct_size = sizeof(LoomFormalParam);
    a[i].name = names[i];
    a[i].type_str = "T";
    a[i].option = i == 1 ? LOOM_PARAM_OPTIONAL : LOOM_PARAM_SINGLE;
  }
  auto r = ReadFormalParams(a, 2, 3);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_STREQ((*r)[1].name, "W");
  EXPECT_EQ((*r)[1].option, LOOM_PARAM_OPTIONAL);

  a[1].struct_size = 8;
  r = ReadFormalParams(a, 2, 3);
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
