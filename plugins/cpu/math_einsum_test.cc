// Einsum against naive references (plain loops), known values and error
// cases.
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "testing/op_runner.h"
#include "plugins/cpu/kernel_test_util.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

// --------------------------------------------------------------------- Einsum

absl::StatusOr<std::vector<Tensor>> RunEinsum(const std::string& eq, const std::vector<Tensor>& in) {
  std::string text = "type: \"Einsum\" name: \"e\"";
  for (size_t i = 0; i < in.size(); ++i) text += " input: \"x" + std::to_string(i) + "\"";
  text += " output: \"y\" arg { name: \"equation\" s: \"" + eq + "\" }";
  return RunSingleOp(ParseOp(text), in);
}

double At(const Tensor& t, const std::vector<int64_t>& c) { return t.ElementAsDouble(Ravel(c, t.dims())); }

// Checks one equation against a reference filled by `ref(out_coords)`.
template <typename F>
void CheckEinsum(const std::string& eq, const std::vector<Tensor>& in, const Shape& out_shape, F ref,
                 double tol = 1e-5) {
  auto out = RunEinsum(eq, in);
  ASSERT_TRUE(out.ok()) << eq << ": " << out.status();
  std::vector<double> v(NumElements(out_shape));
  for (int64_t i = 0; i < static_cast<int64_t>(v.size()); ++i) v[i] = ref(Unravel(i, out_shape));
  EXPECT_TRUE(AllClose((*out)[0], Make(in[0].dtype(), out_shape, v), tol, tol)) << eq;
}

TEST(EinsumTest, KnownValues) {
  Tensor a = Tensor::FromVector<float>({2, 2}, {1, 2, 3, 4});
  Tensor b = Tensor::FromVector<float>({2, 2}, {5, 6, 7, 8});
  auto mm = RunEinsum("ij,jk->ik", {a, b});
  ASSERT_TRUE(mm.ok()) << mm.status();
  EXPECT_TRUE(AllClose((*mm)[0], Tensor::FromVector<float>({2, 2}, {19, 22, 43, 50})));
  auto tr = RunEinsum("ii", {a});  // implicit: i is repeated, so summed: the trace
  ASSERT_TRUE(tr.ok()) << tr.status();
  EXPECT_TRUE(AllClose((*tr)[0], Tensor::FromVector<float>({}, {5})));
  auto t2 = RunEinsum("ji", {a});  // implicit output "ij": a transpose
  ASSERT_TRUE(t2.ok()) << t2.status();
  EXPECT_TRUE(AllClose((*t2)[0], Tensor::FromVector<float>({2, 2}, {1, 3, 2, 4})));
}

TEST(EinsumTest, MatchesReference) {
  for (DataType dt : {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16, DataType::kInt32,
                      DataType::kInt64}) {
    const double tol = dt == DataType::kFloat16 ? 5e-3 : 1e-5;
    const double lo = -3, hi = 3;
    Tensor a = RandomTensor(dt, {3, 4}, 1, lo, hi), b = RandomTensor(dt, {4, 5}, 2, lo, hi);
    CheckEinsum("ij,jk->ik", {a, b}, {3, 5}, [&](const std::vector<int64_t>& o) {
      double s = 0;
      for (int64_t j = 0; j < 4; ++j) s += At(a, {o[0], j}) * At(b, {j, o[1]});
      return s;
    }, tol);
    CheckEinsum("ij->ji", {a}, {4, 3}, [&](const std::vector<int64_t>& o) { return At(a, {o[1], o[0]}); }, tol);
    CheckEinsum("ij->", {a}, {}, [&](const std::vector<int64_t>&) {
      double s = 0;
      for (int64_t i = 0; i < 12; ++i) s += a.ElementAsDouble(i);
      return s;
    }, tol);
    CheckEinsum("ij->j", {a}, {4}, [&](const std::vector<int64_t>& o) {
      double s = 0;
      for (int64_t i = 0; i < 3; ++i) s += At(a, {i, o[0]});
      return s;
    }, tol);
    Tensor sq = RandomTensor(dt, {4, 4}, 3, lo, hi);
    CheckEinsum("ii->i", {sq}, {4}, [&](const std::vector<int64_t>& o) { return At(sq, {o[0], o[0]}); }, tol);
    Tensor u = RandomTensor(dt, {4}, 4, lo, hi), v = RandomTensor(dt, {4}, 5, lo, hi);
    CheckEinsum("i,i", {u, v}, {}, [&](const std::vector<int64_t>&) {
      double s = 0;
      for (int64_t i = 0; i < 4; ++i) s += At(u, {i}) * At(v, {i});
      return s;
    }, tol);
    CheckEinsum("i,j->ij", {u, v}, {4, 4},
                [&](const std::vector<int64_t>& o) { return At(u, {o[0]}) * At(v, {o[1]}); }, tol);
    // Batched matmul, with spaces in the equation.
    Tensor ba = RandomTensor(dt, {2, 3, 4}, 6, lo, hi), bb = RandomTensor(dt, {2, 4, 2}, 7, lo, hi);
    CheckEinsum(" bij , bjk -> bik", {ba, bb}, {2, 3, 2}, [&](const std::vector<int64_t>& o) {
      double s = 0;
      for (int64_t j = 0; j < 4; ++j) s += At(ba, {o[0], o[1], j}) * At(bb, {o[0], j, o[2]});
      return s;
    }, tol);
    // Ellipsis with broadcasting and the implicit output ("...ik").
    Tensor ea = RandomTensor(dt, {2, 1, 3, 4}, 8, lo, hi), eb = RandomTensor(dt, {5, 4, 2}, 9, lo, hi);
    CheckEinsum("...ij,...jk", {ea, eb}, {2, 5, 3, 2}, [&](const std::vector<int64_t>& o) {
      double s = 0;
      for (int64_t j = 0; j < 4; ++j) s += At(ea, {o[0], 0, o[2], j}) * At(eb, {o[1], j, o[3]});
      return s;
    }, tol);
    Tensor bd = RandomTensor(dt, {2, 3, 3}, 10, lo, hi);
    CheckEinsum("...ii->...i", {bd}, {2, 3},
                [&](const std::vector<int64_t>& o) { return At(bd, {o[0], o[1], o[1]}); }, tol);
    // Ellipsis in the middle; the output puts it first.
    Tensor mid = RandomTensor(dt, {3, 2, 5, 4}, 11, lo, hi);
    CheckEinsum("i...j->...ji", {mid}, {2, 5, 4, 3},
                [&](const std::vector<int64_t>& o) { return At(mid, {o[3], o[0], o[1], o[2]}); }, tol);
    // Three operands.
    Tensor c1 = RandomTensor(dt, {2, 3, 4}, 12, lo, hi), c2 = RandomTensor(dt, {4, 2}, 13, lo, hi),
           c3 = RandomTensor(dt, {2, 3}, 14, lo, hi);
    CheckEinsum("abc,cd,de->abe", {c1, c2, c3}, {2, 3, 3}, [&](const std::vector<int64_t>& o) {
      double s = 0;
      for (int64_t c = 0; c < 4; ++c) {
        for (int64_t d = 0; d < 2; ++d) s += At(c1, {o[0], o[1], c}) * At(c2, {c, d}) * At(c3, {d, o[2]});
      }
      return s;
    }, dt == DataType::kFloat16 ? 2e-2 : tol);
    // Rank 0 operands.
    Tensor s0 = RandomTensor(dt, {}, 15, lo, hi), s1 = RandomTensor(dt, {}, 16, lo, hi);
    CheckEinsum(",->", {s0, s1}, {}, [&](const std::vector<int64_t>&) {
      return s0.ElementAsDouble(0) * s1.ElementAsDouble(0);
    }, tol);
    CheckEinsum("i,->i", {u, s0}, {4},
                [&](const std::vector<int64_t>& o) { return At(u, {o[0]}) * s0.ElementAsDouble(0); }, tol);
  }
  // Large enough for the threaded path.
  Tensor big_a = RandomTensor(DataType::kFloat32, {64, 48}, 20), big_b = RandomTensor(DataType::kFloat32, {48, 80}, 21);
  CheckEinsum("ik,kj->ij", {big_a, big_b}, {64, 80}, [&](const std::vector<int64_t>& o) {
    double s = 0;
    for (int64_t k = 0; k < 48; ++k) s += At(big_a, {o[0], k}) * At(big_b, {k, o[1]});
    return s;
  }, 1e-4);
}

TEST(EinsumTest, ZeroSize) {
  Tensor a = Tensor::Zeros(DataType::kFloat32, {2, 0}), b = Tensor::Zeros(DataType::kFloat32, {0, 3});
  auto z = RunEinsum("ij,jk->ik", {a, b});  // an empty sum is 0
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_TRUE(AllClose((*z)[0], Tensor::Zeros(DataType::kFloat32, {2, 3})));
  auto e = RunEinsum("ij,jk->ik", {b, RandomTensor(DataType::kFloat32, {3, 4}, 1)});
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ((*e)[0].dims(), (Shape{0, 4}));
}

TEST(EinsumTest, BadInputsAreErrors) {
  Tensor a = RandomTensor(DataType::kFloat32, {3, 4}, 1), b = RandomTensor(DataType::kFloat32, {5, 2}, 2);
  EXPECT_FALSE(RunEinsum("ij,jk->ik", {a}).ok()) << "operand count";
  EXPECT_FALSE(RunEinsum("ij,jk->ik", {a, b}).ok()) << "size mismatch";
  EXPECT_FALSE(RunEinsum("ij->k", {a}).ok()) << "output label not in inputs";
  EXPECT_FALSE(RunEinsum("ij->ii", {a}).ok()) << "output label twice";
  EXPECT_FALSE(RunEinsum("i$j", {a}).ok()) << "bad character";
  EXPECT_FALSE(RunEinsum("i..j", {a}).ok()) << "bad ellipsis";
  EXPECT_FALSE(RunEinsum("ijk", {a}).ok()) << "rank mismatch";
  EXPECT_FALSE(RunEinsum("...ijk", {a}).ok()) << "rank below the letters";
  EXPECT_FALSE(RunEinsum("ii->i", {a}).ok()) << "diagonal of unequal dims";
}

}  // namespace
}  // namespace loom
