#include "core/packed_constants.h"

#include <new>

#include "absl/strings/str_cat.h"
#include "core/device.h"

namespace loom {

// From the CPU device, as tensors are: large packs (a layer's weights) get
// its huge-page mappings (core/device.cc). 0 bytes gets one line.
PackedConstant::PackedConstant(size_t bytes) : bytes_(bytes) {
  absl::StatusOr<void*> p = CpuDevice()->Allocate(bytes == 0 ? 1 : bytes);
  if (!p.ok()) throw std::bad_alloc();
  data_ = *p;
}

PackedConstant::~PackedConstant() { CpuDevice()->Free(data_); }

absl::StatusOr<std::shared_ptr<PackedConstant>> PackedConstants::GetOrFill(const Tensor& constant, const std::string& key,
                                                                           size_t bytes, const Fill& fill) {
  absl::MutexLock lock(&mu_);
  const Key k{constant.raw_data(), constant.nbytes(), key};
  auto it = entries_.find(k);
  if (it != entries_.end()) {
    if (std::shared_ptr<PackedConstant> live = it->second.lock()) {
      if (live->bytes() != bytes) {
        return absl::InvalidArgumentError(absl::StrCat("packed constant '", key, "': ", bytes,
                                                       " bytes asked for, the packed copy has ", live->bytes(),
                                                       " (the key must name everything the layout depends on)"));
      }
      return live;
    }
  }
  // Expired entries are dropped as they are met, so the map stays as large
  // as the packs alive plus the keys asked for again.
  for (auto e = entries_.begin(); e != entries_.end();) e = e->second.expired() ? entries_.erase(e) : std::next(e);
  std::shared_ptr<PackedConstant> made;
  try {
    made = std::make_shared<PackedConstant>(bytes);
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(absl::StrCat("packed constant '", key, "': cannot allocate ", bytes, " bytes"));
  }
  absl::Status s = fill(made->data());
  if (!s.ok()) return s;
  entries_[k] = made;
  ++fills_;
  return made;
}

void PackedConstants::Forget(const Tensor& constant) {
  absl::MutexLock lock(&mu_);
  const void* data = constant.raw_data();
  for (auto e = entries_.lower_bound(Key{data, 0, std::string()}); e != entries_.end() && std::get<0>(e->first) == data;) {
    e = std::get<1>(e->first) == constant.nbytes() ? entries_.erase(e) : std::next(e);
  }
}

size_t PackedConstants::live_entries() const {
  absl::MutexLock lock(&mu_);
  size_t n = 0;
  for (const auto& [k, e] : entries_) n += e.expired() ? 0 : 1;
  return n;
}

size_t PackedConstants::live_bytes() const {
  absl::MutexLock lock(&mu_);
  size_t n = 0;
  for (const auto& [k, e] : entries_) {
    if (std::shared_ptr<PackedConstant> live = e.lock()) n += live->bytes();
  }
  return n;
}

int64_t PackedConstants::fills() const {
  absl::MutexLock lock(&mu_);
  return fills_;
}

}  // namespace loom
