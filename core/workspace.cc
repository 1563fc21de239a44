#include "core/workspace.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace loom {

Tensor* Workspace::GetBlob(absl::string_view name) {
  return const_cast<Tensor*>(static_cast<const Workspace*>(this)->GetBlob(name));
}

const Tensor* Workspace::GetBlob(absl::string_view name) const {
  for (const Workspace* w = this; w != nullptr; w = w->parent_) {
    auto it = w->blobs_.find(name);
    if (it != w->blobs_.end()) return &it->second;
  }
  return nullptr;
}

Tensor* Workspace::CreateBlob(absl::string_view name) { return &blobs_[std::string(name)]; }

void Workspace::SetBlob(absl::string_view name, Tensor value) { blobs_[std::string(name)] = std::move(value); }

absl::Status Workspace::Alias(absl::string_view name, absl::string_view source, int64_t begin, int64_t end) {
  const Tensor* src = GetBlob(source);
  if (src == nullptr) return absl::NotFoundError(absl::StrCat("alias '", name, "': no blob '", source, "'"));
  absl::StatusOr<Tensor> slice = src->Slice(begin, end);
  if (!slice.ok()) return absl::Status(slice.status().code(), absl::StrCat("alias '", name, "' of '", source, "': ", slice.status().message()));
  SetBlob(name, *std::move(slice));
  return absl::OkStatus();
}

bool Workspace::RemoveBlob(absl::string_view name) { return blobs_.erase(name) > 0; }

std::vector<std::string> Workspace::LocalBlobNames() const {
  std::vector<std::string> names;
  for (const auto& kv : blobs_) names.push_back(kv.first);
  std::sort(names.begin(), names.end());
  return names;
}

absl::StatusOr<std::shared_ptr<void>> Workspace::AcquireResource(
    const std::string& key, const std::function<absl::StatusOr<std::shared_ptr<void>>()>& create) {
  absl::MutexLock lock(&resources_mu_);
  // Expired entries go as they are met, so the map holds about what is live.
  for (auto it = resources_.begin(); it != resources_.end();) {
    it = it->second.expired() && it->first != key ? resources_.erase(it) : std::next(it);
  }
  std::weak_ptr<void>& slot = resources_[key];
  if (std::shared_ptr<void> live = slot.lock()) return live;
  absl::StatusOr<std::shared_ptr<void>> made = create();
  if (made.ok()) slot = *made;
  return made;
}

}  // namespace loom
