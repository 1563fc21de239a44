// GatherElements, GatherND, ScatterElements and ScatterND against naive
// references.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "testing/op_runner.h"
#include "plugins/cpu/kernel_test_util.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

// ---------------------------------------------------------------- GatherElements

// Runs `type` on inputs d (data), i (indices) to y, with the int attribute `attr`.
absl::StatusOr<std::vector<Tensor>> RunDataIndices(const std::string& type, const char* attr, int64_t v,
                                                   const Tensor& data, const Tensor& idx) {
  return RunSingleOp(
      ParseOp("type: \"" + type + "\" name: \"g\" input: \"d\" input: \"i\" output: \"y\"" + IntArg(attr, v)),
      {data, idx});
}

absl::StatusOr<std::vector<Tensor>> RunGE(const Tensor& data, const Tensor& idx, int64_t axis) {
  return RunDataIndices("GatherElements", "axis", axis, data, idx);
}

TEST(GatherElementsTest, KnownValues) {
  // The ONNX documentation's example.
  Tensor d = Tensor::FromVector<float>({2, 2}, {1, 2, 3, 4});
  auto out = RunGE(d, Tensor::FromVector<int64_t>({2, 2}, {0, 0, 1, 0}), 1);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<float>({2, 2}, {1, 1, 4, 3})));
  // Negative indices count from the end; int32 indices.
  auto neg = RunGE(d, Tensor::FromVector<int32_t>({1, 2}, {-1, -2}), 0);
  ASSERT_TRUE(neg.ok()) << neg.status();
  EXPECT_TRUE(AllClose((*neg)[0], Tensor::FromVector<float>({1, 2}, {3, 2})));
}

TEST(GatherElementsTest, MatchesReference) {
  const Shape ds = {4, 5, 6};
  for (DataType dt : {DataType::kFloat32, DataType::kInt64, DataType::kInt8, DataType::kFloat16}) {
    Tensor d = RandomTensor(dt, ds, 5, -50, 50);
    for (int64_t axis : {0, 1, 2, -1, -2}) {
      const int64_t ax = axis < 0 ? axis + 3 : axis;
      Shape is = {3, 4, 5};
      is[ax] = 7;  // the axis may be longer than data's
      Tensor idx = RandomTensor(DataType::kInt64, is, 9, -ds[ax], ds[ax] - 1);
      Tensor want = Tensor::Zeros(dt, is);
      const size_t es = DataTypeSize(dt);
      for (int64_t i = 0; i < idx.num_elements(); ++i) {
        std::vector<int64_t> c = Unravel(i, is);
        int64_t k = idx.data<int64_t>()[i];
        c[ax] = k < 0 ? k + ds[ax] : k;
        std::memcpy(static_cast<char*>(want.raw_data()) + i * es,
                    static_cast<const char*>(d.raw_data()) + Ravel(c, ds) * es, es);
      }
      auto out = RunGE(d, idx, axis);
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_TRUE(AllClose((*out)[0], want)) << DataTypeName(dt) << " axis " << axis;
    }
  }
}

TEST(GatherElementsTest, ZeroSizeAndErrors) {
  Tensor d = RandomTensor(DataType::kFloat32, {2, 3}, 1);
  auto empty = RunGE(d, Tensor::Zeros(DataType::kInt64, {0, 3}), 0);
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ((*empty)[0].dims(), (Shape{0, 3}));
  auto oob = RunGE(d, Tensor::FromVector<int64_t>({1, 1}, {3}), 1);
  ASSERT_FALSE(oob.ok());
  const std::string m(oob.status().message());
  EXPECT_NE(m.find("GatherElements"), std::string::npos) << m;
  EXPECT_NE(m.find("indices"), std::string::npos) << m;
  EXPECT_FALSE(RunGE(d, Tensor::FromVector<int64_t>({1, 1}, {-4}), 1).ok());
  EXPECT_FALSE(RunGE(d, Tensor::FromVector<int64_t>({1}, {0}), 0).ok());           // rank mismatch
  EXPECT_FALSE(RunGE(d, Tensor::FromVector<int64_t>({1, 4}, {0, 0, 0, 0}), 0).ok());  // dim 1 > data's
  EXPECT_FALSE(RunGE(d, Tensor::FromVector<int64_t>({1, 1}, {0}), 2).ok());        // axis out of range
}

// ------------------------------------------------------------------ GatherND

absl::StatusOr<std::vector<Tensor>> RunGND(const Tensor& data, const Tensor& idx, int64_t batch_dims) {
  return RunDataIndices("GatherND", "batch_dims", batch_dims, data, idx);
}

TEST(GatherNDTest, KnownValues) {
  // ONNX documentation examples 2 and 5.
  Tensor d = Tensor::FromVector<int32_t>({2, 2}, {0, 1, 2, 3});
  auto out = RunGND(d, Tensor::FromVector<int64_t>({2, 1}, {1, 0}), 0);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<int32_t>({2, 2}, {2, 3, 0, 1})));
  Tensor d3 = Tensor::FromVector<int32_t>({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  auto b = RunGND(d3, Tensor::FromVector<int64_t>({2, 1}, {1, 0}), 1);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_TRUE(AllClose((*b)[0], Tensor::FromVector<int32_t>({2, 2}, {2, 3, 4, 5})));
}

TEST(GatherNDTest, MatchesReference) {
  const Shape ds = {2, 3, 4, 5};
  Tensor d = RandomTensor(DataType::kFloat32, ds, 3);
  for (int64_t b : {0, 1, 2}) {
    for (int64_t k = 1; k + b <= 4; ++k) {
      Shape is;
      for (int64_t j = 0; j < b; ++j) is.push_back(ds[j]);
      is.push_back(3);
      is.push_back(k);
      // Random in-range (possibly negative) index tuples.
      Tensor idx = Tensor::Zeros(DataType::kInt64, is);
      Tensor r = RandomTensor(DataType::kFloat64, is, 17 + k, 0, 1);
      for (int64_t i = 0; i < idx.num_elements(); ++i) {
        const int64_t s = ds[b + i % k];
        idx.data<int64_t>()[i] = static_cast<int64_t>(r.data<double>()[i] * (2 * s - 0.01)) - s;
      }
      Shape out_shape(is.begin(), is.end() - 1);
      for (size_t j = b + k; j < ds.size(); ++j) out_shape.push_back(ds[j]);
      std::vector<float> want;
      const int64_t tuples = idx.num_elements() / k;
      int64_t slice = 1;
      for (size_t j = b + k; j < ds.size(); ++j) slice *= ds[j];
      const int64_t per_batch = tuples / NumElements(Shape(ds.begin(), ds.begin() + b));
      for (int64_t t = 0; t < tuples; ++t) {
        std::vector<int64_t> c = Unravel(t / per_batch, Shape(ds.begin(), ds.begin() + b));
        for (int64_t j = 0; j < k; ++j) {
          int64_t v = idx.data<int64_t>()[t * k + j];
          c.push_back(v < 0 ? v + ds[b + j] : v);
        }
        while (c.size() < ds.size()) c.push_back(0);
        const int64_t start = Ravel(c, ds);
        for (int64_t e = 0; e < slice; ++e) want.push_back(d.data<float>()[start + e]);
      }
      auto out = RunGND(d, idx, b);
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<float>(out_shape, want))) << "b " << b << " k " << k;
    }
  }
}

TEST(GatherNDTest, Errors) {
  Tensor d = RandomTensor(DataType::kFloat32, {2, 3}, 1);
  auto oob = RunGND(d, Tensor::FromVector<int64_t>({1, 2}, {0, 3}), 0);
  ASSERT_FALSE(oob.ok());
  const std::string m(oob.status().message());
  EXPECT_NE(m.find("GatherND"), std::string::npos) << m;
  EXPECT_NE(m.find("indices"), std::string::npos) << m;
  EXPECT_FALSE(RunGND(d, Tensor::FromVector<int64_t>({1, 3}, {0, 0, 0}), 0).ok());  // k > rank
  EXPECT_FALSE(RunGND(d, Tensor::FromVector<int64_t>({3, 1}, {0, 0, 0}), 1).ok());  // batch dims differ
  EXPECT_FALSE(RunGND(d, Tensor::FromVector<int64_t>({2, 1}, {0, 0}), 2).ok());     // batch_dims too large
}

TEST(GatherNDTest, HugeBatchDimsIsAnErrorNotAnOverflow) {
  // batch_dims 2^63 - 1 plus k = 2 would overflow int64 (shape inference and
  // kernel compare k with rank - batch_dims instead).
  auto out = RunGND(RandomTensor(DataType::kFloat32, {2, 3}, 1), Tensor::FromVector<int64_t>({1, 2}, {0, 0}),
                    std::numeric_limits<int64_t>::max());
  ASSERT_FALSE(out.ok());
  const std::string m(out.status().message());
  EXPECT_NE(m.find("GatherND"), std::string::npos) << m;
  EXPECT_NE(m.find("batch_dims"), std::string::npos) << m;
  EXPECT_NE(m.find("9223372036854775807"), std::string::npos) << m;
}

// ---------------------------------------------------------- ScatterElements

absl::StatusOr<std::vector<Tensor>> RunSE(const Tensor& data, const Tensor& idx, const Tensor& up, int64_t axis,
                                          const std::string& red) {
  return RunSingleOp(ParseOp("type: \"ScatterElements\" name: \"s\" input: \"d\" input: \"i\" input: \"u\""
                             " output: \"y\" arg { name: \"axis\" i: " + std::to_string(axis) +
                             " } arg { name: \"reduction\" s: \"" + red + "\" }"),
                     {data, idx, up});
}

TEST(ScatterElementsTest, KnownValues) {
  // ONNX documentation example 2, and the add reduction with a duplicate index.
  Tensor d = Tensor::FromVector<float>({1, 5}, {1, 2, 3, 4, 5});
  auto out = RunSE(d, Tensor::FromVector<int64_t>({1, 2}, {1, 3}), Tensor::FromVector<float>({1, 2}, {1.1f, 2.1f}),
                   1, "none");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<float>({1, 5}, {1, 1.1f, 3, 2.1f, 5})));
  auto add = RunSE(d, Tensor::FromVector<int32_t>({1, 2}, {-4, 1}), Tensor::FromVector<float>({1, 2}, {1, 2}), -1,
                   "add");
  ASSERT_TRUE(add.ok()) << add.status();
  EXPECT_TRUE(AllClose((*add)[0], Tensor::FromVector<float>({1, 5}, {1, 5, 3, 4, 5})));
}

TEST(ScatterElementsTest, MatchesReference) {
  const Shape ds = {4, 5, 6};
  for (const std::string red : {"none", "add", "mul", "max", "min"}) {
    for (int64_t axis : {0, 1, -1}) {
      const int64_t ax = axis < 0 ? axis + 3 : axis;
      Tensor d = RandomTensor(DataType::kFloat64, ds, 2);
      Shape is = {3, 4, 5};
      Tensor idx = RandomTensor(DataType::kInt64, is, 4 + ax, -ds[ax], ds[ax] - 1);
      Tensor up = RandomTensor(DataType::kFloat64, is, 6);
      Tensor want = RandomTensor(DataType::kFloat64, ds, 2);  // a copy of d
      for (int64_t i = 0; i < idx.num_elements(); ++i) {
        std::vector<int64_t> c = Unravel(i, is);
        const int64_t k = idx.data<int64_t>()[i];
        c[ax] = k < 0 ? k + ds[ax] : k;
        double& w = want.data<double>()[Ravel(c, ds)];
        const double u = up.data<double>()[i];
        if (red == "none") w = u;
        else if (red == "add") w += u;
        else if (red == "mul") w *= u;
        else if (red == "max") w = std::max(w, u);
        else w = std::min(w, u);
      }
      auto out = RunSE(d, idx, up, axis, red);
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_TRUE(AllClose((*out)[0], want, 1e-12, 1e-12)) << red << " axis " << axis;
    }
  }
}

TEST(ScatterElementsTest, Errors) {
  Tensor d = RandomTensor(DataType::kFloat32, {2, 3}, 1);
  Tensor u = Tensor::FromVector<float>({1, 1}, {5});
  auto oob = RunSE(d, Tensor::FromVector<int64_t>({1, 1}, {2}), u, 0, "none");
  ASSERT_FALSE(oob.ok());
  const std::string m(oob.status().message());
  EXPECT_NE(m.find("ScatterElements"), std::string::npos) << m;
  EXPECT_NE(m.find("indices"), std::string::npos) << m;
  EXPECT_FALSE(RunSE(d, Tensor::FromVector<int64_t>({1, 2}, {0, 0}), u, 0, "none").ok());  // updates shape
  EXPECT_FALSE(RunSE(d, Tensor::FromVector<int64_t>({1, 1}, {0}), u, 0, "sub").ok());      // bad reduction
  EXPECT_FALSE(RunSE(d, Tensor::FromVector<int64_t>({1, 1}, {0}), u, 2, "none").ok());     // bad axis
}

// ---------------------------------------------------------------- ScatterND

absl::StatusOr<std::vector<Tensor>> RunSND(const Tensor& data, const Tensor& idx, const Tensor& up,
                                           const std::string& red) {
  return RunSingleOp(ParseOp("type: \"ScatterND\" name: \"s\" input: \"d\" input: \"i\" input: \"u\""
                             " output: \"y\" arg { name: \"reduction\" s: \"" + red + "\" }"),
                     {data, idx, up});
}

TEST(ScatterNDTest, KnownValuesAndReference) {
  // ONNX documentation example 1.
  Tensor d = Tensor::FromVector<float>({8}, {1, 2, 3, 4, 5, 6, 7, 8});
  auto out = RunSND(d, Tensor::FromVector<int64_t>({4, 1}, {4, 3, 1, 7}),
                    Tensor::FromVector<float>({4}, {9, 10, 11, 12}), "none");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<float>({8}, {1, 11, 3, 10, 9, 6, 7, 12})));
  // Slices of a [3, 4, 5] tensor addressed by (i, j) pairs, with duplicates, for every reduction.
  const Shape ds = {3, 4, 5};
  Tensor x = RandomTensor(DataType::kFloat64, ds, 8);
  Tensor idx = Tensor::FromVector<int64_t>({3, 2}, {0, 1, -1, 3, 0, 1});
  Tensor up = RandomTensor(DataType::kFloat64, {3, 5}, 9);
  for (const std::string red : {"none", "add", "mul", "max", "min"}) {
    Tensor want = RandomTensor(DataType::kFloat64, ds, 8);
    const int64_t starts[] = {(0 * 4 + 1) * 5, (2 * 4 + 3) * 5, (0 * 4 + 1) * 5};
    for (int64_t t = 0; t < 3; ++t) {
      for (int64_t e = 0; e < 5; ++e) {
        double& w = want.data<double>()[starts[t] + e];
        const double u = up.data<double>()[t * 5 + e];
        if (red == "none") w = u;
        else if (red == "add") w += u;
        else if (red == "mul") w *= u;
        else if (red == "max") w = std::max(w, u);
        else w = std::min(w, u);
      }
    }
    auto r = RunSND(x, idx, up, red);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(AllClose((*r)[0], want, 1e-12, 1e-12)) << red;
  }
  auto oob = RunSND(x, Tensor::FromVector<int64_t>({1, 2}, {0, 4}), RandomTensor(DataType::kFloat64, {1, 5}, 1),
                    "none");
  ASSERT_FALSE(oob.ok());
  EXPECT_NE(std::string(oob.status().message()).find("ScatterND"), std::string::npos) << oob.status();
  EXPECT_FALSE(RunSND(x, idx, RandomTensor(DataType::kFloat64, {3, 4}, 1), "none").ok());  // updates shape
}

}  // namespace
}  // namespace loom
