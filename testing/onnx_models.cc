#include "testing/onnx_models.h"

#include "core/plugin_loader.h"
#include "frontend/onnx/onnx_importer.h"
#include "gtest/gtest.h"
#include "testing/op_runner.h"

namespace loom {
namespace testing {

Registry* CpuControlFlowRegistry() {
  static Registry* r = [] {
    Registry* reg = CpuRegistry();
    absl::Status s = LoadPlugin(reg, "plugins/controlflow/libloom_controlflow.so");
    EXPECT_TRUE(s.ok()) << s;
    return reg;
  }();
  return r;
}

void AddInput(onnx::GraphProto* g, const std::string& name, std::vector<int64_t> dims, int elem) {
  onnx::ValueInfoProto* v = g->add_input();
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem);
  for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

void AddOutput(onnx::GraphProto* g, const std::string& name, bool typed) {
  onnx::ValueInfoProto* v = g->add_output();
  v->set_name(name);
  if (typed) v->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
}

onnx::NodeProto* AddNode(onnx::GraphProto* g, const std::string& type, std::vector<std::string> in,
                         std::vector<std::string> out) {
  onnx::NodeProto* n = g->add_node();
  n->set_op_type(type);
  for (auto& i : in) n->add_input(i);
  for (auto& o : out) n->add_output(o);
  return n;
}

void IntAttr(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

void IntsAttr(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t i : v) a->add_ints(i);
}

std::string Serialize(const onnx::GraphProto& g, int64_t opset) {
  onnx::ModelProto m;
  m.set_ir_version(7);
  m.add_opset_import()->set_version(opset);
  *m.mutable_graph() = g;
  return m.SerializeAsString();
}

absl::StatusOr<NetDef> ImportOptimized(const std::string& model, const transforms::OptimizeOptions& options) {
  absl::StatusOr<NetDef> net = onnx_import::ImportOnnxModel(model);
  if (net.ok()) transforms::Optimize(&*net, options);
  return net;
}

Tensor RunModel(const std::string& model, const std::vector<std::pair<std::string, Tensor>>& inputs,
                const std::string& name) {
  auto net_def = ImportOptimized(model);
  EXPECT_TRUE(net_def.ok()) << net_def.status();
  if (!net_def.ok()) return Tensor();
  Workspace ws;
  for (const auto& [n, t] : inputs) ws.SetBlob(n, t);
  auto net = Net::Create(*net_def, &ws, CpuControlFlowRegistry());
  EXPECT_TRUE(net.ok()) << net.status();
  if (!net.ok()) return Tensor();
  absl::Status s = (*net)->Run();
  EXPECT_TRUE(s.ok()) << s;
  const Tensor* t = ws.GetBlob(name);
  return t ? *t : Tensor();
}

onnx::TensorProto FloatTensor(const std::string& name, const Tensor& t) {
  onnx::TensorProto p;
  p.set_name(name);
  p.set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : t.dims()) p.add_dims(d);
  p.set_raw_data(std::string(static_cast<const char*>(t.raw_data()), t.nbytes()));
  return p;
}

absl::StatusOr<NetDef> ImportWithoutLayoutPass(const std::string& model) {
  transforms::OptimizeOptions o;
  o.nchwc_block = 0;
  return ImportOptimized(model, o);
}

void ExpectSameAsPlainImport(const std::string& model, const NetDef& blocked,
                             const std::vector<std::pair<std::string, Tensor>>& feeds, const std::string& out,
                             double tol) {
  transforms::OptimizeOptions plain;
  plain.nchwc_block = 0;
  auto reference = ImportOptimized(model, plain);
  ASSERT_TRUE(reference.ok()) << reference.status();
  Workspace ws_plain, ws_blocked;
  for (const auto& [name, t] : feeds) {
    ws_plain.SetBlob(name, t);
    ws_blocked.SetBlob(name, t);
  }
  auto a = Net::Create(*reference, &ws_plain, CpuControlFlowRegistry());
  auto b = Net::Create(blocked, &ws_blocked, CpuControlFlowRegistry());
  ASSERT_TRUE(a.ok() && b.ok()) << a.status() << b.status();
  ASSERT_TRUE((*a)->Run().ok());
  absl::Status s = (*b)->Run();
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_TRUE(AllClose(*ws_blocked.GetBlob(out), *ws_plain.GetBlob(out), tol, tol)) << out;
}

}  // namespace testing
}  // namespace loom
