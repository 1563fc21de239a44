// External data in Loom's own NetDef (core/external_data.h): written by
// WriteNetDefWithExternalData, read back by ReadNetDef, and made into
// tensors by TensorFromProto, mapped (large, aligned) or read.
#include "core/external_data.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/proto_io.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

namespace fs = std::filesystem;

// True when `p` lies in a mapping of the file `path` (/proc/self/maps).
bool InMappingOf(const void* p, const fs::path& path) {
  std::ifstream maps("/proc/self/maps");
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  const std::string want = fs::canonical(path).string();
  for (std::string line; std::getline(maps, line);) {
    uintptr_t lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx", &lo, &hi) != 2 || a < lo || a >= hi) continue;
    return line.size() >= want.size() && line.compare(line.size() - want.size(), want.size(), want) == 0;
  }
  return false;
}

std::string FileBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class ExternalDataNetDefTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }

  // A net with a small "bias" [3] initializer and a large "w" [k] one (k
  // floats, 0.5 * i), and "w" again in a nested net's initializers.
  static NetDef Net(int64_t k) {
    std::vector<float> w(static_cast<size_t>(k));
    for (int64_t i = 0; i < k; ++i) w[static_cast<size_t>(i)] = 0.5f * static_cast<float>(i);
    NetDef net;
    net.set_name("n");
    *net.add_initializer() = TensorToProto(Tensor::FromVector<float>({3}, {1, 2, 3}), "bias");
    *net.add_initializer() = TensorToProto(Tensor::FromVector<float>({k}, w), "w");
    OperatorDef* op = net.add_op();
    op->set_type("If");
    Argument* branch = op->add_arg();
    branch->set_name("then_branch");
    *branch->mutable_n()->add_initializer() = TensorToProto(Tensor::FromVector<float>({k}, w), "w_inner");
    return net;
  }

  fs::path dir_;
};

TEST_F(ExternalDataNetDefTest, WrittenAndReadBackTheTensorsAreEqualAndLargeOnesMapped) {
  const int64_t k = kMapExternalDataMinBytes;  // 256 KiB of floats: mapped
  const NetDef net = Net(k);
  ASSERT_TRUE(WriteNetDefWithExternalData(net, (dir_ / "net.pb").string(), "net.data", /*min_bytes=*/1024).ok());
  absl::StatusOr<NetDef> back = ReadNetDef((dir_ / "net.pb").string());
  ASSERT_TRUE(back.ok()) << back.status();
  // The small one stays inline; the large ones moved, 64-byte aligned, named
  // by absolute path once read.
  EXPECT_FALSE(back->initializer(0).has_external_data());
  const ExternalData& w = back->initializer(1).external_data();
  const ExternalData& inner = back->op(0).arg(0).n().initializer(0).external_data();
  EXPECT_EQ(w.location(), fs::canonical(dir_ / "net.data").string());
  EXPECT_EQ(w.offset(), 0);
  EXPECT_EQ(w.length(), k * 4);
  EXPECT_EQ(inner.offset(), k * 4);  // already a multiple of 64
  EXPECT_EQ(fs::file_size(dir_ / "net.data"), static_cast<uintmax_t>(2 * k * 4));
  for (const TensorProto* p : {&back->initializer(1), &back->op(0).arg(0).n().initializer(0)}) {
    absl::StatusOr<Tensor> t = TensorFromProto(*p);
    ASSERT_TRUE(t.ok()) << t.status();
    ASSERT_EQ(t->dims(), Shape{k});
    for (int64_t i = 0; i < k; i += 997) EXPECT_EQ(t->data<float>()[i], 0.5f * static_cast<float>(i)) << i;
    EXPECT_TRUE(InMappingOf(t->raw_data(), dir_ / "net.data")) << p->name();
  }
  absl::StatusOr<Tensor> bias = TensorFromProto(back->initializer(0));
  ASSERT_TRUE(bias.ok());
  EXPECT_EQ(bias->data<float>()[2], 3.0f);

  // A write into a mapped tensor (a training update) stays in this process.
  const std::string before = FileBytes(dir_ / "net.data");
  absl::StatusOr<Tensor> t = TensorFromProto(back->initializer(1));
  ASSERT_TRUE(t.ok());
  t->data<float>()[0] = 42.0f;
  EXPECT_EQ(FileBytes(dir_ / "net.data"), before);
}

TEST_F(ExternalDataNetDefTest, SmallOrMisalignedTensorsAreReadNotMapped) {
  const int64_t k = kMapExternalDataMinBytes;
  ASSERT_TRUE(WriteNetDefWithExternalData(Net(k), (dir_ / "net.pbtxt").string(), "net.data", 0).ok());
  // Shift w by 2 bytes in the file: an offset that is not a float's multiple.
  std::string data = FileBytes(dir_ / "net.data");
  absl::StatusOr<NetDef> net = ReadNetDef((dir_ / "net.pbtxt").string());
  ASSERT_TRUE(net.ok()) << net.status();
  const int64_t w_offset = net->initializer(1).external_data().offset();
  data.insert(static_cast<size_t>(w_offset), 2, '\0');
  std::ofstream(dir_ / "net.data", std::ios::binary | std::ios::trunc) << data;
  net->mutable_initializer(1)->mutable_external_data()->set_offset(w_offset + 2);
  absl::StatusOr<Tensor> w = TensorFromProto(net->initializer(1));
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_FALSE(InMappingOf(w->raw_data(), dir_ / "net.data"));
  for (int64_t i = 0; i < k; i += 997) EXPECT_EQ(w->data<float>()[i], 0.5f * static_cast<float>(i)) << i;
  // min_bytes 0 moved the 12-byte bias too: read.
  absl::StatusOr<Tensor> bias = TensorFromProto(net->initializer(0));
  ASSERT_TRUE(bias.ok()) << bias.status();
  EXPECT_FALSE(InMappingOf(bias->raw_data(), dir_ / "net.data"));
  EXPECT_EQ(bias->data<float>()[1], 2.0f);
}

// The folder a location was resolved in is swapped for a symlink to
// another folder with a file of the same name: the open does not follow it.
TEST_F(ExternalDataNetDefTest, AFolderSwappedForASymlinkAfterReadingIsNotFollowed) {
  fs::create_directories(dir_ / "model");
  ASSERT_TRUE(WriteNetDefWithExternalData(Net(1024), (dir_ / "model" / "net.pb").string(), "net.data", 0).ok());
  absl::StatusOr<NetDef> net = ReadNetDef((dir_ / "model" / "net.pb").string());
  ASSERT_TRUE(net.ok()) << net.status();
  ASSERT_TRUE(TensorFromProto(net->initializer(1)).ok());
  fs::rename(dir_ / "model", dir_ / "model_was");
  fs::create_directories(dir_ / "elsewhere");
  fs::copy_file(dir_ / "model_was" / "net.data", dir_ / "elsewhere" / "net.data");
  fs::create_directory_symlink(dir_ / "elsewhere", dir_ / "model");
  absl::StatusOr<Tensor> swapped = TensorFromProto(net->initializer(1));
  ASSERT_FALSE(swapped.ok());
  EXPECT_NE(swapped.status().message().find("tensor 'w': opening '"), std::string::npos) << swapped.status();
}

TEST_F(ExternalDataNetDefTest, BadLocationsLengthsAndShortFilesAreRefused) {
  ASSERT_TRUE(WriteNetDefWithExternalData(Net(1024), (dir_ / "net.pb").string(), "net.data", 0).ok());
  NetDef raw;
  {
    std::ifstream in(dir_ / "net.pb", std::ios::binary);
    ASSERT_TRUE(raw.ParseFromIstream(&in));
  }
  auto error_with = [&](const std::string& location) {
    NetDef n = raw;
    n.mutable_initializer(0)->mutable_external_data()->set_location(location);
    EXPECT_TRUE(WriteNetDef(n, (dir_ / "edited.pb").string()).ok());
    absl::StatusOr<NetDef> r = ReadNetDef((dir_ / "edited.pb").string());
    return r.ok() ? std::string() : std::string(r.status().message());
  };
  EXPECT_NE(error_with("/etc/passwd").find("tensor 'bias': external data location '/etc/passwd' is an absolute path"),
            std::string::npos)
      << error_with("/etc/passwd");
  EXPECT_NE(error_with("../net.data").find("leaves the model's folder"), std::string::npos);
  EXPECT_EQ(error_with("./net.data"), "");
  // Text has no folder.
  std::string text;
  google::protobuf::TextFormat::PrintToString(raw, &text);
  absl::StatusOr<NetDef> from_text = ParseNetDefText(text);
  ASSERT_FALSE(from_text.ok());
  EXPECT_NE(from_text.status().message().find("a model given as bytes has no folder"), std::string::npos)
      << from_text.status();
  // A relative location that no loader resolved is not opened.
  absl::StatusOr<Tensor> unresolved = TensorFromProto(raw.initializer(0));
  ASSERT_FALSE(unresolved.ok());
  EXPECT_NE(unresolved.status().message().find("was not resolved against a folder"), std::string::npos);

  absl::StatusOr<NetDef> net = ReadNetDef((dir_ / "net.pb").string());
  ASSERT_TRUE(net.ok()) << net.status();
  TensorProto w = net->initializer(1);
  w.mutable_external_data()->set_length(8);
  absl::StatusOr<Tensor> wrong_length = TensorFromProto(w);
  ASSERT_FALSE(wrong_length.ok());
  EXPECT_NE(wrong_length.status().message().find("tensor 'w': external data length 8 bytes; float32[1024] needs 4096"),
            std::string::npos)
      << wrong_length.status();
  fs::resize_file(dir_ / "net.data", 100);
  absl::StatusOr<Tensor> short_file = TensorFromProto(net->initializer(1));
  ASSERT_FALSE(short_file.ok());
  EXPECT_NE(short_file.status().message().find("has 100 bytes; the tensor needs 4096 at offset 64"), std::string::npos)
      << short_file.status();
  // A data file name with a folder in it is refused.
  EXPECT_FALSE(WriteNetDefWithExternalData(Net(4), (dir_ / "x.pb").string(), "sub/x.data").ok());
}

}  // namespace
}  // namespace loom
