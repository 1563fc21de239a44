// oneDNN glue shared by the CPU plugin's oneDNN kernels (math_gemm_matmul.cc,
// nn_conv.cc, nn_conv_transpose.cc, nn_pool.cc, nn_batch_norm.cc, rnn.cc).
//
// One engine serves the whole plugin; each calling thread has one stream (a
// oneDNN CPU stream is cheap but not meant to be shared by threads that run
// primitives at the same time, as the threaded timestep executor does).
// Kernels build their primitive and memory objects in Prepare when the
// plan knows the input shapes (else at the first Compute, and again when the
// shapes change), reorder constant weights once there, bind the tensors'
// buffers with set_data_handle (no copies), and so a steady-state Compute
// only executes.
#ifndef LOOM_PLUGINS_CPU_DNNL_COMMON_H_
#define LOOM_PLUGINS_CPU_DNNL_COMMON_H_

#include <omp.h>

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "oneapi/dnnl/dnnl.hpp"
#include "plugins/cpu/cpu_common.h"

namespace loom {
namespace cpu {

// The plugin's CPU engine (one per process, never destroyed: kernels may
// outlive any static destruction order).
inline dnnl::engine& DnnlEngine() {
  static dnnl::engine* e = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *e;
}

// The calling thread's stream on DnnlEngine().
inline dnnl::stream& DnnlStream() {
  thread_local dnnl::stream stream(DnnlEngine());
  return stream;
}

// oneDNN here runs on OpenMP: a primitive splits its work (and sizes its
// per-thread scratch) for omp_get_max_threads() at creation, and must not
// run with more threads than that. Kernels call this with the context's
// thread count (Conv: 1 for a small convolution) before creating a
// primitive and with the same count before executing it, and key their
// primitive cache on the context's count.
// OpenMP may give fewer threads than asked (OMP_THREAD_LIMIT, a limit of
// the process): a primitive made for more threads than its regions get
// leaves part of its work undone, so the count is clamped to the limit.
inline void SetDnnlThreads(int threads) {
  omp_set_num_threads(std::max(1, std::min(threads, omp_get_thread_limit())));
}

// The threads a memory-bound primitive (eltwise, softmax, normalization
// backward) touching `work` elements runs with: the context's, or 1 at or
// below kParallelThreshold, as ParallelRange decides for the loops. A tiny
// tensor then pays no OpenMP team start, and a process that has only run
// small ops keeps no OpenMP team it could fork without (libgomp's pool is
// not fork-safe: tests/data_parallel_test forks after training).
inline int DnnlThreadsFor(int64_t work, int threads) { return work <= kParallelThreshold ? 1 : threads; }

// A oneDNN exception as a status: UNIMPLEMENTED when oneDNN has no
// implementation for the configuration, INTERNAL otherwise.
inline Status DnnlError(const std::string& label, const dnnl::error& e) {
  const std::string m = label + ": oneDNN: " + e.what();
  return e.status == dnnl_unimplemented ? sdk::Unimplemented(m) : sdk::Internal(m);
}

// Runs `make` (which creates primitives) with `threads` OpenMP threads;
// oneDNN exceptions become statuses.
template <typename F>
inline Status DnnlCreate(const std::string& label, int threads, F&& make) {
  try {
    SetDnnlThreads(threads);
    make();
  } catch (const dnnl::error& e) {
    return DnnlError(label, e);
  }
  return Status::Ok();
}

// Runs `prim` on the calling thread's stream with `threads` OpenMP threads
// and waits for it; oneDNN errors become statuses.
inline Status DnnlExecute(const std::string& label, const dnnl::primitive& prim,
                          const std::unordered_map<int, dnnl::memory>& args, int threads) {
  try {
    SetDnnlThreads(threads);
    dnnl::stream& stream = DnnlStream();
    prim.execute(stream, args);
    stream.wait();
  } catch (const dnnl::error& e) {
    return DnnlError(label, e);
  }
  return Status::Ok();
}

inline dnnl::memory::dims Dims(const std::vector<int64_t>& v) { return dnnl::memory::dims(v.begin(), v.end()); }

// Row-major strides of `dims`.
inline dnnl::memory::dims PlainStrides(const std::vector<int64_t>& dims) {
  dnnl::memory::dims s(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * dims[i + 1];
  return s;
}

// A dense row-major memory descriptor (the layout of every Loom tensor), so
// a tensor's buffer binds to it directly.
inline dnnl::memory::desc PlainDesc(const std::vector<int64_t>& dims,
                                    dnnl::memory::data_type dt = dnnl::memory::data_type::f32) {
  return dnnl::memory::desc(Dims(dims), dt, PlainStrides(dims));
}

// float32 NCHW `dims` in oneDNN's channel-blocked layout nChw8c or nChw16c
// (`block` 8 or 16), or channels-last nhwc (any other block: one block of
// all C channels): Loom's blocked tensor [N, C / block, H, W, block]
// (ops/nn_nchwc.cc). A channels-last tensor of 8 or 16 channels is the same
// bytes as nChw8c / nChw16c, so either reading is right.
inline dnnl::memory::desc BlockedDesc(const std::vector<int64_t>& dims, int64_t block) {
  using tag = dnnl::memory::format_tag;
  return dnnl::memory::desc(Dims(dims), dnnl::memory::data_type::f32,
                            block == 16 ? tag::nChw16c : block == 8 ? tag::nChw8c : tag::nhwc);
}

// float32 [N, C, spatial...] `dims` stored channels-last (oneDNN's nwc,
// nhwc, ndhwc for ranks 3, 4, 5): for rank 4, Loom's blocked tensor
// [N, 1, H, W, C].
inline dnnl::memory::desc ChannelsLastDesc(const std::vector<int64_t>& dims) {
  using tag = dnnl::memory::format_tag;
  const tag t = dims.size() == 3 ? tag::nwc : dims.size() == 5 ? tag::ndhwc : tag::nhwc;
  return dnnl::memory::desc(Dims(dims), dnnl::memory::data_type::f32, t);
}

// Whether a 5-D [N, C / b, H, W, b] shape is a blocked tensor Loom's
// kernels read: b is 8 or 16, or the whole channel dim (channels-last).
inline bool IsBlockedShape(const std::vector<int64_t>& s) {
  return s.size() == 5 && (s[4] == 8 || s[4] == 16 || (s[1] == 1 && s[4] > 0));
}

// True when `t` has shape `dims` (no allocation: compute's check that the
// shapes its primitive was prepared for still hold).
inline bool ShapeIs(const sdk::Tensor& t, const std::vector<int64_t>& dims) {
  const size_t r = t.rank();
  if (r != dims.size()) return false;
  const int64_t* d = t.dims_data();
  for (size_t i = 0; i < r; ++i) if (d[i] != dims[i]) return false;
  return true;
}

// A memory object with no buffer yet (bound per run with set_data_handle).
inline dnnl::memory UnboundMemory(const dnnl::memory::desc& md) { return dnnl::memory(md, DnnlEngine(), nullptr); }

// Points `m` (made unbound) at per-call scratch of its size from the net's
// pool (Ctx_Scratch): memory a kernel needs only while it runs, such as the
// blocked copies of X and Y around a primitive, is not kept per kernel for
// the net's life.
inline Status BindScratch(sdk::KernelContext& ctx, dnnl::memory* m) {
  void* p = nullptr;
  LOOM_SDK_RETURN_IF_ERROR(ctx.Scratch(m->get_desc().get_size(), &p));
  m->set_data_handle(p);
  return Status::Ok();
}

// A tensor a primitive reads or writes: a memory object over the tensor's
// plain buffer and, when the primitive wants another layout, a copy in that
// layout in per-call scratch with the reorder between (the backward
// kernels' operands: nn_conv_gradient.cc, nn_pool_gradient.cc).
struct DnnlOperand {
  dnnl::memory plain, blocked;
  dnnl::reorder reorder;  // plain -> blocked (inputs) or blocked -> plain (outputs)
  bool reordered = false;

  // `plain_md` as the tensor holds it, `want` as the primitive uses it;
  // `input`: the reorder runs into the primitive's layout.
  void Make(const dnnl::memory::desc& plain_md, const dnnl::memory::desc& want, bool input) {
    plain = UnboundMemory(plain_md);
    reordered = plain_md != want;
    blocked = reordered ? UnboundMemory(want) : dnnl::memory();
    if (reordered) {
      reorder = input ? dnnl::reorder(dnnl::reorder::primitive_desc(DnnlEngine(), plain_md, DnnlEngine(), want))
                      : dnnl::reorder(dnnl::reorder::primitive_desc(DnnlEngine(), want, DnnlEngine(), plain_md));
    }
  }
  // Binds `data` (the tensor's buffer) and the scratch copy; *used is the
  // memory the primitive takes.
  Status Bind(sdk::KernelContext& ctx, void* data, dnnl::memory* used) {
    plain.set_data_handle(data);
    if (reordered) LOOM_SDK_RETURN_IF_ERROR(BindScratch(ctx, &blocked));
    *used = reordered ? blocked : plain;
    return Status::Ok();
  }
  Status ReorderIn(const std::string& label, int threads) {
    if (!reordered) return Status::Ok();
    return DnnlExecute(label, reorder, {{DNNL_ARG_FROM, plain}, {DNNL_ARG_TO, blocked}}, threads);
  }
  Status ReorderOut(const std::string& label, int threads) {
    if (!reordered) return Status::Ok();
    return DnnlExecute(label, reorder, {{DNNL_ARG_FROM, blocked}, {DNNL_ARG_TO, plain}}, threads);
  }
};

// `attr` with a user-managed scratchpad. oneDNN's default scratchpad mode
// lets Debian's build (concurrent execution on) keep a scratchpad inside
// every primitive for the primitive's life: 260 KiB per small matmul, once
// per kernel, so 400 step-net MatMuls held 105 MiB. Kernels create their
// primitives with this and give each run a scratchpad from per-call scratch
// (DnnlScratchpad).
inline dnnl::primitive_attr UserScratchpad(dnnl::primitive_attr attr = dnnl::primitive_attr()) {
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

// The scratchpad of a primitive made with UserScratchpad: Reset with its
// primitive descriptor's scratchpad_desc(), then Bind before each execute.
class DnnlScratchpad {
 public:
  void Reset(const dnnl::memory::desc& md) { mem_ = md.get_size() > 0 ? UnboundMemory(md) : dnnl::memory(); }
  // Adds DNNL_ARG_SCRATCHPAD, bound to per-call scratch, to `args` (nothing
  // when the primitive needs none).
  Status Bind(sdk::KernelContext& ctx, std::unordered_map<int, dnnl::memory>* args) {
    if (!mem_) return Status::Ok();
    LOOM_SDK_RETURN_IF_ERROR(BindScratch(ctx, &mem_));
    (*args)[DNNL_ARG_SCRATCHPAD] = mem_;
    return Status::Ok();
  }

 private:
  dnnl::memory mem_;
};

// A key naming a memory descriptor exactly (dims, dtype, layout): its bytes
// in hex. oneDNN zero-fills descriptors, so equal descriptors give equal
// keys.
inline std::string DescKey(const dnnl::memory::desc& md) {
  static const char kHex[] = "0123456789abcdef";
  const unsigned char* p = reinterpret_cast<const unsigned char*>(&md.data);
  std::string key;
  key.reserve(2 * sizeof(md.data));
  for (size_t i = 0; i < sizeof(md.data); ++i) {
    key += kHex[p[i] >> 4];
    key += kHex[p[i] & 15];
  }
  return key;
}

// Constant input `index` (read through `from`, its plain layout) reordered
// into `to`, the layout a primitive chose, in a copy shared with every
// kernel that packs the same constant the same way (PrepareContext::
// SharedPack: the step nets of all timesteps hold one copy). *packed is a
// memory object over that copy, *hold keeps it; both stay empty when the
// input is not constant, the layouts are the same, or the core predates
// ABI 8 (the kernel then reads the input as it is).
inline Status PackConstantShared(const sdk::PrepareContext& ctx, size_t index, const std::string& label,
                                 const dnnl::memory::desc& from, const dnnl::memory::desc& to, int threads,
                                 sdk::SharedPack* hold, dnnl::memory* packed) {
  *hold = sdk::SharedPack();
  *packed = dnnl::memory();
  const sdk::Tensor constant = ctx.InputConstant(index);
  if (!constant.present() || from == to) return Status::Ok();
  const std::string key = "dnnl.reorder " + DescKey(from) + " -> " + DescKey(to);
  LOOM_SDK_RETURN_IF_ERROR(ctx.SharedPack(index, key, to.get_size(), [&](void* data) -> Status {
    return DnnlCreate(label, threads, [&] {
      dnnl::memory src(from, DnnlEngine(), constant.raw_data()), dst(to, DnnlEngine(), data);
      dnnl::reorder(src, dst).execute(DnnlStream(), src, dst);
      DnnlStream().wait();
    });
  }, hold));
  if (!hold->empty()) *packed = dnnl::memory(to, DnnlEngine(), hold->data());
  return Status::Ok();
}

// A kernel that reads only its packed copy lets go of the constant
// (Prepare_ReleaseConstant), and a static_shape net frees it: from then on
// the input reads as empty. True for such an input (released, now empty,
// packed from a non-empty `packed_shape`), as opposed to one whose shape
// changed, which the kernel reconfigures and reads as it is.
inline bool FreedAfterPacking(bool released, const sdk::Tensor& t, const std::vector<int64_t>& packed_shape) {
  return released && t.num_elements() == 0 && semantics::Product(packed_shape) != 0;
}

// The error for a run that needs the freed constant `input` again: the
// data operand `x_name` (of shape `x`) or the threads are not what the
// kernel was prepared for (`prepared`, `prepared_threads`).
inline Status PackedInputFreedError(const std::string& label, const std::string& input, const std::string& x_name,
                                    const std::vector<int64_t>& prepared, int prepared_threads,
                                    const std::vector<int64_t>& x, int threads) {
  return sdk::FailedPrecondition(label + ": the kernel was prepared for " + x_name + " " + ShapeStr(prepared) +
                                 " with " + std::to_string(prepared_threads) + " threads and packed " + input +
                                 ", which the net freed (static_shape); found " + x_name + " " + ShapeStr(x) + " with " +
                                 std::to_string(threads) + " threads");
}

}  // namespace cpu
}  // namespace loom

#endif  // LOOM_PLUGINS_CPU_DNNL_COMMON_H_
