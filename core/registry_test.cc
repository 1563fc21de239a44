// The registry under concurrent loads and lookups: lookups racing plugin
// loads return data that stays valid (plugin records by value; schemas and
// kernels are never removed, so their pointers live as long as the registry).
#include "core/registry.h"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/api/loom_sdk.h"
#include "core/plugin_loader.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

std::atomic<int> next_plugin{0};

class Echo {
 public:
  sdk::Status Init(const sdk::KernelInfo&) { return sdk::Status::Ok(); }
  sdk::Status Compute(sdk::KernelContext&) { return sdk::Status::Ok(); }
};

// Registrar::Kernel<K> calls K's Prepare only when it is public with the
// SDK's signature; any other Prepare (private, or taking a non-const
// context) would silently never run, so Kernel<K> static_asserts against
// it. The traits it asserts with, on each kind of kernel class:
class PublicPrepare : public Echo {
 public:
  sdk::Status Prepare(const sdk::PrepareContext&) { return sdk::Status::Ok(); }
};
class PrivatePrepare : public Echo {
  sdk::Status Prepare(const sdk::PrepareContext&) { return sdk::Status::Ok(); }
};
class NonConstContextPrepare : public Echo {
 public:
  sdk::Status Prepare(sdk::PrepareContext&) { return sdk::Status::Ok(); }
};
class FinalEcho final : public Echo {};
TEST(Registrar, KernelsWhosePrepareTheSdkCannotCallAreCaughtAtCompileTime) {
  using sdk::internal::DeclaresPrepare;
  using sdk::internal::HasPrepare;
  static_assert(HasPrepare<PublicPrepare>::value && DeclaresPrepare<PublicPrepare>::value);
  static_assert(!HasPrepare<PrivatePrepare>::value && DeclaresPrepare<PrivatePrepare>::value);
  static_assert(!HasPrepare<NonConstContextPrepare>::value && DeclaresPrepare<NonConstContextPrepare>::value);
  static_assert(!HasPrepare<Echo>::value && !DeclaresPrepare<Echo>::value);
  static_assert(!DeclaresPrepare<FinalEcho>::value);
}

// Each call registers a fresh plugin "p<k>" with op "Op<k>" and its kernel.
LoomStatus* NumberedPluginInit(const LoomApi* api, LoomRegistrar* reg) {
  // per-thread cache: this thread's plugin name, for the init body (a plain function: no captures)
  static thread_local std::string name;
  name = absl::StrCat("p", next_plugin.fetch_add(1));
  return sdk::internal::RunPluginInit(api, reg, name.c_str(), "1", [](sdk::Registrar& r) -> sdk::Status {
    std::string op_type = absl::StrCat("Op", name.substr(1));
    sdk::SchemaBuilder s(op_type);
    s.Input("X", "T").Output("Y", "T").TypeConstraint("T", {LOOM_DTYPE_FLOAT});
    LOOM_SDK_RETURN_IF_ERROR(r.Register(s));
    return r.Kernel<Echo>(op_type);
  });
}

TEST(Registry, LookupsRacingLoadsStayValid) {
  Registry registry;
  constexpr int kLoads = 300;
  std::atomic<bool> done{false};
  std::atomic<int> seen{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&] {
      // Passes while plugins load, and one more after the last load.
      for (bool last = false; !last;) {
        last = done.load();
        for (int k = 0; k < kLoads; k += 17) {
          std::optional<PluginRecord> rec = registry.FindPlugin(absl::StrCat("p", k));
          if (!rec) continue;
          // The copy stays whole whatever loads meanwhile.
          ASSERT_EQ(rec->name, absl::StrCat("p", k));
          ASSERT_EQ(rec->schemas, std::vector<std::string>{absl::StrCat("Op", k)});
          const OpSchema* s = registry.FindSchema(absl::StrCat("Op", k));
          ASSERT_NE(s, nullptr);
          ASSERT_EQ(s->plugin, rec->name);
          auto kernel = registry.SelectKernel(s->op_type, "CPU", "", {{"T", DataType::kFloat32}});
          ASSERT_TRUE(kernel.ok()) << kernel.status();
          seen.fetch_add(1);
        }
        ASSERT_LE(registry.Plugins().size(), static_cast<size_t>(kLoads));
      }
    });
  }
  std::vector<const OpSchema*> first;
  for (int i = 0; i < kLoads; ++i) {
    ASSERT_TRUE(RegisterBuiltinPlugin(&registry, &NumberedPluginInit, "<test>").ok());
    if (i == 0) first.push_back(registry.FindSchema("Op0"));
  }
  done.store(true);
  for (auto& t : readers) t.join();
  EXPECT_EQ(registry.Plugins().size(), static_cast<size_t>(kLoads));
  EXPECT_EQ(registry.Schemas().size(), static_cast<size_t>(kLoads));
  EXPECT_EQ(registry.FindSchema("Op0"), first[0]) << "a schema moved while plugins loaded";
  EXPECT_GT(seen.load(), 0);
}

sdk::Status NoGradients(sdk::GradientContext& c) {
  c.NoGradient(0);
  return sdk::Status::Ok();
}
sdk::Status Schema(sdk::Registrar& r, const std::string& op_type, bool with_gradient) {
  sdk::SchemaBuilder s(op_type);
  s.Input("X", "T").Output("Y", "T").TypeConstraint("T", {LOOM_DTYPE_FLOAT});
  if (with_gradient) s.Gradient<&NoGradients>();
  return r.Register(s);
}
// "owner": schemas Plain (no gradient maker) and Made (its own).
LoomStatus* OwnerInit(const LoomApi* api, LoomRegistrar* reg) {
  return sdk::internal::RunPluginInit(api, reg, "owner", "1", [](sdk::Registrar& r) -> sdk::Status {
    LOOM_SDK_RETURN_IF_ERROR(Schema(r, "Plain", false));
    return Schema(r, "Made", true);
  });
}
LoomStatus* GiverInit(const LoomApi* api, LoomRegistrar* reg) {
  return sdk::internal::RunPluginInit(api, reg, "giver", "1",
                                      [](sdk::Registrar& r) { return r.Gradient<&NoGradients>("Plain"); });
}
LoomStatus* SecondGiverInit(const LoomApi* api, LoomRegistrar* reg) {
  return sdk::internal::RunPluginInit(api, reg, "second", "1",
                                      [](sdk::Registrar& r) { return r.Gradient<&NoGradients>("Plain"); });
}
LoomStatus* OverrideInit(const LoomApi* api, LoomRegistrar* reg) {
  return sdk::internal::RunPluginInit(api, reg, "override", "1",
                                      [](sdk::Registrar& r) { return r.Gradient<&NoGradients>("Made"); });
}
LoomStatus* NoSchemaInit(const LoomApi* api, LoomRegistrar* reg) {
  return sdk::internal::RunPluginInit(api, reg, "noschema", "1",
                                      [](sdk::Registrar& r) { return r.Gradient<&NoGradients>("Nowhere"); });
}
// Registers a schema and a gradient for it in one plugin, then fails: all
// of it is discarded.
LoomStatus* HalfInit(const LoomApi* api, LoomRegistrar* reg) {
  return sdk::internal::RunPluginInit(api, reg, "half", "1", [](sdk::Registrar& r) -> sdk::Status {
    LOOM_SDK_RETURN_IF_ERROR(Schema(r, "Staged", false));
    LOOM_SDK_RETURN_IF_ERROR(r.Gradient<&NoGradients>("Staged"));
    return sdk::Status(LOOM_INTERNAL, "fails after registering");
  });
}

// ABI 7's RegisterGradient: a plugin gives a gradient maker to an op whose
// schema (another plugin's) has none; one maker per op.
TEST(Registry, GradientsRegisteredApartFromTheirSchema) {
  Registry registry;
  ASSERT_TRUE(RegisterBuiltinPlugin(&registry, &OwnerInit, "<test>").ok());
  EXPECT_EQ(registry.FindGradient("Plain"), nullptr);
  EXPECT_NE(registry.FindGradient("Made"), nullptr);
  ASSERT_TRUE(RegisterBuiltinPlugin(&registry, &GiverInit, "<test>").ok());
  EXPECT_NE(registry.FindGradient("Plain"), nullptr);
  EXPECT_EQ(registry.GradientOwner(OpKey{"", "Plain"}), "giver");
  EXPECT_EQ(registry.FindPlugin("giver")->gradients, std::vector<std::string>{"Plain"});

  absl::Status second = RegisterBuiltinPlugin(&registry, &SecondGiverInit, "<test>");
  EXPECT_EQ(second.code(), absl::StatusCode::kAlreadyExists) << second;
  EXPECT_NE(second.message().find("plugin 'giver'"), std::string::npos) << second;
  absl::Status over = RegisterBuiltinPlugin(&registry, &OverrideInit, "<test>");
  EXPECT_EQ(over.code(), absl::StatusCode::kAlreadyExists) << over;
  EXPECT_NE(over.message().find("has a gradient maker"), std::string::npos) << over;
  absl::Status none = RegisterBuiltinPlugin(&registry, &NoSchemaInit, "<test>");
  EXPECT_EQ(none.code(), absl::StatusCode::kNotFound) << none;
  EXPECT_NE(none.message().find("Nowhere"), std::string::npos) << none;
  EXPECT_FALSE(RegisterBuiltinPlugin(&registry, &HalfInit, "<test>").ok());
  EXPECT_EQ(registry.FindSchema("Staged"), nullptr);
  EXPECT_EQ(registry.FindGradient("Staged"), nullptr);
  EXPECT_FALSE(registry.FindPlugin("second") || registry.FindPlugin("override") || registry.FindPlugin("half"));
}

// ABI 11's LoomSchemaDef.fold: kept on the schema; a value outside
// LoomFoldKind refuses the plugin, naming the schema and the value.
LoomStatus* FoldsInit(const LoomApi* api, LoomRegistrar* reg) {
  return sdk::internal::RunPluginInit(api, reg, "folds", "1", [](sdk::Registrar& r) -> sdk::Status {
    sdk::SchemaBuilder s("FoldsFromShapes");
    s.Input("X", "T").Output("Y", "tensor(int64)").TypeConstraint("T", {LOOM_DTYPE_FLOAT}).Fold(LOOM_FOLD_INPUT_SHAPES);
    return r.Register(s);
  });
}
// Writes fold = 7 into the C struct, as a plugin built wrongly might (no
// LoomFoldKind has that value, so the SDK's typed builder cannot say it).
LoomStatus* BadFoldInit(const LoomApi* api, LoomRegistrar* reg) {
  LoomPluginInfo info{};
  info.struct_size = sizeof(LoomPluginInfo);
  info.abi_version = LOOM_ABI_VERSION;
  info.name = "bad_fold";
  info.version = "1";
  if (LoomStatus* st = api->DeclarePlugin(reg, &info)) return st;
  sdk::SchemaBuilder s("BadFold");
  s.Input("X", "T").Output("Y", "T").TypeConstraint("T", {LOOM_DTYPE_FLOAT});
  LoomSchemaDef def = s.Build();  // its arrays stay with `s`
  def.fold = 7;
  return api->RegisterSchema(reg, &def);
}

TEST(Registry, SchemasSayWhetherTheyFold) {
  Registry registry;
  ASSERT_TRUE(RegisterBuiltinPlugin(&registry, &FoldsInit, "<test>").ok());
  ASSERT_NE(registry.FindSchema("FoldsFromShapes"), nullptr);
  EXPECT_EQ(registry.FindSchema("FoldsFromShapes")->fold, LOOM_FOLD_INPUT_SHAPES);
  absl::Status bad = RegisterBuiltinPlugin(&registry, &BadFoldInit, "<test>");
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument) << bad;
  EXPECT_NE(bad.message().find("schema 'BadFold': fold is 7"), std::string::npos) << bad;
  EXPECT_EQ(registry.FindSchema("BadFold"), nullptr);
}

}  // namespace
}  // namespace loom
