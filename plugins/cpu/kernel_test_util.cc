#include "plugins/cpu/kernel_test_util.h"

#include <algorithm>

#include "core/api/loom_sdk.h"

namespace loom {
namespace kernel_test {

const std::vector<DataType>& AllTypes() {
  static const std::vector<DataType> t = {
      DataType::kFloat32, DataType::kFloat64, DataType::kFloat16, DataType::kBFloat16, DataType::kInt8,
      DataType::kUInt8,   DataType::kInt16,   DataType::kUInt16,  DataType::kInt32,    DataType::kUInt32,
      DataType::kInt64,   DataType::kUInt64,  DataType::kBool};
  return t;
}

const DataType kFloatTypes[4] = {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16, DataType::kBFloat16};

double Tol(DataType dt) {
  switch (dt) {
    case DataType::kFloat32: return 1e-5;
    case DataType::kFloat64: return 1e-10;
    case DataType::kFloat16: return 5e-3;
    default: return 3e-2;  // bfloat16
  }
}

Tensor Make(DataType dt, const Shape& shape, const std::vector<double>& values) {
  Tensor t = Tensor::Zeros(dt, shape);
  const int64_t n = std::min<int64_t>(t.num_elements(), static_cast<int64_t>(values.size()));
  for (int64_t i = 0; i < n; ++i) SetElement(t, i, values[i]);
  return t;
}

Tensor Map(const Tensor& x, const std::function<double(double)>& f) {
  Tensor y = Tensor::Zeros(x.dtype(), x.dims());
  for (int64_t i = 0; i < x.num_elements(); ++i) SetElement(y, i, f(x.ElementAsDouble(i)));
  return y;
}

std::vector<double> Values(const Tensor& t) {
  std::vector<double> v(t.num_elements());
  for (int64_t i = 0; i < t.num_elements(); ++i) v[i] = t.ElementAsDouble(i);
  return v;
}

Tensor Cast(DataType dt, const Tensor& t) { return Make(dt, t.dims(), Values(t)); }

Tensor F32(Shape dims, std::vector<float> v) { return Tensor::FromVector<float>(std::move(dims), v); }
Tensor I64(std::vector<int64_t> v) { return Tensor::FromVector<int64_t>({static_cast<int64_t>(v.size())}, v); }
Tensor Strings(Shape dims, std::vector<std::string> v) {
  Tensor t = *Tensor::Create(DataType::kString, std::move(dims));
  *t.mutable_strings() = std::move(v);
  return t;
}

Shape Unravel(int64_t flat, const Shape& dims) {
  Shape idx(dims.size());
  for (size_t k = dims.size(); k-- > 0;) {
    idx[k] = flat % dims[k];
    flat /= dims[k];
  }
  return idx;
}

int64_t Ravel(const Shape& idx, const Shape& dims) {
  int64_t flat = 0;
  for (size_t k = 0; k < dims.size(); ++k) flat = flat * dims[k] + idx[k];
  return flat;
}

Reduction ReductionOf(const Shape& dims, std::vector<int64_t> axes, bool keepdims) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  if (axes.empty()) {
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  }
  Reduction r;
  r.red.assign(rank, false);
  for (int64_t a : axes) r.red[a < 0 ? a + rank : a] = true;
  for (int64_t d = 0; d < rank; ++d) {
    if (!r.red[d]) {
      r.out.push_back(dims[d]);
      r.kept.push_back(dims[d]);
    } else if (keepdims) {
      r.out.push_back(1);
    }
  }
  return r;
}

int64_t Reduction::OutIndex(int64_t i, const Shape& dims) const {
  const Shape c = Unravel(i, dims);
  int64_t o = 0;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (!red[d]) o = o * dims[d] + c[d];
  }
  return o;
}

std::vector<int64_t> OnesIfEmpty(const std::vector<int64_t>& v, size_t n) {
  return v.empty() ? std::vector<int64_t>(n, 1) : v;
}

std::vector<int64_t> To3(std::vector<int64_t> v, int64_t fill) {
  v.insert(v.begin(), 3 - v.size(), fill);
  return v;
}

bool SamePads(const std::string& auto_pad, int64_t in, int64_t ek, int64_t s, int64_t* out, int64_t* pb, int64_t* pe) {
  if (auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER") return false;
  *out = (in + s - 1) / s;
  const int64_t total = std::max<int64_t>(0, (*out - 1) * s + ek - in);
  *pb = auto_pad == "SAME_UPPER" ? total / 2 : (total + 1) / 2;
  *pe = total - *pb;
  return true;
}

::testing::AssertionResult SameTensor(const Tensor& actual, const Tensor& expected) {
  if (actual.dtype() != expected.dtype() || actual.dims() != expected.dims()) {
    return ::testing::AssertionFailure() << "expected " << expected.DebugString() << ", found " << actual.DebugString();
  }
  const size_t es = DataTypeSize(actual.dtype());
  for (int64_t i = 0; i < actual.num_elements(); ++i) {
    if (std::memcmp(actual.data<char>() + i * es, expected.data<char>() + i * es, es) != 0) {
      return ::testing::AssertionFailure() << actual.DebugString() << ": first difference at flat index " << i
                                           << ": found " << actual.ElementAsDouble(i) << ", expected "
                                           << expected.ElementAsDouble(i);
    }
  }
  return ::testing::AssertionSuccess();
}

Tensor Run1(const OperatorDef& op, const std::vector<Tensor>& inputs) {
  auto out = RunSingleOp(op, inputs);
  EXPECT_TRUE(out.ok()) << op.ShortDebugString() << ": " << out.status();
  return out.ok() ? (*out)[0] : Tensor();
}

void ExpectError(const OperatorDef& op, const std::vector<Tensor>& inputs, const char* part) {
  ExpectError(op, inputs, std::vector<std::string>{part});
}

void ExpectError(const OperatorDef& op, const std::vector<Tensor>& inputs, const std::vector<std::string>& parts) {
  auto out = RunSingleOp(op, inputs);
  ASSERT_FALSE(out.ok()) << op.ShortDebugString();
  for (const std::string& p : parts) {
    EXPECT_NE(out.status().message().find(p), std::string::npos) << "'" << p << "' not in: " << out.status();
  }
}

std::string IntArg(const std::string& name, int64_t v) {
  return " arg { name: \"" + name + "\" i: " + std::to_string(v) + " } ";
}

std::string FloatArg(const std::string& name, double v) {
  return " arg { name: \"" + name + "\" f: " + std::to_string(v) + " } ";
}

std::string IntsText(const std::vector<int64_t>& v) {
  std::string s;
  for (int64_t a : v) s += " ints: " + std::to_string(a);
  return s;
}

}  // namespace kernel_test
}  // namespace loom
