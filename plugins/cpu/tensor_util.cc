#include "plugins/cpu/tensor_util.h"

#include <cstring>

#include "plugins/cpu/parallel_for.h"

namespace loom {
namespace cpu {

std::vector<LoomDataType> AllDTypes() {
  return {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE, LOOM_DTYPE_FLOAT16, LOOM_DTYPE_BFLOAT16, LOOM_DTYPE_INT8,
          LOOM_DTYPE_UINT8, LOOM_DTYPE_INT16,  LOOM_DTYPE_UINT16,  LOOM_DTYPE_INT32,    LOOM_DTYPE_UINT32,
          LOOM_DTYPE_INT64, LOOM_DTYPE_UINT64, LOOM_DTYPE_BOOL};
}

std::vector<LoomDataType> TensorDTypes() {
  std::vector<LoomDataType> t = AllDTypes();
  t.push_back(LOOM_DTYPE_STRING);
  return t;
}

void CopyData(const Tensor& in, const Tensor& out) {
  if (in.dtype() == LOOM_DTYPE_STRING) {  // elements, not bytes
    if (in.handle() == out.handle()) return;
    for (int64_t i = 0; i < in.num_elements(); ++i) (void)sdk::SetStringAt(out, static_cast<size_t>(i), sdk::StringAt(in, i));
    return;
  }
  const size_t bytes = static_cast<size_t>(in.num_elements()) * sdk::DTypeSize(in.dtype());
  if (bytes == 0 || in.raw_data() == out.raw_data()) return;
  std::memcpy(out.raw_data(), in.raw_data(), bytes);
}

ElementsIn::ElementsIn(const Tensor& t) {
  if (t.dtype() != LOOM_DTYPE_STRING) {
    raw_ = t.raw_data();
    esize_ = sdk::DTypeSize(t.dtype());
    return;
  }
  string_ = true;
  esize_ = sizeof(std::string_view);
  views_.resize(static_cast<size_t>(t.num_elements()));
  for (size_t i = 0; i < views_.size(); ++i) views_[i] = sdk::StringAt(t, i);
}

ElementsOut::ElementsOut(const Tensor& t) : t_(t) {
  if (t.dtype() != LOOM_DTYPE_STRING) {
    raw_ = t.raw_data();
    return;
  }
  string_ = true;
  views_.resize(static_cast<size_t>(t.num_elements()));
}

Status ElementsOut::Finish() const {
  if (!string_) return Status::Ok();
  for (size_t i = 0; i < views_.size(); ++i) LOOM_SDK_RETURN_IF_ERROR(sdk::SetStringAt(t_, i, views_[i]));
  return Status::Ok();
}

Status ReadIntsInput(const KernelContext& ctx, size_t index, const std::string& label, const char* name,
                     bool must_be_1d, std::vector<int64_t>* out, bool* given) {
  out->clear();
  Tensor t = ctx.Input(index);
  *given = t.present();
  if (!t.present()) return Status::Ok();
  if (!ReadInts(t, out)) {
    return sdk::InvalidArgument(label + ": input '" + name + "' must be int64 or int32, found " +
                                sdk::DTypeName(t.dtype()));
  }
  if (must_be_1d && t.rank() > 1) {
    return sdk::InvalidArgument(label + ": input '" + name + "' must be 1-D, found shape " + ShapeStr(t.shape()));
  }
  return Status::Ok();
}

namespace {

template <typename T>
void StridedCopyT(const T* src, int64_t base, const std::vector<int64_t>& st, const std::vector<int64_t>& sh, T* dst,
                  int64_t n, int threads) {
  const int64_t r = static_cast<int64_t>(sh.size());
  const int64_t inner = sh[r - 1], is = st[r - 1], outer = n / inner;
  // One output row (the innermost dim) per iteration; its start in src comes
  // from the outer index.
  ParallelForIf(n * static_cast<int64_t>(sizeof(T)) > kParallelBytes, outer, threads, [&](int64_t o) {
    int64_t rem = o, off = base;
    for (int64_t d = r - 2; d >= 0; --d) {
      off += (rem % sh[d]) * st[d];
      rem /= sh[d];
    }
    const T* in = src + off;
    T* row = dst + o * inner;
    if (is == 1) {
      std::memcpy(row, in, static_cast<size_t>(inner) * sizeof(T));
    } else {
      for (int64_t i = 0; i < inner; ++i) row[i] = in[i * is];
    }
  });
}

}  // namespace

void StridedCopy(const void* src, size_t esize, int64_t base, const std::vector<int64_t>& strides,
                 const std::vector<int64_t>& shape, void* dst, int threads) {
  const int64_t n = Product(shape);
  if (n == 0) return;
  // Drop size-1 dims and merge a dim into its outer neighbour when the two
  // are contiguous in src: fewer, longer rows (often a single memcpy).
  std::vector<int64_t> sh, st;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == 1) continue;
    if (!sh.empty() && st.back() == strides[k] * shape[k]) {
      sh.back() *= shape[k];
      st.back() = strides[k];
    } else {
      sh.push_back(shape[k]);
      st.push_back(strides[k]);
    }
  }
  if (sh.empty()) {  // a single element
    sh.push_back(1);
    st.push_back(1);
  }
  auto run = [&](auto tag) {
    using T = decltype(tag);
    StridedCopyT<T>(static_cast<const T*>(src), base, st, sh, static_cast<T*>(dst), n, threads);
  };
  switch (esize) {
    case 1: return run(uint8_t{});
    case 2: return run(uint16_t{});
    case 4: return run(uint32_t{});
    case 8: return run(uint64_t{});
    case sizeof(std::string_view): return run(std::string_view{});  // string elements (ElementsIn)
    default: break;
  }
}

}  // namespace cpu
}  // namespace loom
