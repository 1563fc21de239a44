// The plugin loader's failure modes, each with a purpose-built bad plugin
// (tests/plugins/bad_plugin.cc). After every failure the registry must be
// exactly as before: same generation, same plugins, same ops.
#include <cstdlib>
#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/plugin_loader.h"
#include "core/registry.h"
#include "gtest/gtest.h"
#include "ops/std_ops.h"

namespace loom {
namespace {

namespace fs = std::filesystem;

constexpr char kCpu[] = "plugins/cpu/libloom_cpu.so";
constexpr char kExample[] = "plugins/example/libloom_example.so";
std::string Bad(const std::string& kind) { return absl::StrCat("tests/plugins/libbad_", kind, ".so"); }

class LoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(RegisterBuiltinPlugin(&registry_, &LoomStdOpsInit, "<built-in>").ok());
    absl::Status s = LoadPlugin(&registry_, kCpu);
    ASSERT_TRUE(s.ok()) << s;
  }
  // Loads `path`, expects failure containing every `needle`, and checks the
  // registry did not change.
  void ExpectFails(const std::string& path, std::initializer_list<std::string> needles) {
    uint64_t gen = registry_.generation();
    size_t plugins = registry_.Plugins().size();
    size_t ops = registry_.Schemas().size();
    absl::Status s = LoadPlugin(&registry_, path);
    ASSERT_FALSE(s.ok()) << path;
    for (const std::string& n : needles) EXPECT_NE(s.message().find(n), std::string::npos) << "'" << n << "' not in: " << s;
    EXPECT_EQ(registry_.generation(), gen);
    EXPECT_EQ(registry_.Plugins().size(), plugins);
    EXPECT_EQ(registry_.Schemas().size(), ops);
  }
  Registry registry_;
};

TEST_F(LoaderTest, NoSuchFile) {
  ExpectFails("tests/plugins/libdoes_not_exist.so", {"no such file", "libdoes_not_exist.so"});
  ExpectFails("does_not_exist_by_name", {"no such file", "searched", "loom_plugins"});
}

TEST_F(LoaderTest, NotASharedObject) {
  ExpectFails("tests/plugins/not_a_plugin.so", {"not a shared object", "not_a_plugin.so"});
}

TEST_F(LoaderTest, NoEntryPoint) { ExpectFails(Bad("no_entry"), {"no entry point 'LoomPluginInit'"}); }

TEST_F(LoaderTest, AbiVersionNotProvided) {
  ExpectFails(Bad("abi"), {"ABI version 99", absl::StrCat("provides ABI versions 1 to ", LOOM_ABI_VERSION), "future"});
}

TEST_F(LoaderTest, FailureHalfWayLeavesRegistryUnchanged) {
  ExpectFails(Bad("halfway"), {"halfway plugin gives up"});
  EXPECT_EQ(registry_.FindSchema("HalfwayOp"), nullptr);
  EXPECT_TRUE(registry_.KernelsFor("HalfwayOp").empty());
  EXPECT_FALSE(registry_.FindPlugin("halfway").has_value());
}

// A LoomAttrSpec with a field of the plugin's own (an edited header): the
// schema is refused naming the struct and both sizes, and nothing of the
// plugin stays.
TEST_F(LoaderTest, AStructOfAnotherLayoutThanItsVersionIsRefusedByName) {
  ExpectFails(Bad("edited_header"),
              {"schema 'EditedOp'", absl::StrCat("LoomAttrSpec.struct_size is ", sizeof(LoomAttrSpec) + 8),
               absl::StrCat("has ", sizeof(LoomAttrSpec)), "not that version's"});
  EXPECT_EQ(registry_.FindSchema("EditedOp"), nullptr);
  EXPECT_FALSE(registry_.FindPlugin("edited").has_value());
}

TEST_F(LoaderTest, DuplicateSchemaNamesOwner) {
  ExpectFails(Bad("dup_schema"), {"schema 'Relu'", "plugin 'loom.std'", "dup_schema"});
  EXPECT_EQ(registry_.FindSchema("DupSchemaFresh"), nullptr);  // staged part rolled back
}

TEST_F(LoaderTest, DuplicateKernelKeyNamesOwner) {
  size_t relu_kernels = registry_.KernelsFor("Relu").size();
  ExpectFails(Bad("dup_kernel"), {"Relu", "plugin 'cpu'"});
  EXPECT_EQ(registry_.KernelsFor("Relu").size(), relu_kernels);
}

TEST_F(LoaderTest, KernelForUnknownOp) { ExpectFails(Bad("unknown_op"), {"unknown op 'NoSuchOpAnywhere'"}); }

TEST_F(LoaderTest, MustDeclareItself) { ExpectFails(Bad("no_declare"), {"DeclarePlugin"}); }

TEST_F(LoaderTest, MissingDependencyIsNamed) {
  // Copied away from its $ORIGIN-relative runpath, the plugin cannot find
  // libloom_testdep.so.
  fs::path dir = fs::path(std::getenv("TEST_TMPDIR")) / "missing_dep";
  fs::create_directories(dir);
  fs::copy_file(Bad("missing_dep"), dir / "libbad_missing_dep.so", fs::copy_options::overwrite_existing);
  ExpectFails((dir / "libbad_missing_dep.so").string(), {"libloom_testdep.so"});
}

TEST_F(LoaderTest, SameFileTwiceIsANoOp) {
  uint64_t gen = registry_.generation();
  size_t kernels = registry_.KernelsFor("Relu").size();
  absl::Status s = LoadPlugin(&registry_, kCpu);
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(registry_.generation(), gen);
  EXPECT_EQ(registry_.KernelsFor("Relu").size(), kernels);
  EXPECT_EQ(registry_.Plugins().size(), 2u);
}

TEST_F(LoaderTest, GenerationCountsCommits) {
  uint64_t gen = registry_.generation();
  ASSERT_TRUE(LoadPlugin(&registry_, kExample).ok());
  EXPECT_EQ(registry_.generation(), gen + 1);
}

TEST_F(LoaderTest, SearchPathAndDefaultFolderSkipBrokenPlugins) {
  fs::path dir = fs::path(std::getenv("TEST_TMPDIR")) / "plugin_dir";
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy_file(kExample, dir / "libloom_example.so");
  fs::copy_file("tests/plugins/not_a_plugin.so", dir / "broken.so");
  fs::copy_file(Bad("halfway"), dir / "libhalfway.so");
  // By name, through a search path: lib<name>.so / libloom_<name>.so.
  Registry by_name;
  ASSERT_TRUE(RegisterBuiltinPlugin(&by_name, &LoomStdOpsInit, "<built-in>").ok());
  absl::Status s = LoadPlugin(&by_name, "example", {dir.string()});
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_TRUE(by_name.FindPlugin("example").has_value());

  DefaultLoadReport report = LoadDefaultPlugins(&registry_, {dir.string()});
  EXPECT_TRUE(registry_.FindPlugin("example").has_value());
  ASSERT_EQ(report.warnings.size(), 2u);
  EXPECT_NE(report.warnings[0].find("broken.so"), std::string::npos) << report.warnings[0];
  EXPECT_NE(report.warnings[1].find("halfway"), std::string::npos) << report.warnings[1];
  EXPECT_EQ(registry_.FindSchema("HalfwayOp"), nullptr);
  // Explicitly, the same broken file is an error.
  ExpectFails((dir / "broken.so").string(), {"not a shared object"});
}

}  // namespace
}  // namespace loom
