// NonZero against a naive reference.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "testing/op_runner.h"
#include "plugins/cpu/kernel_test_util.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

// ------------------------------------------------------------------ NonZero

TEST(NonZeroTest, KnownValuesAndReference) {
  auto run = [](const Tensor& x) {
    return RunSingleOp(ParseOp("type: \"NonZero\" name: \"n\" input: \"x\" output: \"y\""), {x});
  };
  // ONNX documentation example.
  auto out = run(Tensor::FromVector<int32_t>({2, 2}, {1, 0, 1, 1}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<int64_t>({2, 3}, {0, 1, 1, 0, 0, 1})));
  for (DataType dt : {DataType::kFloat32, DataType::kInt64, DataType::kUInt8, DataType::kFloat16}) {
    const Shape s = {3, 4, 5};
    Tensor x = RandomTensor(dt, s, 21, -1, 1);  // rounds to many zeros for integers
    std::vector<std::vector<int64_t>> rows(3);
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      if (x.ElementAsDouble(i) == 0) continue;
      std::vector<int64_t> c = Unravel(i, s);
      for (int d = 0; d < 3; ++d) rows[d].push_back(c[d]);
    }
    std::vector<int64_t> flat;
    for (const auto& r : rows) flat.insert(flat.end(), r.begin(), r.end());
    auto r = run(x);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(AllClose((*r)[0], Tensor::FromVector<int64_t>({3, static_cast<int64_t>(rows[0].size())}, flat)))
        << DataTypeName(dt);
  }
  auto z = run(Tensor::Zeros(DataType::kFloat32, {0, 2}));
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ((*z)[0].dims(), (Shape{2, 0}));
  auto sc = run(Tensor::FromVector<float>({}, {3}));
  ASSERT_TRUE(sc.ok()) << sc.status();
  EXPECT_TRUE(AllClose((*sc)[0], Tensor::FromVector<int64_t>({1, 1}, {0})));
}

}  // namespace
}  // namespace loom
