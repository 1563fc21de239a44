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

// Each call registers a fresh plugin "p<k>" with op "Op<k>" and its kernel.
LoomStatus* NumberedPluginInit(const LoomApi* api, LoomRegistrar* reg) {
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
  EXPECT_EQ(registry.OpTypes().size(), static_cast<size_t>(kLoads));
  EXPECT_EQ(registry.FindSchema("Op0"), first[0]) << "a schema moved while plugins loaded";
  EXPECT_GT(seen.load(), 0);
}

}  // namespace
}  // namespace loom
