// A model over protobuf's 2 GB limit, its two float32 weights (2.24 GB
// together) in an external data file beside it (as onnx.save_model with
// save_as_external_data writes one), imports and runs, and the process's
// peak RSS stays under 1.2x the weights: the bytes are read once, into the
// memory the tensors keep (Net::Create(NetDef&&), TensorFromProto(&&)).
// Skipped under sanitizers, whose shadow memory would be measured too.
#include <sys/resource.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/net.h"
#include "core/workspace.h"
#include "frontend/onnx/onnx_importer.h"
#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"
#include "testing/onnx_models.h"

namespace loom {
namespace onnx_import {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kN = 280'000'000;  // floats per weight: 1.12 GB each

// Weight k's element i.
float Value(int k, int64_t i) { return static_cast<float>((i % 1024) * (k + 1)); }

TEST(ExternalDataLarge, ModelOver2GBLoadsWithItsWeightsHeldOnce) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "peak RSS is measured without sanitizers";
#endif
  const fs::path dir = fs::path(std::getenv("TEST_TMPDIR")) / "large";
  fs::create_directories(dir);
  // The data file, written a 4 MiB chunk at a time (the test's own memory
  // stays small): weight 0 at offset 0, weight 1 right after it.
  {
    std::ofstream data(dir / "weights.bin", std::ios::binary);
    std::vector<float> chunk(1 << 20);
    for (int k = 0; k < 2; ++k) {
      for (int64_t at = 0; at < kN; at += static_cast<int64_t>(chunk.size())) {
        const int64_t n = std::min<int64_t>(static_cast<int64_t>(chunk.size()), kN - at);
        for (int64_t i = 0; i < n; ++i) chunk[i] = Value(k, at + i);
        data.write(reinterpret_cast<const char*>(chunk.data()), static_cast<std::streamsize>(n * sizeof(float)));
      }
    }
    ASSERT_TRUE(data.good());
  }
  // y = Gather(w0, idx) + Gather(w1, idx).
  onnx::GraphProto g;
  testing::AddNode(&g, "Gather", {"w0", "idx"}, {"a"});
  testing::AddNode(&g, "Gather", {"w1", "idx"}, {"b"});
  testing::AddNode(&g, "Add", {"a", "b"}, {"y"});
  testing::AddOutput(&g, "y");
  const std::vector<int64_t> idx = {0, 1, 1023, 1024, kN - 1};
  *g.add_initializer() = testing::Initializer<int64_t>("idx", onnx::TensorProto::INT64, {5}, idx);
  for (int k = 0; k < 2; ++k) {
    onnx::TensorProto* w = g.add_initializer();
    w->set_name("w" + std::to_string(k));
    w->set_data_type(onnx::TensorProto::FLOAT);
    w->add_dims(kN);
    w->set_data_location(onnx::TensorProto::EXTERNAL);
    for (const auto& [key, value] : {std::pair<std::string, std::string>{"location", "weights.bin"},
                                     {"offset", std::to_string(k * kN * 4)},
                                     {"length", std::to_string(kN * 4)}}) {
      onnx::StringStringEntryProto* e = w->add_external_data();
      e->set_key(key);
      e->set_value(value);
    }
  }
  {
    std::ofstream model(dir / "model.onnx", std::ios::binary);
    model << testing::Serialize(g, 13);
  }
  absl::StatusOr<NetDef> def = ImportOnnxFile((dir / "model.onnx").string());
  ASSERT_TRUE(def.ok()) << def.status();
  Workspace ws;
  auto net = Net::Create(*std::move(def), &ws, testing::CpuControlFlowRegistry());
  ASSERT_TRUE(net.ok()) << net.status();
  ASSERT_TRUE((*net)->Run().ok());
  const Tensor* y = ws.GetBlob("y");
  ASSERT_NE(y, nullptr);
  for (size_t j = 0; j < idx.size(); ++j) EXPECT_EQ(y->data<float>()[j], Value(0, idx[j]) + Value(1, idx[j])) << j;

  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  const double peak = static_cast<double>(usage.ru_maxrss) * 1024, weights = 2.0 * kN * 4;
  std::printf("weights %.0f MiB, peak RSS %.0f MiB (%.3fx)\n", weights / 1048576, peak / 1048576, peak / weights);
  EXPECT_LT(peak, 1.2 * weights);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace onnx_import
}  // namespace loom
