#include "core/memory_plan.h"

#include <algorithm>
#include <set>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "core/checked_net.h"
#include "core/plan.h"
#include "core/workspace.h"

namespace loom {
namespace {

size_t Aligned(size_t bytes) { return (bytes + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment; }

bool HasNestedNet(const OperatorDef& op) {
  for (const Argument& a : op.arg()) {
    if (a.has_n() || a.nets_size() > 0) return true;
  }
  return false;
}

void NamesIn(const NetDef& net, std::set<std::string>* names);

// Every blob name `op` reads or writes, and every one its nested nets
// mention, at any depth.
void NamesOf(const OperatorDef& op, std::set<std::string>* names) {
  names->insert(op.input().begin(), op.input().end());
  names->insert(op.output().begin(), op.output().end());
  for (const Argument& a : op.arg()) {
    if (a.has_n()) NamesIn(a.n(), names);
    for (const NetDef& n : a.nets()) NamesIn(n, names);
  }
}

// Every blob name a nested net mentions (its ops', its external inputs and
// outputs).
void NamesIn(const NetDef& net, std::set<std::string>* names) {
  names->insert(net.external_input().begin(), net.external_input().end());
  names->insert(net.external_output().begin(), net.external_output().end());
  for (const OperatorDef& op : net.op()) NamesOf(op, names);
}

// Storages of one device: best fit within a size range (MXNet's
// GraphAllocator); a storage grows to its largest user.
class StorageAllocator {
 public:
  explicit StorageAllocator(size_t match_range) : match_range_(match_range) {}

  int Request(Device* device, size_t bytes) {
    auto& free = free_[device];
    auto it = free.lower_bound(bytes);
    if (it != free.end() && it->first <= bytes * match_range_) {
      // The smallest free storage that fits.
    } else if (it != free.begin() && std::prev(it)->first * match_range_ >= bytes) {
      --it;  // the largest smaller one, grown
    } else {
      sizes_.push_back(bytes);
      devices_.push_back(device);
      return static_cast<int>(sizes_.size()) - 1;
    }
    const int id = it->second;
    free.erase(it);
    sizes_[id] = std::max(sizes_[id], bytes);
    return id;
  }
  void Release(int id) { free_[devices_[id]].emplace(sizes_[id], id); }
  size_t size(int id) const { return sizes_[id]; }
  Device* device(int id) const { return devices_[id]; }
  int count() const { return static_cast<int>(sizes_.size()); }

 private:
  size_t match_range_;
  std::vector<size_t> sizes_;
  std::vector<Device*> devices_;
  std::map<Device*, std::multimap<size_t, int>> free_;
};

// Blobs that keep their own memory (memory_plan.h lists them); blobs an
// op writes as aliases are added by the callers' liveness pass.
absl::flat_hash_set<const Tensor*> PinnedBlobs(const CheckedNet& net, const Workspace& ws, const Plan& plan) {
  absl::flat_hash_set<const Tensor*> pinned;
  auto pin = [&](const std::string& name) {
    if (const Tensor* t = ws.GetBlob(name)) pinned.insert(t);
  };
  for (const std::string& n : net.inputs) pin(n);
  for (const std::string& n : net.def.external_input()) pin(n);
  for (const std::string& n : net.def.external_output()) pin(n);
  for (const std::string& n : plan.constants()) pin(n);
  for (const Plan::SignatureValue& v : plan.signature_values()) pinned.insert(v.blob);
  for (const std::string& n : net.constants) pin(n);
  std::set<std::string> nested;
  NestedNetNames(net, &nested);
  for (const std::string& n : nested) pin(n);
  for (const PlanStep& s : plan.steps()) {
    for (const DeviceCopy& c : s.copies_before) pinned.insert(c.dst);
    for (const DeviceCopy& c : s.copies_after) {
      pinned.insert(c.src);
      pinned.insert(c.dst);
    }
  }
  return pinned;
}

}  // namespace

void NestedNetNames(const CheckedNet& net, std::set<std::string>* names) {
  for (const CheckedOp& op : net.ops) {
    if (HasNestedNet(op.info->op)) NamesOf(op.info->op, names);
  }
}

void ClearMemoryPlan(Plan* plan) {
  plan->memory() = MemoryPlan();
  for (PlanStep& s : plan->steps()) {
    s.release_after.clear();
    s.dead_after.clear();
  }
}

void PlanMemory(const CheckedNet& net, const Workspace& ws, const MemoryPlanOptions& options, Plan* plan) {
  ClearMemoryPlan(plan);
  std::vector<PlanStep>& steps = plan->steps();
  MemoryPlan& m = plan->memory();
  // A NetDef that names no external output leaves every blob to the caller
  // (Caffe2's convention: any blob may be fetched after the run; its
  // memonger, too, needed the blobs to keep named).
  if (net.def.external_output_size() == 0) return;
  m.enabled = true;

  absl::flat_hash_set<const Tensor*> pinned = PinnedBlobs(net, ws, *plan);

  // Liveness: the writing step and the last reading step of each output.
  struct Life {
    int first = -1, last = -1, writers = 0;
  };
  absl::flat_hash_map<const Tensor*, Life> life;
  for (int i = 0; i < static_cast<int>(steps.size()); ++i) {
    const PlanStep& s = steps[i];
    for (const Tensor* t : s.ctx.inputs) {
      if (t == nullptr) continue;
      auto it = life.find(t);
      if (it != life.end()) it->second.last = i;
    }
    for (const DeviceCopy& c : s.copies_before) {
      auto it = life.find(c.src);
      if (it != life.end()) it->second.last = i;
    }
    for (Tensor* t : s.ctx.outputs) {
      if (t == nullptr) continue;
      Life& l = life[t];
      if (l.writers++ == 0) l.first = l.last = i;
      if (t->is_alias()) pinned.insert(t);
    }
  }

  StorageAllocator alloc(std::max<size_t>(1, options.match_range));
  absl::flat_hash_map<const Tensor*, int> storage;  // placed blob -> storage id
  std::vector<int> storage_of_blob;
  for (int i = 0; i < static_cast<int>(steps.size()); ++i) {
    PlanStep& s = steps[i];
    const OpSchema* schema = s.op->schema;
    // Outputs first (an op's outputs never share with inputs it still
    // reads), largest first.
    std::vector<int> order;
    for (int k = 0; k < static_cast<int>(s.ctx.outputs.size()); ++k) {
      Tensor* t = s.ctx.outputs[k];
      if (t == nullptr || pinned.count(t)) continue;
      const Life& l = life[t];
      if (l.writers != 1 || l.first != i) continue;
      order.push_back(k);
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return InferredOutputBytes(s, a) > InferredOutputBytes(s, b); });
    std::set<const Tensor*> taken_inputs;  // inputs whose place an output took
    for (int k : order) {
      Tensor* t = s.ctx.outputs[k];
      const Life& l = life[t];
      const bool known = k < static_cast<int>(s.inferred_shapes.size()) && s.inferred_shapes[k].has_value();
      if (!known) {
        ++m.dynamic_blobs;
        steps[l.last].release_after.push_back(t);
        continue;
      }
      const size_t bytes = InferredOutputBytes(s, k);
      if (bytes == 0) continue;  // nothing to place
      PlannedBlob b;
      b.tensor = t;
      b.device = t->device();
      b.bytes = bytes;
      b.dtype = s.ctx.output_dtypes[k];
      b.dims = *s.inferred_shapes[k];
      b.first_step = i;
      b.last_step = l.last;
      int id = -1;
      // In place: the schema allows it, the input is placed, dies here,
      // lives on the same device and has the same size.
      if (schema != nullptr) {
        for (const auto& [in, out] : schema->inplace) {
          if (out != k || in < 0 || in >= static_cast<int>(s.ctx.inputs.size())) continue;
          const Tensor* src = s.ctx.inputs[in];
          auto st = storage.find(src);
          if (st == storage.end() || taken_inputs.count(src) || life[src].last != i) continue;
          if (alloc.device(st->second) != b.device || alloc.size(st->second) < bytes) continue;
          id = st->second;
          taken_inputs.insert(src);
          b.in_place = true;
          ++m.in_place;
          break;
        }
      }
      if (id < 0) id = alloc.Request(b.device, bytes);
      storage[t] = id;
      storage_of_blob.push_back(id);
      m.no_reuse_bytes += Aligned(bytes);
      m.blobs.push_back(std::move(b));
    }
    // Then what dies here: inputs read for the last time (unless an
    // output took their place) and outputs nobody reads.
    std::set<const Tensor*> dying;
    for (const Tensor* t : s.ctx.inputs) {
      if (t != nullptr && storage.count(t) && life[t].last == i && !taken_inputs.count(t)) dying.insert(t);
    }
    for (const DeviceCopy& c : s.copies_before) {
      if (storage.count(c.src) && life[c.src].last == i) dying.insert(c.src);
    }
    for (Tensor* t : s.ctx.outputs) {
      if (t != nullptr && storage.count(t) && life[t].last == i) dying.insert(t);
    }
    for (const Tensor* t : dying) {
      alloc.Release(storage[t]);
      s.dead_after.push_back(const_cast<Tensor*>(t));
    }
  }
  for (const auto& [t, l] : life) {
    if (pinned.count(t)) ++m.pinned_blobs;
  }

  // Lay the storages out, one arena per device.
  std::vector<size_t> storage_offset(alloc.count());
  for (int id = 0; id < alloc.count(); ++id) {
    size_t& end = m.arena_bytes[alloc.device(id)];
    storage_offset[id] = end;
    end += Aligned(alloc.size(id));
  }
  for (size_t j = 0; j < m.blobs.size(); ++j) {
    m.blobs[j].offset = storage_offset[storage_of_blob[j]];
    m.blobs[j].capacity = alloc.size(storage_of_blob[j]);
  }
}


void PlanTimestepMemory(const CheckedNet& net, const Workspace& ws, Plan* plan, const std::set<std::string>& recomputed) {
  ClearMemoryPlan(plan);
  MemoryPlan& m = plan->memory();
  m.enabled = true;
  m.timestep = true;
  absl::flat_hash_set<const Tensor*> pinned = PinnedBlobs(net, ws, *plan);
  absl::flat_hash_map<const Tensor*, int> writers;
  for (const PlanStep& s : plan->steps()) {
    for (const Tensor* t : s.ctx.outputs) {
      if (t == nullptr) continue;
      ++writers[t];
      if (t->is_alias()) pinned.insert(t);  // a link: a row of an outer tensor
    }
  }
  for (const PlanStep& s : plan->steps()) {
    for (size_t k = 0; k < s.ctx.outputs.size(); ++k) {
      Tensor* t = s.ctx.outputs[k];
      if (t == nullptr || pinned.count(t) || writers[t] != 1) continue;
      m.release_after_run.push_back(t);
      ++m.dynamic_blobs;
      if (k < static_cast<size_t>(s.op->info->op.output_size()) && recomputed.count(s.op->info->op.output(k))) {
        m.recomputed_after_run.push_back(t);
      }
    }
  }
  m.pinned_blobs = static_cast<int64_t>(pinned.size());
}

}  // namespace loom
