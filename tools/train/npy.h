// NumPy's array files for loom_train's datasets: `.npy` (one array, format
// versions 1.0 to 3.0) and `.npz` (a zip of `.npy` members, stored or
// deflated, zip64 included: what numpy.savez and numpy.savez_compressed
// write). C order only; the element types of numeric arrays (bool,
// int8-64, uint8-64, float32, float64, little-endian or single byte).
#ifndef LOOM_TOOLS_TRAIN_NPY_H_
#define LOOM_TOOLS_TRAIN_NPY_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace loom {
namespace train {

// One array: its shape, dtype and the file's bytes, read element by element
// as double (exact for every integer type up to 2^53 and for float32 and
// float64) without a converted copy of the whole array (a dataset of
// images would otherwise be held twice more).
struct NpyArray {
  std::vector<int64_t> shape;  // () for a scalar
  std::string descr;           // NumPy's dtype string, e.g. "<f4"
  int64_t count = 0;           // elements (the shape's product)
  // Element i (row-major) as double.
  double At(int64_t i) const { return read(bytes.data() + offset + static_cast<size_t>(i) * size); }

  std::string bytes;  // the .npy file (or zip member)
  size_t offset = 0;  // where the data starts in `bytes`
  size_t size = 0;    // bytes per element
  double (*read)(const char*) = nullptr;
};

// Parses the bytes of one .npy file (moved into the array); `name` goes
// into the errors.
// INVALID_ARGUMENT for a bad magic or header, Fortran order, an unsupported
// dtype (naming it) or too few data bytes.
absl::StatusOr<NpyArray> ParseNpy(std::string bytes, const std::string& name);

// Reads a .npy file. NOT_FOUND when it cannot be opened; ParseNpy's errors.
absl::StatusOr<NpyArray> ReadNpy(const std::string& path);

// Reads every member of a .npz file, keyed by the array's name (the member's
// name without ".npy": numpy.savez's keywords, or arr_0, arr_1, ...).
// NOT_FOUND when it cannot be opened; INVALID_ARGUMENT for a file that is
// not a zip, a compression method other than stored or deflate, or a
// member that does not parse.
absl::StatusOr<std::map<std::string, NpyArray>> ReadNpz(const std::string& path);

}  // namespace train
}  // namespace loom

#endif  // LOOM_TOOLS_TRAIN_NPY_H_
