// Workspace: named blobs (tensors), as in Caffe2.
//
// A child workspace sees its parent's blobs; blobs it creates are its own and
// shadow the parent's. The recurrent-network operator gives each timestep a
// child workspace and links step-net blobs to slices of the parent's tensors
// with Alias, which shares memory rather than copying.
#ifndef LOOM_CORE_WORKSPACE_H_
#define LOOM_CORE_WORKSPACE_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/node_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "core/tensor.h"

namespace loom {

class Workspace {
 public:
  Workspace() = default;
  // A child that falls back to `parent` (which must outlive it) for lookups.
  explicit Workspace(const Workspace* parent) : parent_(parent) {}
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  // The blob named `name` here, or in an ancestor; nullptr if none.
  Tensor* GetBlob(absl::string_view name);
  const Tensor* GetBlob(absl::string_view name) const;
  bool HasBlob(absl::string_view name) const { return GetBlob(name) != nullptr; }
  // True when this workspace itself (not an ancestor) holds `name`.
  bool HasLocalBlob(absl::string_view name) const { return blobs_.find(name) != blobs_.end(); }
  // The blob in this workspace (not an ancestor), created empty if missing.
  // The pointer stays valid until the blob is removed.
  Tensor* CreateBlob(absl::string_view name);
  // Sets (creates or replaces) a blob in this workspace.
  void SetBlob(absl::string_view name, Tensor value);
  // Makes `name` in this workspace an alias of rows [begin, end) of `source`'s
  // leading dimension (no copy). Errors: NOT_FOUND for a missing source,
  // OUT_OF_RANGE for bad rows.
  absl::Status Alias(absl::string_view name, absl::string_view source, int64_t begin, int64_t end);
  bool RemoveBlob(absl::string_view name);
  // Names in this workspace only, sorted.
  std::vector<std::string> LocalBlobNames() const;
  const Workspace* parent() const { return parent_; }

  // Per-op resources (ABI 11's OpResource_*): the live resource under `key`
  // in this workspace (not an ancestor), else the one `create` makes, which
  // lives while some returned pointer holds it. The workspace keeps none
  // alive itself, so a resource may outlive it. Thread-safe. `create`'s
  // error is returned as it is.
  absl::StatusOr<std::shared_ptr<void>> AcquireResource(
      const std::string& key, const std::function<absl::StatusOr<std::shared_ptr<void>>()>& create);

 private:
  const Workspace* parent_ = nullptr;
  absl::node_hash_map<std::string, Tensor> blobs_;
  absl::Mutex resources_mu_;
  std::map<std::string, std::weak_ptr<void>> resources_ ABSL_GUARDED_BY(resources_mu_);
};

}  // namespace loom

#endif  // LOOM_CORE_WORKSPACE_H_
