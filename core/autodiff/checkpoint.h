// Training checkpoints: named blobs (parameters, optimizer states, anything
// a run needs to resume) as one TensorProto file each, `<name>.pb`, in a
// folder. A save writes a new folder next to the old one and swaps it in
// with renames, so an interrupted save leaves the previous checkpoint whole
// (at `dir`, or at `dir.old` if it stopped between the two renames; Load
// looks there too). Resuming from a checkpoint reproduces the next steps
// bitwise: the values are stored exactly (raw little-endian bytes).
#ifndef LOOM_CORE_AUTODIFF_CHECKPOINT_H_
#define LOOM_CORE_AUTODIFF_CHECKPOINT_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/workspace.h"

namespace loom {

// Writes the blobs `names` of `ws` (CPU tensors) to the folder `dir`.
// INVALID_ARGUMENT for a name the workspace lacks or one that is not a
// plain file name; INTERNAL (with the path) when a write or rename fails.
absl::Status SaveCheckpoint(const Workspace& ws, const std::vector<std::string>& names, const std::string& dir);

// Sets every `<name>.pb` of the folder `dir` (or of `dir.old`, see above)
// as blob `name` of `ws`; `names` lists what was loaded. NOT_FOUND when
// neither folder exists; INVALID_ARGUMENT naming a file that does not parse.
absl::Status LoadCheckpoint(const std::string& dir, Workspace* ws, std::vector<std::string>* names = nullptr);

}  // namespace loom

#endif  // LOOM_CORE_AUTODIFF_CHECKPOINT_H_
