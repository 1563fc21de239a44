// The integer matmuls and convolutions of ONNX opset 10 (ops/quantization.cc):
// MatMulInteger and ConvInteger (int32 results), QLinearMatMul and
// QLinearConv (requantized to int8/uint8), and Loom's NhwcQLinearConv
// (QLinearConv on channels-last tensors). The convolutions run on oneDNN's
// int8 convolution where it applies (dnnl_int8_conv.h: s8 W with zero point
// 0; QLinearConv requantized inside it), else, like the matmuls, in
// reference loops with exact int32 accumulation, OpenMP over output rows or
// planes, requantized by ops/semantics/quantization.h: correct for every
// shape and zero point the ops allow.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/semantics/quantization.h"
#include "ops/semantics/shape_math.h"
#include "ops/semantics/window.h"
#include "plugins/cpu/byte_lookup.h"
#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/dnnl_int8_conv.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/quant_scalar.h"
#include "plugins/cpu/vector_clones.h"
#include "plugins/cpu/nn_conv_naive.h"
#include "plugins/cpu/parallel_for.h"

namespace loom {
namespace cpu {
namespace {

// An int8/uint8 tensor's values as int32.
Status Int32Values(const Tensor& t, const std::string& label, std::vector<int32_t>* out) {
  const int64_t n = t.num_elements();
  out->resize(static_cast<size_t>(n));
  switch (t.dtype()) {
    case LOOM_DTYPE_INT8: std::copy_n(t.data<int8_t>(), n, out->begin()); break;
    case LOOM_DTYPE_UINT8: std::copy_n(t.data<uint8_t>(), n, out->begin()); break;
    default: return UnsupportedDtype(label, t.dtype());
  }
  return Status::Ok();
}

// A quantization parameter (zero point or scale) that is one value, or one
// per row (A's M) / column (B's N), or one per row of every batch matrix
// (MatMulInteger's [..., M, 1] and [..., 1, N] forms).
template <typename V>
struct PerIndex {
  std::vector<V> values;
  int64_t count = 1;  // rows or columns per matrix
  V At(int64_t batch, int64_t i) const {
    if (values.size() == 1) return values[0];
    if (static_cast<int64_t>(values.size()) == count) return values[static_cast<size_t>(i)];
    return values[static_cast<size_t>(batch * count + i)];
  }
};

// Checks that `n` parameter values fit a per-`what` parameter of `count`
// entries over `batches` matrices.
Status CheckCount(const std::string& label, const char* name, int64_t n, int64_t count, int64_t batches,
                  const char* what) {
  if (n == 1 || n == count || n == batches * count) return Status::Ok();
  return sdk::InvalidArgument(label + ": " + name + " has " + std::to_string(n) + " elements; expected 1 or one per " +
                              what + " (" + std::to_string(count) + ", or " + std::to_string(batches * count) +
                              " over the batch)");
}

template <typename V>
Status ReadPerIndex(const std::string& label, const char* name, const Tensor& t, int64_t count, int64_t batches,
                    const char* what, V dflt, PerIndex<V>* out) {
  out->count = count;
  if (!t.present()) {
    out->values = {dflt};
    return Status::Ok();
  }
  LOOM_SDK_RETURN_IF_ERROR(CheckCount(label, name, t.num_elements(), count, batches, what));
  if constexpr (std::is_same_v<V, float>) {
    if (t.dtype() != LOOM_DTYPE_FLOAT) return UnsupportedDtype(label + " " + name, t.dtype());
    out->values.assign(t.data<float>(), t.data<float>() + t.num_elements());
    return Status::Ok();
  } else {
    return Int32Values(t, label + " " + name, &out->values);
  }
}

// The int32 products of numpy.matmul(A - a_zp, B - b_zp), batch dims
// broadcast, into `acc` (Y's elements); Y's shape into `ys`.
struct IntMatMul {
  std::vector<int64_t> ys;
  int64_t M = 0, K = 0, N = 0, batches_a = 1, batches_b = 1;
  std::vector<int64_t> a_batch, b_batch;  // per output matrix: A's and B's matrix index

  Status Plan(const std::string& label, std::vector<int64_t> as, std::vector<int64_t> bs) {
    if (!semantics::MatMulShape(as, bs, &ys)) {
      return sdk::InvalidArgument(label + ": A " + ShapeStr(as) + " and B " + ShapeStr(bs) +
                                  " do not multiply (numpy.matmul: [..., M, K] x [..., K, N], batch dims broadcast)");
    }
    if (as.size() == 1) as.insert(as.begin(), 1);
    if (bs.size() == 1) bs.push_back(1);
    M = as[as.size() - 2];
    K = as.back();
    N = bs.back();
    const std::vector<int64_t> ab(as.begin(), as.end() - 2), bb(bs.begin(), bs.end() - 2);
    std::vector<int64_t> ob;
    semantics::BroadcastShape(ab, bb, &ob);
    batches_a = semantics::Product(ab);
    batches_b = semantics::Product(bb);
    const std::vector<int64_t> sa = semantics::BroadcastStrides(ab, ob), sb = semantics::BroadcastStrides(bb, ob);
    const int64_t nb = semantics::Product(ob);
    a_batch.assign(static_cast<size_t>(nb), 0);
    b_batch.assign(static_cast<size_t>(nb), 0);
    for (int64_t i = 0; i < nb; ++i) {
      for (int64_t r = i, d = static_cast<int64_t>(ob.size()) - 1; d >= 0; --d) {
        const int64_t idx = r % ob[static_cast<size_t>(d)];
        r /= ob[static_cast<size_t>(d)];
        a_batch[static_cast<size_t>(i)] += idx * sa[static_cast<size_t>(d)];
        b_batch[static_cast<size_t>(i)] += idx * sb[static_cast<size_t>(d)];
      }
    }
    return Status::Ok();
  }

  // Row by row, each output row accumulated over B's rows (k outer, n
  // inner: a contiguous, vectorized loop; the column-wise dot products
  // this replaced read B with stride N).
  void Run(const std::vector<int32_t>& a, const std::vector<int32_t>& b, const PerIndex<int32_t>& a_zp,
           const PerIndex<int32_t>& b_zp, int threads, int32_t* acc) const {
    const int64_t nb = static_cast<int64_t>(a_batch.size());
    ParallelRange(nb * M, nb * M * K * N, threads, [&](int64_t lo, int64_t hi) {
      std::vector<int32_t> zb(static_cast<size_t>(N));
      for (int64_t row = lo; row < hi; ++row) {
        const int64_t o = row / M, m = row % M, ia = a_batch[static_cast<size_t>(o)],
                      ib = b_batch[static_cast<size_t>(o)];
        const int32_t* ar = a.data() + (ia * M + m) * K;
        const int32_t* bm = b.data() + ib * K * N;
        const int32_t za = a_zp.At(ia, m);
        for (int64_t n = 0; n < N; ++n) zb[static_cast<size_t>(n)] = b_zp.At(ib, n);
        int32_t* out = acc + row * N;
        std::fill(out, out + N, 0);
        for (int64_t k = 0; k < K; ++k) {
          const int32_t av = ar[k] - za;
          if (av != 0) MultiplyAddRow(bm + k * N, zb.data(), N, av, out);
        }
      }
    });
  }

  // out[n] += av * (b[n] - zb[n]).
  static LOOM_VECTOR_CLONES void MultiplyAddRow(const int32_t* b, const int32_t* zb, int64_t n, int32_t av,
                                                int32_t* out) {
    for (int64_t i = 0; i < n; ++i) out[i] += av * (b[i] - zb[i]);
  }
};

class MatMulIntegerKernel : public LabeledKernel {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor a = ctx.Input(0), b = ctx.Input(1), y;
    IntMatMul mm;
    LOOM_SDK_RETURN_IF_ERROR(mm.Plan(label_, a.shape(), b.shape()));
    std::vector<int32_t> av, bv;
    PerIndex<int32_t> za, zb;
    LOOM_SDK_RETURN_IF_ERROR(Int32Values(a, label_ + " A", &av));
    LOOM_SDK_RETURN_IF_ERROR(Int32Values(b, label_ + " B", &bv));
    LOOM_SDK_RETURN_IF_ERROR(ReadPerIndex(label_, "a_zero_point", ctx.Input(2), mm.M, mm.batches_a, "row", 0, &za));
    LOOM_SDK_RETURN_IF_ERROR(ReadPerIndex(label_, "b_zero_point", ctx.Input(3), mm.N, mm.batches_b, "column", 0, &zb));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_INT32, mm.ys, &y));
    mm.Run(av, bv, za, zb, ctx.num_threads(), y.data<int32_t>());
    return Status::Ok();
  }
};

// One row with one multiplier. Its own function with its operands as
// values: a store through Q* (a char type) may alias anything, so a loop
// reading captured references reloads them after every element.
// With |m| below 2^20, |acc * m| stays below 2^51, where the rounding
// trick is exact without Requantize's clamp, and the saturation is done on
// integers (conditional moves: a convolution's outputs saturate often and
// unpredictably, and branches on them cost more than the arithmetic). The
// same values as Requantize.
template <typename Q>
LOOM_VECTOR_CLONES void RequantizeRow(const int32_t* in, int64_t n, double m, int32_t zp, Q* out) {
  if (!(std::fabs(m) < 1048576.0)) {
    for (int64_t c = 0; c < n; ++c) out[c] = semantics::Requantize<Q>(in[c], m, zp);
    return;
  }
  constexpr int64_t lo = std::numeric_limits<Q>::min(), hi = std::numeric_limits<Q>::max();
  for (int64_t c = 0; c < n; ++c) {
    int64_t q = static_cast<int64_t>(semantics::RoundHalfEven(static_cast<double>(in[c]) * m)) + zp;
    q = q < lo ? lo : q;
    q = q > hi ? hi : q;
    out[c] = static_cast<Q>(q);
  }
}

// y = Requantize(acc, scale_a(row) * scale_b(col) / y_scale, y_zp) into `y`.
template <typename Q>
void RequantizeMatrix(const std::vector<int32_t>& acc, int64_t rows, int64_t cols, const std::vector<float>& row_scale,
                      const std::vector<float>& col_scale, float y_scale, int32_t y_zp, int threads, Q* y) {
  ParallelFor(rows, threads, [&](int64_t r) {
    const float sa = row_scale.size() == 1 ? row_scale[0] : row_scale[static_cast<size_t>(r)];
    const int32_t* in = acc.data() + r * cols;
    Q* out = y + r * cols;
    if (col_scale.size() == 1) {  // one multiplier per row (QLinearConv's planes)
      RequantizeRow(in, cols, semantics::RequantizeMultiplier(sa, col_scale[0], y_scale), y_zp, out);
      return;
    }
    for (int64_t c = 0; c < cols; ++c) {
      out[c] = semantics::Requantize<Q>(
          in[c], semantics::RequantizeMultiplier(sa, col_scale[static_cast<size_t>(c)], y_scale), y_zp);
    }
  }, cols);
}

// Writes the requantized `acc` into y (int8 or uint8, y_zero_point's dtype).
Status RequantizeOut(const std::string& label, const std::vector<int32_t>& acc, int64_t rows, int64_t cols,
                     const std::vector<float>& row_scale, const std::vector<float>& col_scale, const Tensor& y_scale,
                     const Tensor& y_zp, int threads, Tensor* y) {
  double ys = 0, yz = 0;
  LOOM_SDK_RETURN_IF_ERROR(ScalarOf(label, "y_scale", y_scale, &ys));
  LOOM_SDK_RETURN_IF_ERROR(ScalarOf(label, "y_zero_point", y_zp, &yz));
  if (y_zp.dtype() == LOOM_DTYPE_INT8) {
    RequantizeMatrix(acc, rows, cols, row_scale, col_scale, static_cast<float>(ys), static_cast<int32_t>(yz), threads,
                     y->data<int8_t>());
  } else {
    RequantizeMatrix(acc, rows, cols, row_scale, col_scale, static_cast<float>(ys), static_cast<int32_t>(yz), threads,
                     y->data<uint8_t>());
  }
  return Status::Ok();
}

class QLinearMatMulKernel : public LabeledKernel {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor a = ctx.Input(0), b = ctx.Input(3), y_zp = ctx.Input(7), y;
    IntMatMul mm;
    LOOM_SDK_RETURN_IF_ERROR(mm.Plan(label_, a.shape(), b.shape()));
    std::vector<int32_t> av, bv;
    PerIndex<int32_t> za, zb;
    PerIndex<float> sa, sb;
    LOOM_SDK_RETURN_IF_ERROR(Int32Values(a, label_ + " a", &av));
    LOOM_SDK_RETURN_IF_ERROR(Int32Values(b, label_ + " b", &bv));
    // QLinearMatMul-10's per-row / per-column parameters are per matrix row
    // or column (the same for every batch).
    LOOM_SDK_RETURN_IF_ERROR(ReadPerIndex(label_, "a_scale", ctx.Input(1), mm.M, 1, "row of a", 1.0f, &sa));
    LOOM_SDK_RETURN_IF_ERROR(ReadPerIndex(label_, "a_zero_point", ctx.Input(2), mm.M, 1, "row of a", 0, &za));
    LOOM_SDK_RETURN_IF_ERROR(ReadPerIndex(label_, "b_scale", ctx.Input(4), mm.N, 1, "column of b", 1.0f, &sb));
    LOOM_SDK_RETURN_IF_ERROR(ReadPerIndex(label_, "b_zero_point", ctx.Input(5), mm.N, 1, "column of b", 0, &zb));
    std::vector<int32_t> acc(static_cast<size_t>(semantics::Product(mm.ys)));
    mm.Run(av, bv, za, zb, ctx.num_threads(), acc.data());
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, y_zp.dtype(), mm.ys, &y));
    // Rows of Y cycle through A's M rows; a per-row scale is indexed by row mod M.
    const int64_t rows = static_cast<int64_t>(acc.size()) / mm.N;
    std::vector<float> row_scale = sa.values;
    if (row_scale.size() > 1) {
      row_scale.resize(static_cast<size_t>(rows));
      for (int64_t r = 0; r < rows; ++r) row_scale[static_cast<size_t>(r)] = sa.values[static_cast<size_t>(r % mm.M)];
    }
    return RequantizeOut(label_, acc, rows, mm.N, row_scale, sb.values, ctx.Input(6), y_zp, ctx.num_threads(), &y);
  }
};

// ConvInteger / QLinearConv: Conv-11's geometry over (x - x_zp) and
// (w - w_zp[m]) with int32 accumulation (and QLinearConv's bias).
class IntConvKernel {
 public:
  // Inputs of x, w, their zero points; QLinearConv also reads the scales.
  IntConvKernel(size_t x, size_t x_zp, size_t w, size_t w_zp) : x_(x), x_zp_(x_zp), w_(w), w_zp_(w_zp) {}

  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    group_ = info.IntOr("group", 1);
    if (group_ < 1) return sdk::InvalidArgument(label_ + ": group must be >= 1; found " + std::to_string(group_));
    return attrs_.Read(info, label_);
  }

 protected:
  // Checks X's and W's shapes against the attributes: the window into
  // *win and Y's shape into *ys.
  Status Shape(const std::vector<int64_t>& xs, const std::vector<int64_t>& ws, semantics::Window* win,
               std::vector<int64_t>* ys) const {
    std::vector<int64_t> k;
    LOOM_SDK_RETURN_IF_ERROR(semantics::CheckConvOperands(label_, group_, xs, ws, Tensor(), attrs_.kernel, &k));
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Resolve(label_, {xs.begin() + 2, xs.end()}, k, win));
    *ys = {xs[0], ws[0]};
    ys->insert(ys->end(), win->out.begin(), win->out.end());
    return Status::Ok();
  }

  // B: absent, or int32 [M].
  Status CheckBias(const Tensor& bias, int64_t M) const {
    if (bias.present() && (bias.dtype() != LOOM_DTYPE_INT32 || bias.num_elements() != M)) {
      return sdk::InvalidArgument(label_ + ": B must be int32 [" + std::to_string(M) + "]; found " +
                                  sdk::DTypeName(bias.dtype()) + ShapeStr(bias.shape()));
    }
    return Status::Ok();
  }

  // oneDNN takes W when it is int8 with every zero point 0.
  static bool SymmetricWeights(LoomDataType w_dt, const Tensor& w_zp) {
    if (w_dt != LOOM_DTYPE_INT8) return false;
    if (!w_zp.present()) return true;
    if (w_zp.dtype() != LOOM_DTYPE_INT8) return false;
    const int8_t* z = w_zp.data<int8_t>();
    return std::all_of(z, z + w_zp.num_elements(), [](int8_t v) { return v == 0; });
  }

  // The int32 convolution (bias added) into `acc` (Y's elements, `ys`).
  Status Accumulate(KernelContext& ctx, const Tensor& bias, const std::vector<int64_t>& ys,
                    const semantics::Window& win, int32_t* acc) {
    Tensor x = ctx.Input(x_), w = ctx.Input(w_);
    const ConvGeometry g(x.shape(), w.shape(), group_, win);
    PerIndex<int32_t> xz, wz;
    LOOM_SDK_RETURN_IF_ERROR(ReadPerIndex(label_, "x_zero_point", ctx.Input(x_zp_), 1, 1, "tensor", 0, &xz));
    LOOM_SDK_RETURN_IF_ERROR(ReadPerIndex(label_, "w_zero_point", ctx.Input(w_zp_), g.M, 1, "output channel", 0, &wz));
    const int32_t zx = xz.At(0, 0);
    if (semantics::Product(ys) == 0) return Status::Ok();
    // oneDNN's int8 convolution where it applies (s8 W, W zero points 0):
    // the same integer sums.
    if (SymmetricWeights(w.dtype(), ctx.Input(w_zp_)) && x.num_elements() > 0 &&
        accumulate_.Configure(label_, x.dtype(), zx != 0, x.shape(), w.shape(), group_, win, bias.present(),
                              DnnlInt8Conv::Output(), /*channels_last=*/false, ctx.num_threads())) {
      return accumulate_.Run(ctx, label_, x.raw_data(), w.raw_data(), zx,
                             bias.present() ? bias.data<int32_t>() : nullptr, 0, acc);
    }
    const int64_t ins = ConvGeometry::Product(g.in), outs = ConvGeometry::Product(g.out), taps = ConvGeometry::Product(g.k);
    const int64_t cg = g.C / g.G, mg = g.M / g.G;
    std::vector<int32_t> xv, wv;
    LOOM_SDK_RETURN_IF_ERROR(Int32Values(x, label_ + " x", &xv));
    LOOM_SDK_RETURN_IF_ERROR(Int32Values(w, label_ + " w", &wv));
    ParallelFor(g.N * g.M, ctx.num_threads(), [&](int64_t nm) {
      const int64_t n = nm / g.M, m = nm % g.M, grp = m / mg;
      const int32_t zw = wz.At(0, m);
      int32_t* out = acc + nm * outs;
      std::fill_n(out, outs, bias.present() ? bias.data<int32_t>()[m] : 0);
      for (int64_t c = 0; c < cg; ++c) {
        const int32_t* xp = xv.data() + (n * g.C + grp * cg + c) * ins;
        const int32_t* wp = wv.data() + (m * cg + c) * taps;
        g.ForEachTap([&](int64_t io, int64_t ti, int64_t oi) { out[oi] += (xp[io] - zx) * (wp[ti] - zw); });
      }
    }, cg * outs * taps);
    return Status::Ok();
  }

  std::string label_;
  int64_t group_ = 1;
  semantics::WindowAttrs attrs_;
  size_t x_, x_zp_, w_, w_zp_;
  DnnlInt8Conv accumulate_;
};

class ConvIntegerKernel : public IntConvKernel {
 public:
  ConvIntegerKernel() : IntConvKernel(0, 2, 1, 3) {}
  Status Compute(KernelContext& ctx) {
    semantics::Window win;
    std::vector<int64_t> ys;
    LOOM_SDK_RETURN_IF_ERROR(Shape(ctx.Input(0).shape(), ctx.Input(1).shape(), &win, &ys));
    Tensor y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_INT32, ys, &y));
    return Accumulate(ctx, Tensor(), ys, win, y.data<int32_t>());
  }
};

// QLinearConv: requantized inside oneDNN's int8 convolution where it
// applies (DnnlInt8Conv's requantize form, a constant W packed once in
// Prepare), else accumulated as ConvInteger and requantized here.
// NhwcQLinearConv (Loom's domain): the same on channels-last X [N, H, W, C]
// and Y [N, H', W', M], oneDNN only (transforms/int8_channels_last.h
// converts only QLinearConvs whose W oneDNN takes).
class QLinearConvKernel : public IntConvKernel {
 public:
  QLinearConvKernel() : IntConvKernel(0, 2, 3, 5) {}

  Status Init(const KernelInfo& info) {
    channels_last_ = info.op_type() == "NhwcQLinearConv";
    return IntConvKernel::Init(info);
  }

  Status Prepare(const sdk::PrepareContext& ctx) {
    std::vector<int64_t> xs, ys;
    const Tensor w = ctx.InputConstant(3);
    if (!ctx.InputShape(0, &xs) || !Plain(xs, &xs).ok()) return Status::Ok();  // configured (or refused) at the first run
    // x_scale, x_zero_point, w_scale, w_zero_point, y_scale, y_zero_point.
    const Tensor p[] = {ctx.InputConstant(1), ctx.InputConstant(2), ctx.InputConstant(4),
                        ctx.InputConstant(5), ctx.InputConstant(6), ctx.InputConstant(7)};
    if (!w.present()) return Status::Ok();
    for (const Tensor& t : p) {
      if (!t.present()) return Status::Ok();
    }
    semantics::Window win;
    if (!Shape(xs, w.shape(), &win, &ys).ok()) return Status::Ok();  // Compute reports it
    DnnlInt8Conv::Output out;
    double xz = 0, yz = 0;
    const bool has_b = ctx.num_inputs() > 8 && !ctx.info().input_name(8).empty();
    if (!Requantized(p[0], p[2], p[4], p[5], ws_count(w), &out, &yz).ok() ||
        !ScalarOf(label_, "x_zero_point", p[1], &xz).ok() ||
        !SymmetricWeights(w.dtype(), p[3]) ||
        !requantize_.Configure(label_, ctx.InputDType(0), xz != 0, xs, w.shape(), group_, win, has_b, out,
                               channels_last_, ctx.num_threads())) {
      return Status::Ok();
    }
    return requantize_.PackConstantW(ctx, 3, label_);
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), w = ctx.Input(3), bias = ctx.Input(8), y_zp = ctx.Input(7), y;
    semantics::Window win;
    std::vector<int64_t> xs, ys;
    LOOM_SDK_RETURN_IF_ERROR(Plain(x.shape(), &xs));
    LOOM_SDK_RETURN_IF_ERROR(Shape(xs, w.shape(), &win, &ys));
    const int64_t M = ys[1];
    LOOM_SDK_RETURN_IF_ERROR(CheckBias(bias, M));
    LOOM_SDK_RETURN_IF_ERROR(
        ctx.Output(0, y_zp.dtype(), channels_last_ ? std::vector<int64_t>{ys[0], ys[2], ys[3], ys[1]} : ys, &y));
    if (y.num_elements() == 0) return Status::Ok();
    DnnlInt8Conv::Output out;
    double xz = 0, yz = 0;
    LOOM_SDK_RETURN_IF_ERROR(ScalarOf(label_, "x_zero_point", ctx.Input(2), &xz));
    // A parameter Requantized refuses is reported by the loops' path below.
    if (x.num_elements() > 0 && SymmetricWeights(w.dtype(), ctx.Input(5)) &&
        Requantized(ctx.Input(1), ctx.Input(4), ctx.Input(6), y_zp, M, &out, &yz).ok() &&
        requantize_.Configure(label_, x.dtype(), xz != 0, xs, w.shape(), group_, win, bias.present(), out,
                              channels_last_, ctx.num_threads())) {
      LOOM_SDK_RETURN_IF_ERROR(requantize_.Run(ctx, label_, x.raw_data(), w.raw_data(), static_cast<int32_t>(xz),
                                               bias.present() ? bias.data<int32_t>() : nullptr,
                                               static_cast<int32_t>(yz), y.raw_data()));
      return ApplyOutputTable(ctx, &y);
    }
    if (channels_last_) {
      // A bad parameter is named first; else oneDNN refused the shapes.
      LOOM_SDK_RETURN_IF_ERROR(Requantized(ctx.Input(1), ctx.Input(4), ctx.Input(6), y_zp, M, &out, &yz));
      return sdk::FailedPrecondition(label_ + ": channels-last QLinearConv runs on oneDNN's int8 convolution only, "
                                              "which refused X " + ShapeStr(x.shape()) + " with W " +
                                     ShapeStr(w.shape()) + " (it takes int8 W with zero points 0)");
    }
    double x_scale = 0;
    LOOM_SDK_RETURN_IF_ERROR(ScalarOf(label_, "x_scale", ctx.Input(1), &x_scale));
    PerIndex<float> ws;
    LOOM_SDK_RETURN_IF_ERROR(ReadPerIndex(label_, "w_scale", ctx.Input(4), M, 1, "output channel", 1.0f, &ws));
    std::vector<int32_t> acc(static_cast<size_t>(y.num_elements()));
    LOOM_SDK_RETURN_IF_ERROR(Accumulate(ctx, bias, ys, win, acc.data()));
    // Y as rows of one output plane each: row r is channel r mod M, whose
    // multiplier is w_scale[r mod M] * x_scale / y_scale.
    const int64_t plane = semantics::Product(ys, 2, ys.size()), rows = ys[0] * M;
    std::vector<float> channel_scale(static_cast<size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) channel_scale[static_cast<size_t>(r)] = ws.At(0, r % M);
    return RequantizeOut(label_, acc, rows, plane, channel_scale, {static_cast<float>(x_scale)}, ctx.Input(6), y_zp,
                         ctx.num_threads(), &y);
  }

 private:
  static int64_t ws_count(const Tensor& w) { return w.shape().empty() ? 0 : w.shape()[0]; }

  // NhwcQLinearConv's output_table (input 9), applied to Y in place.
  Status ApplyOutputTable(KernelContext& ctx, Tensor* y) const {
    if (ctx.num_inputs() <= 9) return Status::Ok();
    const Tensor table = ctx.Input(9);
    if (!table.present()) return Status::Ok();
    if (table.num_elements() != 256) {
      return sdk::InvalidArgument(label_ + ": output_table must have 256 elements; found " + ShapeStr(table.shape()));
    }
    auto* p = static_cast<uint8_t*>(y->raw_data());
    const auto* t = static_cast<const uint8_t*>(table.raw_data());
    const uint8_t flip = y->dtype() == LOOM_DTYPE_INT8 ? 0x80 : 0;
    const int64_t n = y->num_elements();
    ParallelRange((n + 63) / 64, n, ctx.num_threads(), [&](int64_t lo, int64_t hi) {
      const int64_t begin = lo * 64, end = hi * 64 < n ? hi * 64 : n;
      LookupBytes(p + begin, end - begin, t, flip, p + begin);
    });
    return Status::Ok();
  }

  // X's dims as [N, C, D...] (a channels-last X is [N, H, W, C]).
  Status Plain(const std::vector<int64_t>& x, std::vector<int64_t>* plain) const {
    if (!channels_last_) {
      *plain = x;
      return Status::Ok();
    }
    if (x.size() != 4) {
      return sdk::InvalidArgument(label_ + ": x must be [N, H, W, C]; found " + ShapeStr(x));
    }
    *plain = {x[0], x[3], x[1], x[2]};
    return Status::Ok();
  }

  // The requantize form's output: y_zero_point's dtype and x_scale *
  // w_scale[m] / y_scale per channel (one for a scalar w_scale); y's zero
  // point into *y_zero_point.
  Status Requantized(const Tensor& x_scale, const Tensor& w_scale, const Tensor& y_scale, const Tensor& y_zp,
                     int64_t M, DnnlInt8Conv::Output* out, double* y_zero_point) const {
    double xs = 0, ys = 0;
    LOOM_SDK_RETURN_IF_ERROR(ScalarOf(label_, "x_scale", x_scale, &xs));
    LOOM_SDK_RETURN_IF_ERROR(ScalarOf(label_, "y_scale", y_scale, &ys));
    PerIndex<float> ws;
    LOOM_SDK_RETURN_IF_ERROR(ReadPerIndex(label_, "w_scale", w_scale, M, 1, "output channel", 1.0f, &ws));
    if (!y_zp.present() || (y_zp.dtype() != LOOM_DTYPE_INT8 && y_zp.dtype() != LOOM_DTYPE_UINT8)) {
      return sdk::InvalidArgument(label_ + ": y_zero_point must be int8 or uint8");
    }
    LOOM_SDK_RETURN_IF_ERROR(ScalarOf(label_, "y_zero_point", y_zp, y_zero_point));
    out->dtype = y_zp.dtype();
    out->zero_point = *y_zero_point != 0;
    out->scales = Int8OutputScales(xs, ws.values, ys);
    return Status::Ok();
  }

  bool channels_last_ = false;
  DnnlInt8Conv requantize_;
};

}  // namespace

Status RegisterQuantizedMatMulConvKernels(sdk::Registrar& reg) {
  const std::vector<LoomDataType> q = {LOOM_DTYPE_INT8, LOOM_DTYPE_UINT8};
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<MatMulIntegerKernel>("MatMulInteger", {"CPU", "", 0, {{"T1", q}, {"T2", q}}}));
  LOOM_SDK_RETURN_IF_ERROR(
      reg.Kernel<QLinearMatMulKernel>("QLinearMatMul", {"CPU", "", 0, {{"T1", q}, {"T2", q}, {"T3", q}}}));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ConvIntegerKernel>("ConvInteger", {"CPU", "", 0, {{"T1", q}, {"T2", q}}}));
  LOOM_SDK_RETURN_IF_ERROR(
      reg.Kernel<QLinearConvKernel>("QLinearConv", {"CPU", "", 0, {{"T1", q}, {"T2", q}, {"T3", q}}}));
  return reg.Kernel<QLinearConvKernel>("NhwcQLinearConv", {"CPU", "", 0, {{"T1", q}, {"T2", q}, {"T3", q}}});
}

}  // namespace cpu
}  // namespace loom
