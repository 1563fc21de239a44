// PackedConstants: copies of a net's constant inputs that kernels made in a
// layout of their own at plan time (weights reordered into oneDNN's blocked
// layout, say), shared by every kernel that packs the same constant the same
// way (ABI 8, LoomApi::Prepare_SharedPack).
//
// Why shared: a RecurrentNetwork runs one step net per timestep (Caffe2's
// design), so the FC of a 50-step LSTM exists as 50 kernels reading the same
// weights. Each packing its own copy would hold the weights 50 times; with
// this store they are packed once and held once (ONNX Runtime's
// PrepackedWeightsContainer plays the same part across sessions). A Net
// makes one store and every net nested in it (step nets, If/Loop/Scan
// bodies) inherits it (NetScope::packed_constants).
//
// An entry is keyed by the constant's data address and byte size and by the
// kernel's key, which must name everything the packed bytes depend on (the
// layout, the shapes, the dtype). It lives while a kernel holds it: the
// store keeps only weak references. A constant freed and its address reused
// later cannot meet a stale entry: a net that frees a constant its kernels
// let go of (Prepare_ReleaseConstant, static_shape nets) has the store
// Forget it first, and otherwise the kernels that held the entry are gone
// by the time the constant is.
#ifndef LOOM_CORE_PACKED_CONSTANTS_H_
#define LOOM_CORE_PACKED_CONSTANTS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "core/tensor.h"

namespace loom {

// One packed copy: `bytes` bytes, kTensorAlignment (64 bytes) aligned, from the
// CPU device (core/device.h).
class PackedConstant {
 public:
  explicit PackedConstant(size_t bytes);
  ~PackedConstant();
  PackedConstant(const PackedConstant&) = delete;
  PackedConstant& operator=(const PackedConstant&) = delete;
  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

class PackedConstants {
 public:
  // Fills a new entry's `data` (its `bytes` bytes) from the constant.
  using Fill = std::function<absl::Status(void* data)>;

  // The entry for (`constant`, `key`): the live one when a kernel holds
  // it (then `bytes` must match: INVALID_ARGUMENT otherwise, a key that
  // does not name the layout), else a new one of `bytes` bytes that `fill`
  // fills. A failing fill's status is returned and no entry is kept.
  // Thread-safe (nets nested in concurrently running ops prepare
  // concurrently); fill runs under the store's lock, once per entry.
  absl::StatusOr<std::shared_ptr<PackedConstant>> GetOrFill(const Tensor& constant, const std::string& key, size_t bytes,
                                                            const Fill& fill);

  // Drops every entry of `constant` (all keys), before the net frees it:
  // the kernels holding them keep their copies, and a tensor given the
  // freed address later cannot meet them.
  void Forget(const Tensor& constant);

  // Entries alive now and their bytes (tests).
  size_t live_entries() const;
  size_t live_bytes() const;
  // Entries made so far (fills that succeeded).
  int64_t fills() const;

 private:
  using Key = std::tuple<const void*, size_t, std::string>;
  mutable absl::Mutex mu_;
  std::map<Key, std::weak_ptr<PackedConstant>> entries_ ABSL_GUARDED_BY(mu_);
  int64_t fills_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace loom

#endif  // LOOM_CORE_PACKED_CONSTANTS_H_
