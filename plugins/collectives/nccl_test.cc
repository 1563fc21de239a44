// The NCCL kernels of Allreduce and Broadcast (--config=cuda; skipped
// without a GPU): one rank on GPU 0 (NCCL over a world of one), the
// tensors' sum, mean and broadcast equal to the input, through a net whose
// communicator comes from CreateCommonWorld on the CPU and whose result is
// read back on the host.
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/net.h"
#include "core/plugin_loader.h"
#include "core/proto_io.h"
#include "gtest/gtest.h"
#include "plugins/cuda/cuda_test_util.h"

namespace loom {
namespace {

Registry* Registry() {
  static ::loom::Registry* r = [] {
    ::loom::Registry* reg = testing::CudaRegistry();
    absl::Status s = LoadPlugin(reg, "plugins/collectives/libloom_collectives.so");
    EXPECT_TRUE(s.ok()) << s;
    return reg;
  }();
  return r;
}

NetDef Collective(const std::string& type, const std::string& dir, const std::string& reduce) {
  NetDef net;
  net.set_name("nccl");
  OperatorDef* world = net.add_op();
  world->set_type("CreateCommonWorld");
  world->add_output("comm");
  auto arg = [](OperatorDef* op, const std::string& name, const std::string& s) {
    Argument* a = op->add_arg();
    a->set_name(name);
    a->set_s(s);
  };
  arg(world, "rendezvous", dir);
  arg(world, "run_id", absl::StrCat(type, reduce));
  OperatorDef* op = net.add_op();
  op->set_type(type);
  op->add_input("comm");
  op->add_input("x");
  op->add_output("y");
  op->set_engine("NCCL");
  op->mutable_device_option()->set_device_type("CUDA");
  if (!reduce.empty()) arg(op, "reduce", reduce);
  OperatorDef* back = net.add_op();  // to the host
  back->set_type("Identity");
  back->add_input("y");
  back->add_output("y_host");
  net.add_external_input("x");
  net.add_external_output("y_host");
  return net;
}

TEST(NcclTest, OneRankSumMeanAndBroadcastGiveTheInput) {
  LOOM_SKIP_WITHOUT_GPU();
  const std::string dir = (std::filesystem::path(::testing::TempDir()) / "nccl_rendezvous").string();
  const Tensor x = Tensor::FromVector<float>({2, 3}, {1, -2, 3.5f, 4, 0, -6});
  for (const auto& [type, reduce] : std::vector<std::pair<std::string, std::string>>{
           {"Allreduce", "sum"}, {"Allreduce", "mean"}, {"Broadcast", ""}}) {
    Workspace ws;
    ws.SetBlob("x", *x.Clone());
    auto net = Net::Create(Collective(type, dir, reduce), &ws, Registry());
    ASSERT_TRUE(net.ok()) << net.status();
    absl::Status s = (*net)->Run();
    ASSERT_TRUE(s.ok()) << type << " " << reduce << ": " << s;
    const Tensor* y = ws.GetBlob("y_host");
    ASSERT_EQ(y->dims(), x.dims());
    for (int64_t i = 0; i < x.num_elements(); ++i) EXPECT_EQ(y->data<float>()[i], x.data<float>()[i]) << type << " " << reduce;
  }
}

}  // namespace
}  // namespace loom
