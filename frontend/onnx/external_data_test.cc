// ONNX external data (frontend/onnx/external_data.h) through ImportOnnxFile
// and ImportOnnxModel: tensors read from files beside the model (offsets,
// one file for several tensors) equal the inline model's, and the
// locations that leave the model's folder or are not its own plain files
// are refused with the tensor and the location named. (The Python tests
// run a model onnx.save_model split, through the Session.)
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/external_data.h"
#include "core/net.h"
#include "core/proto_io.h"
#include "core/workspace.h"
#include "core/tensor.h"
#include "frontend/onnx/onnx_importer.h"
#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"
#include "testing/onnx_models.h"

namespace loom {
namespace onnx_import {
namespace {

namespace fs = std::filesystem;

// A tensor's bytes, made as Net::Create makes it (external data mapped or read).
std::string Bytes(const TensorProto& p) {
  absl::StatusOr<Tensor> t = TensorFromProto(p);
  if (!t.ok()) return std::string(t.status().message());
  return std::string(static_cast<const char*>(t->raw_data()), t->nbytes());
}

// y = x + a + b, with a [4] and b [2, 3] float initializers.
onnx::ModelProto InlineModel() {
  onnx::GraphProto g;
  testing::AddInput(&g, "x", {2, 3});
  testing::AddOutput(&g, "y");
  testing::AddNode(&g, "Add", {"x", "b"}, {"y"});
  testing::AddNode(&g, "ReduceSum", {"a"}, {"s"});
  testing::AddOutput(&g, "s");
  std::vector<float> a = {1, 2, 3, 4}, b = {0.5f, -1, 2, 8, 16, -32};
  for (const auto& [name, dims, v] : {std::tuple{"a", std::vector<int64_t>{4}, a}, {"b", {2, 3}, b}}) {
    onnx::TensorProto* t = g.add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    t->set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float)));
  }
  onnx::ModelProto m;
  m.ParseFromString(testing::Serialize(g, 13));
  return m;
}

struct Layout {
  std::string location_a = "weights.bin", location_b = "weights.bin";
  bool write_file = true;
  int64_t truncate_to = -1;  // bytes of the data file; -1: as written
};

class ExternalDataTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(std::getenv("TEST_TMPDIR")) / ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "model");
  }

  // The model with a and b external (b after a in the same file: offset
  // 16), written as model/model.onnx; its serialized bytes.
  std::string Write(const Layout& l) {
    onnx::ModelProto m = InlineModel();
    std::string data;
    int64_t offset = 0;
    for (onnx::TensorProto& t : *m.mutable_graph()->mutable_initializer()) {
      const std::string bytes = t.raw_data();
      t.clear_raw_data();
      t.set_data_location(onnx::TensorProto::EXTERNAL);
      auto add = [&](const std::string& k, const std::string& v) {
        auto* e = t.add_external_data();
        e->set_key(k);
            e->set_value(v);
      };
      add("location", t.name() == "a" ? l.location_a : l.location_b);
      add("offset", std::to_string(offset));
      add("length", std::to_string(bytes.size()));
      data += bytes;
      offset += static_cast<int64_t>(bytes.size());
    }
    if (l.write_file) {
      std::ofstream(dir_ / "model" / "weights.bin", std::ios::binary)
          << data.substr(0, l.truncate_to < 0 ? data.size() : static_cast<size_t>(l.truncate_to));
    }
    const std::string bytes = m.SerializeAsString();
    std::ofstream(dir_ / "model" / "model.onnx", std::ios::binary) << bytes;
    return bytes;
  }

  absl::StatusOr<NetDef> Import() { return ImportOnnxFile((dir_ / "model" / "model.onnx").string()); }

  // The import's error message; "" when it succeeds.
  std::string Error(const Layout& l) {
    Write(l);
    auto net = Import();
    return net.ok() ? "" : std::string(net.status().message());
  }

  fs::path dir_;
};

TEST_F(ExternalDataTest, TensorsFromFilesBesideTheModelEqualTheInlineOnes) {
  const std::string bytes = Write({});
  auto external = Import();
  ASSERT_TRUE(external.ok()) << external.status();
  auto inline_net = ImportOnnxModel(InlineModel().SerializeAsString());
  ASSERT_TRUE(inline_net.ok()) << inline_net.status();
  ASSERT_EQ(external->initializer_size(), 2);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(external->initializer(i).name(), inline_net->initializer(i).name());
    // The NetDef names the checked file by absolute path; the bytes come
    // when the tensor is made.
    EXPECT_EQ(external->initializer(i).external_data().location(),
              fs::canonical(dir_ / "model" / "weights.bin").string());
    EXPECT_EQ(Bytes(external->initializer(i)), inline_net->initializer(i).raw_data()) << i;
  }
  EXPECT_EQ(external->initializer(1).external_data().offset(), 16);
  // The bytes alone have no folder: refused, unless one is named.
  auto no_folder = ImportOnnxModel(bytes);
  ASSERT_FALSE(no_folder.ok());
  EXPECT_NE(no_folder.status().message().find("tensor 'a': its data is in the external file 'weights.bin', and a "
                                              "model given as bytes has no folder"),
            std::string::npos)
      << no_folder.status();
  auto with_folder = ImportOnnxModel(bytes, (dir_ / "model").string());
  ASSERT_TRUE(with_folder.ok()) << with_folder.status();
  EXPECT_EQ(Bytes(with_folder->initializer(1)), inline_net->initializer(1).raw_data());
}

// loom_import's path: an imported model written as a NetDef with its
// weights in a data file beside it, read back and run, gives the inline
// model's outputs.
TEST_F(ExternalDataTest, NetDefWrittenWithExternalDataRunsAsTheInlineModel) {
  Write({});
  auto imported = Import();
  ASSERT_TRUE(imported.ok()) << imported.status();
  const std::string path = (dir_ / "net.pb").string();
  ASSERT_TRUE(WriteNetDefWithExternalData(*imported, path, "net.data", /*min_bytes=*/0).ok());
  auto back = ReadNetDef(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->initializer(0).external_data().location(), fs::canonical(dir_ / "net.data").string());
  EXPECT_EQ(back->initializer(1).external_data().offset(), 64);  // b after a's 16 bytes, aligned
  auto inline_net = ImportOnnxModel(InlineModel().SerializeAsString());
  ASSERT_TRUE(inline_net.ok()) << inline_net.status();
  const Tensor x = Tensor::FromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  std::vector<std::string> outputs[2];
  int i = 0;
  for (NetDef* def : {&*back, &*inline_net}) {
    Workspace ws;
    *ws.CreateBlob("x") = x;
    auto net = Net::Create(*def, &ws, testing::CpuControlFlowRegistry());
    ASSERT_TRUE(net.ok()) << net.status();
    ASSERT_TRUE((*net)->Run().ok());
    for (const char* name : {"y", "s"}) {
      const Tensor* t = ws.GetBlob(name);
      ASSERT_NE(t, nullptr) << name;
      outputs[i].push_back(std::string(static_cast<const char*>(t->raw_data()), t->nbytes()));
    }
    ++i;
  }
  EXPECT_EQ(outputs[0], outputs[1]);
  const std::vector<float> y(reinterpret_cast<const float*>(outputs[0][0].data()),
                             reinterpret_cast<const float*>(outputs[0][0].data()) + 6);
  EXPECT_EQ(y, (std::vector<float>{1.5f, 1, 5, 12, 21, -26}));  // x + b
}

TEST_F(ExternalDataTest, LocationsOutsideTheFolderAreRefused) {
  std::ofstream(dir_ / "outside.bin", std::ios::binary) << std::string(64, '\0');
  Layout up;
  up.location_a = "../outside.bin";
  EXPECT_NE(Error(up).find("tensor 'a': external data location '../outside.bin' leaves the model's folder (..)"),
            std::string::npos) << Error(up);
  fs::create_directories(dir_ / "model" / "sub");
  Layout inside_up;
  inside_up.location_a = "sub/../weights.bin";  // stays inside: allowed
  EXPECT_EQ(Error(inside_up), "");
  Layout absolute;
  absolute.location_a = (dir_ / "outside.bin").string();
  EXPECT_NE(Error(absolute).find("is an absolute path; it must be relative to the model's folder"), std::string::npos);
  fs::create_symlink(dir_ / "outside.bin", dir_ / "model" / "link.bin");
  Layout symlink;
  symlink.location_a = "link.bin";
  EXPECT_NE(Error(symlink).find("external data location 'link.bin' resolves to '"), std::string::npos) << Error(symlink);
  EXPECT_NE(Error(symlink).find("outside the model's folder"), std::string::npos);
}

TEST_F(ExternalDataTest, HardLinksDevicesAndShortFilesAreRefused) {
  Write({});
  ASSERT_EQ(link((dir_ / "model" / "weights.bin").c_str(), (dir_ / "elsewhere.bin").c_str()), 0);
  auto linked = Import();
  ASSERT_FALSE(linked.ok());
  EXPECT_NE(linked.status().message().find("'weights.bin' has 2 hard links"), std::string::npos) << linked.status();
  fs::remove(dir_ / "elsewhere.bin");
  ASSERT_EQ(mkfifo((dir_ / "model" / "fifo").c_str(), 0600), 0);
  Layout fifo;
  fifo.location_a = "fifo";
  EXPECT_NE(Error(fifo).find("'fifo' is not a regular file"), std::string::npos) << Error(fifo);
  Layout short_file;
  short_file.truncate_to = 20;  // a's 16 bytes and 4 of b's 24
  EXPECT_NE(Error(short_file).find("tensor 'b': external file 'weights.bin' has 20 bytes; the tensor needs 24 at "
                                   "offset 16"),
            std::string::npos)
      << Error(short_file);
  Layout missing;
  missing.location_a = "nowhere.bin";
  EXPECT_NE(Error(missing).find("tensor 'a': external data file"), std::string::npos) << Error(missing);
}

}  // namespace
}  // namespace onnx_import
}  // namespace loom
