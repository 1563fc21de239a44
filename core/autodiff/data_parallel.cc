#include "core/autodiff/data_parallel.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/dtype.h"

namespace loom {
namespace {

Argument IntArg(const std::string& name, int64_t v) {
  Argument a;
  a.set_name(name);
  a.set_i(v);
  return a;
}
Argument StringArg(const std::string& name, const std::string& v) {
  Argument a;
  a.set_name(name);
  a.set_s(v);
  return a;
}

}  // namespace

OperatorDef CommonWorldOp(const DataParallelOptions& o, const std::string& comm) {
  OperatorDef op;
  op.set_type("CreateCommonWorld");
  op.set_name("__create_common_world");
  op.add_output(comm);
  *op.add_arg() = IntArg("rank", o.rank);
  *op.add_arg() = IntArg("size", o.world_size);
  *op.add_arg() = StringArg("rendezvous", o.rendezvous);
  *op.add_arg() = StringArg("run_id", o.run_id);
  *op.add_arg() = IntArg("timeout_ms", o.timeout_ms);
  *op.add_arg() = StringArg("hostname", o.hostname);
  return op;
}

absl::StatusOr<BackwardResult> AddAllreduce(const BackwardResult& backward, const DataParallelOptions& options,
                                            NetDef* net) {
  // Each gradient's last writer, and its bytes (from its parameter's
  // initializer; 0 when unknown) and dtype.
  std::map<std::string, int> last_write;
  for (int i = 0; i < net->op_size(); ++i) {
    for (const std::string& out : net->op(i).output()) last_write[out] = i;
  }
  std::map<std::string, std::pair<size_t, int>> size_of;  // parameter -> (bytes, dtype)
  for (const TensorProto& t : net->initializer()) {
    int64_t n = 1;
    for (int64_t d : t.dims()) n *= d;
    size_of[t.name()] = {static_cast<size_t>(n) * DataTypeSize(static_cast<DataType>(t.data_type())), t.data_type()};
  }
  struct Grad {
    int at;
    std::string param, blob;
    size_t bytes;
    int dtype;
  };
  std::vector<Grad> grads;
  for (const auto& [param, blob] : backward.gradients) {
    auto w = last_write.find(blob);
    if (w == last_write.end()) {
      return absl::InvalidArgumentError(absl::StrCat("AddAllreduce: the gradient '", blob, "' of '", param,
                                                     "' is written by no op of the net"));
    }
    auto s = size_of.find(param);
    grads.push_back({w->second, param, blob, s == size_of.end() ? 0 : s->second.first,
                     s == size_of.end() ? 1 : s->second.second});
  }
  // The backward pass completes them in this order (last layers first).
  std::sort(grads.begin(), grads.end(), [](const Grad& a, const Grad& b) { return std::tie(a.at, a.blob) < std::tie(b.at, b.blob); });
  const std::string comm = "__comm";
  std::map<int, std::vector<OperatorDef>> after;  // op index -> Allreduce ops that follow it
  BackwardResult result = backward;
  std::vector<Grad> bucket;
  size_t bucket_bytes = 0;
  int bucket_no = 0;
  auto flush = [&]() {
    if (bucket.empty()) return;
    OperatorDef op;
    op.set_type("Allreduce");
    op.set_name(absl::StrCat("__allreduce_bucket", bucket_no++));
    op.add_input(comm);
    for (const Grad& g : bucket) {
      op.add_input(g.blob);
      op.add_output(g.blob + (options.overlap ? "_allreducing" : "_allreduced"));
      result.gradients[g.param] = g.blob + "_allreduced";
    }
    *op.add_arg() = StringArg("reduce", "mean");
    if (options.overlap) *op.add_arg() = IntArg("async", 1);
    after[bucket.back().at].push_back(std::move(op));
    bucket.clear();
    bucket_bytes = 0;
  };
  for (const Grad& g : grads) {
    if (!bucket.empty() && g.dtype != bucket.front().dtype) flush();  // one dtype per collective
    bucket.push_back(g);
    bucket_bytes += g.bytes;
    if (bucket_bytes >= options.bucket_bytes) flush();
  }
  flush();
  NetDef out = *net;
  out.clear_op();
  *out.add_op() = CommonWorldOp(options, comm);
  for (int i = 0; i < net->op_size(); ++i) {
    *out.add_op() = net->op(i);
    auto a = after.find(i);
    if (a == after.end()) continue;
    for (OperatorDef& op : a->second) *out.add_op() = std::move(op);
  }
  if (options.overlap && !grads.empty()) {
    // The reductions ran beside the backward pass; wait for them here,
    // before anything (the optimizer) reads the averaged gradients.
    OperatorDef* wait = out.add_op();
    wait->set_type("AllreduceWait");
    wait->set_name("__allreduce_wait");
    wait->add_input(comm);
    for (const Grad& g : grads) {
      wait->add_input(g.blob + "_allreducing");
      wait->add_output(g.blob + "_allreduced");
    }
  }
  // The averaged gradients are what the net gives out now.
  std::set<std::string> renamed;
  for (const Grad& g : grads) renamed.insert(g.blob);
  for (std::string& o : *out.mutable_external_output()) {
    if (renamed.count(o)) o += "_allreduced";
  }
  *net = std::move(out);
  return result;
}

NetDef BroadcastNet(const std::vector<std::string>& blobs, const DataParallelOptions& options) {
  NetDef net;
  net.set_name("broadcast_parameters");
  *net.add_op() = CommonWorldOp(options);
  OperatorDef* op = net.add_op();
  op->set_type("Broadcast");
  op->set_name("__broadcast_parameters");
  op->add_input("__comm");
  for (const std::string& b : blobs) {
    op->add_input(b);
    op->add_output(b);
    net.add_external_input(b);
    net.add_external_output(b);
  }
  *op->add_arg() = IntArg("root", 0);
  return net;
}

absl::StatusOr<NetDef> SplitAcrossContexts(const NetDef& forward, const std::vector<std::string>& batch_inputs,
                                           const std::string& loss, int contexts,
                                           const std::vector<DeviceOption>& devices) {
  if (contexts < 1) return absl::InvalidArgumentError(absl::StrCat("SplitAcrossContexts: contexts must be >= 1; found ", contexts));
  if (!devices.empty() && static_cast<int>(devices.size()) != contexts) {
    return absl::InvalidArgumentError(absl::StrCat("SplitAcrossContexts: ", devices.size(), " devices for ", contexts, " contexts"));
  }
  std::set<std::string> written, read;
  for (const OperatorDef& op : forward.op()) {
    written.insert(op.output().begin(), op.output().end());
    read.insert(op.input().begin(), op.input().end());
  }
  const std::set<std::string> batch(batch_inputs.begin(), batch_inputs.end());
  for (const std::string& b : batch_inputs) {
    if (!read.count(b) || written.count(b)) {
      return absl::InvalidArgumentError(absl::StrCat("SplitAcrossContexts: batch input '", b, "' is not an input the net reads"));
    }
  }
  if (!written.count(loss)) return absl::InvalidArgumentError(absl::StrCat("SplitAcrossContexts: no op writes the loss '", loss, "'"));
  NetDef out = forward;
  out.clear_op();
  out.clear_external_output();
  auto shard = [](const std::string& b, int k) { return absl::StrCat(b, "__ctx", k); };
  for (const std::string& b : batch_inputs) {
    OperatorDef* split = out.add_op();
    split->set_type("Split");
    split->set_name("__split_" + b);
    split->add_input(b);
    for (int k = 0; k < contexts; ++k) split->add_output(shard(b, k));
    *split->add_arg() = IntArg("axis", 0);
    *split->add_arg() = IntArg("num_outputs", contexts);
  }
  auto rename = [&](const std::string& name, int k) -> std::string {
    if (name.empty()) return name;
    if (batch.count(name)) return shard(name, k);
    if (written.count(name)) return absl::StrCat("ctx", k, "/", name);
    return name;  // parameters and other inputs: shared
  };
  OperatorDef mean;
  mean.set_type("Mean");
  mean.set_name("__mean_of_contexts");
  for (int k = 0; k < contexts; ++k) {
    for (const OperatorDef& op : forward.op()) {
      OperatorDef* c = out.add_op();
      *c = op;
      if (!op.name().empty()) c->set_name(absl::StrCat("ctx", k, "/", op.name()));
      for (std::string& in : *c->mutable_input()) in = rename(in, k);
      for (std::string& o : *c->mutable_output()) o = rename(o, k);
      if (!devices.empty()) *c->mutable_device_option() = devices[k];
    }
    mean.add_input(rename(loss, k));
  }
  mean.add_output(loss);
  *out.add_op() = std::move(mean);
  out.add_external_output(loss);
  return out;
}

}  // namespace loom
