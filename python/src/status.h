// absl::Status to Python: loom.Error (a RuntimeError) whose text starts with
// the status code ("INVALID_ARGUMENT: ..."), raised from every binding.
#ifndef LOOM_PYTHON_SRC_STATUS_H_
#define LOOM_PYTHON_SRC_STATUS_H_

#include <stdexcept>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace loom {
namespace python {

// Registered as loom.Error (module.cc).
struct StatusError : std::runtime_error {
  explicit StatusError(const absl::Status& s) : std::runtime_error(s.ToString()) {}
};

inline void Check(const absl::Status& s) {
  if (!s.ok()) throw StatusError(s);
}

template <typename T>
T Value(absl::StatusOr<T> v) {
  Check(v.status());
  return *std::move(v);
}

}  // namespace python
}  // namespace loom

#endif  // LOOM_PYTHON_SRC_STATUS_H_
