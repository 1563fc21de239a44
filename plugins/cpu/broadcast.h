// Numpy-style (multidirectional) broadcasting for the CPU plugin's binary and
// variadic elementwise kernels: one planner and one iterator that every such
// kernel uses (Add, Sub, Mul, Div, Pow, PRelu, Max, Min, Sum, Mean).
#ifndef LOOM_PLUGINS_CPU_BROADCAST_H_
#define LOOM_PLUGINS_CPU_BROADCAST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/parallel_for.h"

namespace loom {
namespace cpu {

// How two operands map onto their broadcast shape.
//
// `out` is the numpy broadcast of the two shapes. For iteration the output is
// viewed through `dims`: output dims of size 1 are dropped and adjacent dims
// are merged when each operand either spans both or is broadcast along both
// (so [N, C, H, W] + [1, C, 1, 1] iterates as [N, C, H*W] with B's strides
// [0, 1, 0]). `sa` and `sb` are the operands' element strides over `dims`,
// 0 where the operand is broadcast; the innermost stride is 0 or 1. Only
// kGeneral reads dims/sa/sb (they may be left empty for the other kinds).
struct BroadcastPlan {
  enum class Kind {
    kSame,     // both operands have the output's element count: a flat loop
    kScalarA,  // A has one element, B the output's count
    kScalarB,  // B has one element, A the output's count
    kGeneral,  // rows of the innermost merged dim, offsets per row
  };
  std::vector<int64_t> out;
  int64_t size = 0;  // elements in `out`
  Kind kind = Kind::kSame;
  std::vector<int64_t> dims, sa, sb;
  std::vector<bool> a_full, b_full;  // planning scratch: operand spans merged dim j
};

// A plan per thread whose vectors keep their capacity between calls, so that
// steady-state binary ops do not allocate while planning. Valid until the
// next ThreadLocalPlan() user on the same thread plans into it.
inline BroadcastPlan& ThreadLocalPlan() {
  thread_local BroadcastPlan plan;
  return plan;
}

// Plans the broadcast of shapes a[0..ra) and b[0..rb) (either rank may be 0).
// Returns false when they do not broadcast (a dim pair differs and neither
// is 1); `plan` is then unspecified. Zero-size dims broadcast like any other
// size (0 with 1 gives 0).
bool PlanBroadcast(const int64_t* a, size_t ra, const int64_t* b, size_t rb, BroadcastPlan* plan);

// PlanBroadcast of inputs a and b of a kernel, or InvalidArgument naming
// both: "<label>: <a_name> [2, 3] and <b_name> [4] do not broadcast (numpy
// rules)".
inline sdk::Status PlanBroadcastOf(const std::string& label, const char* a_name, const sdk::Tensor& a,
                                   const char* b_name, const sdk::Tensor& b, BroadcastPlan* plan) {
  if (PlanBroadcast(a.dims_data(), a.rank(), b.dims_data(), b.rank(), plan)) return sdk::Status::Ok();
  return sdk::InvalidArgument(label + ": " + a_name + " " + ShapeStr(a.shape()) + " and " + b_name + " " +
                              ShapeStr(b.shape()) + " do not broadcast (numpy rules)");
}

// Like PlanBroadcast, but onto the given output shape out[0..rout), which may
// be larger than the broadcast of a and b (variadic ops combine their first
// two inputs straight into the shape of all of them). False when a or b does
// not broadcast to `out`.
bool PlanBroadcastTo(const int64_t* a, size_t ra, const int64_t* b, size_t rb, const int64_t* out, size_t rout,
                     BroadcastPlan* plan);

// c[i] = f(a[...], b[...]) for every element i of plan.out, on up to
// `threads` OpenMP threads for large outputs. c may alias a or b when that
// operand has the output's shape (each element is read before it is
// written). f takes (TA, TB) and returns TC.
template <typename TA, typename TB, typename TC, typename F>
void ForEachBroadcast(const BroadcastPlan& p, const TA* a, const TB* b, TC* c, int threads, const F& f) {
  const int64_t n = p.size;
  if (n == 0) return;
  switch (p.kind) {
    case BroadcastPlan::Kind::kSame:
      ParallelRange(n, n, threads, [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) c[i] = f(a[i], b[i]);
      });
      return;
    case BroadcastPlan::Kind::kScalarA: {
      const TA av = a[0];
      ParallelRange(n, n, threads, [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) c[i] = f(av, b[i]);
      });
      return;
    }
    case BroadcastPlan::Kind::kScalarB: {
      const TB bv = b[0];
      ParallelRange(n, n, threads, [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) c[i] = f(a[i], bv);
      });
      return;
    }
    case BroadcastPlan::Kind::kGeneral:
      break;
  }
  const int64_t rank = static_cast<int64_t>(p.dims.size());
  const int64_t inner = p.dims[rank - 1];
  const int64_t rows = n / inner;
  const bool a_row = p.sa[rank - 1] != 0, b_row = p.sb[rank - 1] != 0;
  ParallelRange(rows, n, threads, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      int64_t rem = r, oa = 0, ob = 0;
      for (int64_t d = rank - 2; d >= 0; --d) {
        const int64_t idx = rem % p.dims[d];
        rem /= p.dims[d];
        oa += idx * p.sa[d];
        ob += idx * p.sb[d];
      }
      const TA* ar = a + oa;
      const TB* br = b + ob;
      TC* cr = c + r * inner;
      // Each case is a plain, vectorizable loop. Neither operand spans the
      // innermost dim only under PlanBroadcastTo with a larger output.
      if (a_row && b_row) {
        for (int64_t i = 0; i < inner; ++i) cr[i] = f(ar[i], br[i]);
      } else if (a_row) {
        const TB bv = br[0];
        for (int64_t i = 0; i < inner; ++i) cr[i] = f(ar[i], bv);
      } else if (b_row) {
        const TA av = ar[0];
        for (int64_t i = 0; i < inner; ++i) cr[i] = f(av, br[i]);
      } else {
        const TC v = f(ar[0], br[0]);
        for (int64_t i = 0; i < inner; ++i) cr[i] = v;
      }
    }
  });
}

}  // namespace cpu
}  // namespace loom

#endif  // LOOM_PLUGINS_CPU_BROADCAST_H_
