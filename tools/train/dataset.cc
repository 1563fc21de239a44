#include "tools/train/dataset.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <numeric>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tools/train/npy.h"

namespace loom {
namespace train {

absl::StatusOr<Dataset> ReadCsv(const std::string& path, float scale) {
  gzFile f = gzopen(path.c_str(), "rb");  // reads plain files too
  if (f == nullptr) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::string text;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof(buf))) > 0) text.append(buf, static_cast<size_t>(n));
  gzclose(f);
  Dataset d;
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    std::vector<absl::string_view> cells = absl::StrSplit(line, ',');
    std::vector<double> values;
    bool numeric = true;
    for (absl::string_view c : cells) {
      double v;
      numeric = numeric && absl::SimpleAtod(c, &v);
      values.push_back(numeric ? v : 0);
    }
    if (!numeric) continue;  // a header
    if (values.size() < 2) return absl::InvalidArgumentError(absl::StrCat(path, ":", line_no, ": needs features and a label"));
    const int64_t width = static_cast<int64_t>(values.size()) - 1;
    if (d.features == 0) d.features = width;
    if (width != d.features) {
      return absl::InvalidArgumentError(absl::StrCat(path, ":", line_no, ": ", width, " features; earlier rows have ",
                                                     d.features));
    }
    const double label = values.back();
    if (label < 0 || label != std::floor(label)) {
      return absl::InvalidArgumentError(absl::StrCat(path, ":", line_no, ": label ", label, " is not a class index"));
    }
    for (int64_t i = 0; i < width; ++i) d.x.push_back(static_cast<float>(values[i]) * scale);
    d.label.push_back(static_cast<int64_t>(label));
  }
  if (d.label.empty()) return absl::InvalidArgumentError(absl::StrCat(path, ": no rows"));
  d.example_shape = {d.features};
  return d;
}

absl::StatusOr<Dataset> ReadNumpy(const std::string& path, const std::string& labels_path, float scale) {
  NpyArray x, y;
  std::string x_name = path, y_name = labels_path;
  if (absl::EndsWith(path, ".npz")) {
    absl::StatusOr<std::map<std::string, NpyArray>> arrays = ReadNpz(path);
    if (!arrays.ok()) return arrays.status();
    for (const char* k : {"x", "y"}) {
      if (!arrays->count(k)) {
        std::string names;
        for (const auto& [n, a] : *arrays) absl::StrAppend(&names, names.empty() ? "" : ", ", n);
        return absl::InvalidArgumentError(absl::StrCat(path, ": needs arrays x (features) and y (labels), as "
                                                       "numpy.savez(path, x=..., y=...) writes; found ", names));
      }
    }
    x = std::move((*arrays)["x"]);
    y = std::move((*arrays)["y"]);
    x_name = path + ":x";
    y_name = path + ":y";
  } else {
    if (labels_path.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": a .npy of features needs a .npy of labels (--labels)"));
    }
    absl::StatusOr<NpyArray> xa = ReadNpy(path), ya = ReadNpy(labels_path);
    if (!xa.ok()) return xa.status();
    if (!ya.ok()) return ya.status();
    x = *std::move(xa);
    y = *std::move(ya);
  }
  if (x.shape.empty()) return absl::InvalidArgumentError(absl::StrCat(x_name, ": features must be [examples, ...]; found a scalar"));
  const int64_t n = x.shape[0];
  if (y.shape.size() != 1 || y.shape[0] != n) {
    std::string ys;
    for (int64_t d : y.shape) absl::StrAppend(&ys, ys.empty() ? "" : ", ", d);
    return absl::InvalidArgumentError(absl::StrCat(y_name, ": labels must be [", n, "] (one per example of ", x_name,
                                                   "); found [", ys, "]"));
  }
  Dataset d;
  d.example_shape.assign(x.shape.begin() + 1, x.shape.end());
  d.features = 1;
  for (int64_t v : d.example_shape) d.features *= v;
  d.x.resize(static_cast<size_t>(x.count));
  for (int64_t i = 0; i < x.count; ++i) d.x[static_cast<size_t>(i)] = static_cast<float>(x.At(i)) * scale;
  x = NpyArray();  // the file's bytes
  d.label.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const double l = y.At(i);
    if (l < 0 || l != std::floor(l)) {
      return absl::InvalidArgumentError(absl::StrCat(y_name, ": label ", l, " of example ", i, " is not a class index"));
    }
    d.label[static_cast<size_t>(i)] = static_cast<int64_t>(l);
  }
  if (d.label.empty()) return absl::InvalidArgumentError(absl::StrCat(x_name, ": no examples"));
  return d;
}

absl::StatusOr<Dataset> ReadDataset(const std::string& path, const std::string& labels_path, float scale) {
  if (absl::EndsWith(path, ".npz") || absl::EndsWith(path, ".npy")) return ReadNumpy(path, labels_path, scale);
  return ReadCsv(path, scale);
}

std::vector<int64_t> Order(int64_t n, uint32_t seed, bool shuffle) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  if (shuffle) {
    std::mt19937 rng(seed);
    std::shuffle(order.begin(), order.end(), rng);
  }
  return order;
}

void Split(const Dataset& all, double test_fraction, uint32_t seed, bool shuffle, Dataset* train, Dataset* test) {
  const std::vector<int64_t> order = Order(all.size(), seed, shuffle);
  const int64_t n_test = static_cast<int64_t>(std::llround(test_fraction * static_cast<double>(all.size())));
  *train = Dataset{all.features, all.example_shape, {}, {}};
  *test = Dataset{all.features, all.example_shape, {}, {}};
  for (int64_t k = 0; k < all.size(); ++k) {
    Dataset* to = k >= all.size() - n_test ? test : train;
    const int64_t i = order[k];
    to->x.insert(to->x.end(), all.x.begin() + i * all.features, all.x.begin() + (i + 1) * all.features);
    to->label.push_back(all.label[i]);
  }
}

void Batch(const Dataset& d, const std::vector<int64_t>& order, int64_t begin, int64_t n, Tensor* x, Tensor* y) {
  std::vector<int64_t> shape = {n};
  if (d.example_shape.empty()) shape.push_back(d.features);
  shape.insert(shape.end(), d.example_shape.begin(), d.example_shape.end());
  std::vector<float> xv(static_cast<size_t>(n * d.features));
  std::vector<int64_t> yv(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    const int64_t i = order[static_cast<size_t>(begin + k)];
    std::copy(d.x.begin() + i * d.features, d.x.begin() + (i + 1) * d.features, xv.begin() + k * d.features);
    yv[static_cast<size_t>(k)] = d.label[static_cast<size_t>(i)];
  }
  *x = Tensor::FromVector<float>(shape, xv);
  *y = Tensor::FromVector<int64_t>({n}, yv);
}

void Batch(const Dataset& d, int64_t begin, int64_t n, Tensor* x, Tensor* y) {
  std::vector<int64_t> shape = {n};
  if (d.example_shape.empty()) shape.push_back(d.features);
  shape.insert(shape.end(), d.example_shape.begin(), d.example_shape.end());
  *x = Tensor::FromVector<float>(Shape(shape.begin(), shape.end()), std::vector<float>(d.x.begin() + begin * d.features,
                                                                       d.x.begin() + (begin + n) * d.features));
  *y = Tensor::FromVector<int64_t>({n}, std::vector<int64_t>(d.label.begin() + begin, d.label.begin() + begin + n));
}

}  // namespace train
}  // namespace loom
