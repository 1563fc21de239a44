// ParallelRange: split [0, n) into one contiguous chunk per OpenMP thread,
// or run it on the calling thread when the work is small.
#ifndef LOOM_PLUGINS_CPU_PARALLEL_FOR_H_
#define LOOM_PLUGINS_CPU_PARALLEL_FOR_H_

#include <omp.h>

#include <cstdint>
#include <string>

#include "plugins/cpu/cpu_common.h"

namespace loom {
namespace cpu {

// Calls body(begin, end) over disjoint ranges covering [0, n). `work` is the
// number of elements the whole range touches: at or below kParallelThreshold
// (or with one thread) body(0, n) runs directly, without entering an OpenMP
// region at all, so tiny tensors pay no fork/join cost. Chunks are
// contiguous so that body's inner loop stays a plain, vectorizable loop.
template <typename F>
inline void ParallelRange(int64_t n, int64_t work, int threads, const F& body) {
  if (n <= 0) return;
  if (work <= kParallelThreshold || threads <= 1 || n == 1) {
    body(int64_t{0}, n);
    return;
  }
  if (threads > n) threads = static_cast<int>(n);
#pragma omp parallel num_threads(threads)
  {
    const int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int64_t begin = n * t / nt, end = n * (t + 1) / nt;
    if (begin < end) body(begin, end);
  }
}

// Calls f(i) for each i in [0, n), through ParallelRange; `cost` is the work
// per index (elements touched), which decides whether to go parallel.
template <typename F>
inline void ParallelFor(int64_t n, int threads, F&& f, int64_t cost = 1) {
  ParallelRange(n, n * cost, threads, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) f(i);
  });
}

// Calls f(i) for each i in [0, n): split statically over `threads` OpenMP
// threads when `parallel`, else on the calling thread without entering an
// OpenMP region. Why not `#pragma omp parallel for if (...)`: libgomp runs
// a region whose `if` is false on one thread but still wakes its team's
// futex when the region ends, one system call per region (about 20 per run
// of Silero VAD v4 at one thread, seen with strace).
template <typename F>
inline void ParallelForIf(bool parallel, int64_t n, int threads, const F& f) {
  if (!parallel || threads <= 1 || n <= 1) {
    for (int64_t i = 0; i < n; ++i) f(i);
    return;
  }
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t i = 0; i < n; ++i) f(i);
}

// Output 0 = fn(input 0) element by element: same dtype and shape, any
// numeric dtype (else UnsupportedDtype naming `label`), computed in
// Num<S>::C. make_fn(S{}) returns fn (C -> C) for storage type S.
template <typename MakeFn>
Status MapUnary(KernelContext& ctx, const std::string& label, const MakeFn& make_fn) {
  Tensor x = ctx.Input(0), y;
  const LoomDataType dt = x.dtype();
  LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, dt, x.dims_data(), x.rank(), &y));
  const int64_t n = x.num_elements();
  return DispatchNumeric(dt, label, [&](auto tag) -> Status {
    using S = decltype(tag);
    const S* in = x.data<S>();
    S* out = y.data<S>();
    const auto fn = make_fn(tag);
    ParallelRange(n, n, ctx.num_threads(), [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) out[i] = Num<S>::Store(fn(Num<S>::Load(in[i])));
    });
    return Status::Ok();
  });
}

}  // namespace cpu
}  // namespace loom

#endif  // LOOM_PLUGINS_CPU_PARALLEL_FOR_H_
