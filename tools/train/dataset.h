// Datasets for loom_train: CSV files (optionally gzip-compressed, .gz), one
// example per line, the features then the integer class label last (the
// layout of scikit-learn's bundled datasets, e.g. Debian python3-sklearn's
// sklearn/datasets/data/digits.csv.gz; lines that do not parse as numbers,
// a header, are skipped), or NumPy arrays (npy.h): a .npz with the
// features as `x` [examples, d...] (any shape, any numeric dtype) and the
// labels as `y` [examples] (integers), or a features .npy with a labels
// .npy beside it.
#ifndef LOOM_TOOLS_TRAIN_DATASET_H_
#define LOOM_TOOLS_TRAIN_DATASET_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/tensor.h"

namespace loom {
namespace train {

struct Dataset {
  int64_t features = 0;
  // One example's shape (its product is `features`): {features} for CSV,
  // the array's dims after the first for NumPy (e.g. {3, 32, 32}).
  std::vector<int64_t> example_shape;
  std::vector<float> x;        // [examples, features], row-major, scaled
  std::vector<int64_t> label;  // [examples]
  int64_t size() const { return static_cast<int64_t>(label.size()); }
};

// Reads `path`; every feature is multiplied by `scale`. INVALID_ARGUMENT
// (naming the file and line) for rows of different widths, a label that is
// not a non-negative integer, or no rows; NOT_FOUND when the file is missing.
absl::StatusOr<Dataset> ReadCsv(const std::string& path, float scale);

// Reads a NumPy dataset: `path` a .npz holding arrays x and y, or a .npy
// of the features with `labels_path` a .npy of the labels. Every feature is
// multiplied by `scale`. INVALID_ARGUMENT (naming the file and array) for a
// .npz without x or y, features of rank < 1, labels that are not [examples]
// or not non-negative integers, counts that differ; NpyArray's errors.
absl::StatusOr<Dataset> ReadNumpy(const std::string& path, const std::string& labels_path, float scale);

// ReadNumpy for a .npz or .npy `path`, else ReadCsv.
absl::StatusOr<Dataset> ReadDataset(const std::string& path, const std::string& labels_path, float scale);

// Shuffles `all` with `seed` (unless `shuffle` is false: file order) and
// splits off the last `test_fraction` of it.
void Split(const Dataset& all, double test_fraction, uint32_t seed, bool shuffle, Dataset* train, Dataset* test);

// Rows [begin, begin + n) as x [n, example_shape...] float32 and y [n]
// int64.
void Batch(const Dataset& d, int64_t begin, int64_t n, Tensor* x, Tensor* y);

// The order in which an epoch visits `n` examples: 0..n-1, shuffled with
// `seed` when `shuffle` (the permutation Split uses).
std::vector<int64_t> Order(int64_t n, uint32_t seed, bool shuffle);

// Batch of the examples order[begin], ..., order[begin + n - 1]: an epoch's
// batches without a reordered copy of the data set.
void Batch(const Dataset& d, const std::vector<int64_t>& order, int64_t begin, int64_t n, Tensor* x, Tensor* y);

}  // namespace train
}  // namespace loom

#endif  // LOOM_TOOLS_TRAIN_DATASET_H_
