// Host side of the CUDA convolutions on cuDNN 9's (legacy) convolution API:
// Conv, FusedConv (Conv + activation) and ConvTranspose. ONNX semantics,
// window arithmetic and errors follow the CPU plugin
// (plugins/cpu/nn_conv.cc, nn_conv_transpose.cc, ops/semantics/window.h).
// Conv is cuDNN's forward convolution, ConvTranspose its backward-data
// convolution; both set up their descriptors and choose their algorithm
// through CudnnConvolution below.
//
// Precision: float32 convolutions use CUDNN_FMA_MATH (CUDNN_DEFAULT_MATH
// permits TF32 tensor cores on Ampere and later, which would miss the CPU
// results by ~1e-3); float16 convolutions accumulate in float
// (CUDNN_DATA_FLOAT compute type) with CUDNN_TENSOR_OP_MATH. The FFT and
// non-fused Winograd algorithms, whose error grows with the problem, are
// never used.
//
// Workspaces and temporaries come from cudaMallocAsync / cudaFreeAsync on
// the operator's stream (stream-ordered, so freed only after the work that
// uses them).
#include <cudnn.h>

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "ops/semantics/activation.h"
#include "ops/semantics/shape_math.h"
#include "ops/semantics/window.h"
#include "plugins/cuda/cuda_status.h"
#include "plugins/cuda/handles.h"
#include "plugins/cuda/kernel_util.h"
#include "plugins/cuda/kernels.h"
#include "plugins/cuda/math_elementwise.h"
#include "plugins/cuda/nn_conv.h"

namespace loom {
namespace cuda {
namespace {

using semantics::Product;

// Window geometry: the ONNX rules shared with the CPU plugin and the schemas.
using semantics::ConvTransposeAttrs;
using semantics::ConvTransposeGeometry;
using semantics::Window;
using semantics::WindowAttrs;

// ---------------------------------------------------------------------------
// cuDNN plumbing.

// Owns a cuDNN descriptor of type H, created on first use.
template <typename H, cudnnStatus_t (*kCreate)(H*), cudnnStatus_t (*kDestroy)(H)>
class CudnnDescriptor {
 public:
  CudnnDescriptor() = default;
  CudnnDescriptor(const CudnnDescriptor&) = delete;
  CudnnDescriptor& operator=(const CudnnDescriptor&) = delete;
  ~CudnnDescriptor() { if (d_) kDestroy(d_); }
  H get() const { return d_; }

 protected:
  // Creates the descriptor unless it exists (`create`: the function's name).
  Status Create(const std::string& label, const char* create) {
    if (!d_) LOOM_CUDNN_RETURN_IF_ERROR(kCreate(&d_), label + ": " + create);
    return Status::Ok();
  }
  H d_ = nullptr;
};

class TensorDesc
    : public CudnnDescriptor<cudnnTensorDescriptor_t, &cudnnCreateTensorDescriptor, &cudnnDestroyTensorDescriptor> {
 public:
  // A packed row-major tensor of `dims` (4 or 5 of them).
  Status Set(cudnnDataType_t type, const std::vector<int>& dims, const std::string& label) {
    LOOM_SDK_RETURN_IF_ERROR(Create(label, "cudnnCreateTensorDescriptor"));
    std::vector<int> strides(dims.size(), 1);
    for (size_t i = dims.size() - 1; i-- > 0;) strides[i] = strides[i + 1] * dims[i + 1];
    LOOM_CUDNN_RETURN_IF_ERROR(
        cudnnSetTensorNdDescriptor(d_, type, static_cast<int>(dims.size()), dims.data(), strides.data()),
        label + ": cudnnSetTensorNdDescriptor");
    return Status::Ok();
  }
};

class FilterDesc
    : public CudnnDescriptor<cudnnFilterDescriptor_t, &cudnnCreateFilterDescriptor, &cudnnDestroyFilterDescriptor> {
 public:
  Status Set(cudnnDataType_t type, const std::vector<int>& dims, const std::string& label) {
    LOOM_SDK_RETURN_IF_ERROR(Create(label, "cudnnCreateFilterDescriptor"));
    LOOM_CUDNN_RETURN_IF_ERROR(
        cudnnSetFilterNdDescriptor(d_, type, CUDNN_TENSOR_NCHW, static_cast<int>(dims.size()), dims.data()),
        label + ": cudnnSetFilterNdDescriptor");
    return Status::Ok();
  }
};

class ConvDesc : public CudnnDescriptor<cudnnConvolutionDescriptor_t, &cudnnCreateConvolutionDescriptor,
                                        &cudnnDestroyConvolutionDescriptor> {
 public:
  // Cross-correlation with symmetric `pads`, float accumulation, `groups`,
  // and the math type for `dtype` (see the file comment).
  Status Set(const std::vector<int>& pads, const std::vector<int>& strides, const std::vector<int>& dilations,
             int groups, LoomDataType dtype, const std::string& label) {
    LOOM_SDK_RETURN_IF_ERROR(Create(label, "cudnnCreateConvolutionDescriptor"));
    LOOM_CUDNN_RETURN_IF_ERROR(cudnnSetConvolutionNdDescriptor(d_, static_cast<int>(pads.size()), pads.data(),
                                                               strides.data(), dilations.data(), CUDNN_CROSS_CORRELATION,
                                                               CUDNN_DATA_FLOAT),
                               label + ": cudnnSetConvolutionNdDescriptor");
    LOOM_CUDNN_RETURN_IF_ERROR(cudnnSetConvolutionGroupCount(d_, groups), label + ": cudnnSetConvolutionGroupCount");
    LOOM_CUDNN_RETURN_IF_ERROR(
        cudnnSetConvolutionMathType(d_, dtype == LOOM_DTYPE_FLOAT ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH),
        label + ": cudnnSetConvolutionMathType");
    return Status::Ok();
  }
};

// Device memory from cudaMallocAsync on a stream, freed (stream-ordered)
// when this goes out of scope.
class AsyncBuffer {
 public:
  explicit AsyncBuffer(cudaStream_t s) : s_(s) {}
  AsyncBuffer(const AsyncBuffer&) = delete;
  AsyncBuffer& operator=(const AsyncBuffer&) = delete;
  ~AsyncBuffer() { if (p_) cudaFreeAsync(p_, s_); }
  cudaError_t Alloc(size_t bytes) {
    if (bytes == 0) return cudaSuccess;
    cudaError_t e = cudaMallocAsync(&p_, bytes, s_);
    if (e != cudaSuccess) {
      p_ = nullptr;
      cudaGetLastError();  // clear it: allocation failures are not sticky
    }
    return e;
  }
  void* get() const { return p_; }

 private:
  cudaStream_t s_;
  void* p_ = nullptr;
};

cudnnDataType_t CudnnType(LoomDataType t) { return t == LOOM_DTYPE_FLOAT16 ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT; }

// NC[D]HW dims for cuDNN: a 1-D problem [N, C, L] becomes [N, C, 1, L].
// False when a dim or the element count exceeds int (cuDNN's legacy API).
bool CudnnDims(const std::vector<int64_t>& dims, std::vector<int>* out) {
  std::vector<int64_t> d = dims;
  if (d.size() == 3) d.insert(d.begin() + 2, 1);
  if (Product(d) > INT_MAX) return false;
  out->clear();
  for (int64_t v : d) {
    if (v > INT_MAX) return false;
    out->push_back(static_cast<int>(v));
  }
  return true;
}

// Per-spatial-dim convolution parameters, promoted like CudnnDims (the added
// leading dim gets `fill`).
std::vector<int> CudnnParams(const std::vector<int64_t>& v, int fill) {
  std::vector<int> r;
  if (v.size() == 1) r.push_back(fill);
  for (int64_t x : v) r.push_back(static_cast<int>(x));
  return r;
}

bool FitsInt(const std::vector<int64_t>& v) {
  for (int64_t x : v) {
    if (x > INT_MAX || x < INT_MIN) return false;
  }
  return true;
}

// Y [N, M, ...] = B broadcast over the spatial dims (0 without B).
Status FillBias(const std::string& label, const Tensor& b, Tensor& y, cudaStream_t s) {
  const size_t bytes = static_cast<size_t>(y.num_elements()) * sdk::DTypeSize(y.dtype());
  LOOM_CUDA_RETURN_STATUS_IF_ERROR(cudaMemsetAsync(y.raw_data(), 0, bytes, s), "cudaMemsetAsync");
  if (!b.present()) return Status::Ok();
  const int64_t N = y.dim(0), M = y.dim(1);
  return CudaStatus(LaunchAddChannelBias(y.dtype(), N, M, y.num_elements() / (N * M), b.raw_data(), y.raw_data(), s),
                    label.c_str());
}

// Checks X, W (and B) share a dtype that the convolutions support.
Status CheckConvDtypes(const std::string& label, const Tensor& x, const Tensor& w, const Tensor& b) {
  const LoomDataType dt = x.dtype();
  if (dt != LOOM_DTYPE_FLOAT && dt != LOOM_DTYPE_FLOAT16) return UnsupportedDtype(label, "X", dt, "float32 or float16");
  if (w.dtype() != dt) return UnsupportedDtype(label, "W", w.dtype(), sdk::DTypeName(dt));
  if (b.present() && b.dtype() != dt) return UnsupportedDtype(label, "B", b.dtype(), sdk::DTypeName(dt));
  return Status::Ok();
}

// Not FFT or non-fused Winograd (see the file comment).
bool Allowed(cudnnConvolutionFwdAlgo_t a) {
  return a != CUDNN_CONVOLUTION_FWD_ALGO_FFT && a != CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING &&
         a != CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
}
bool Allowed(cudnnConvolutionBwdDataAlgo_t a) {
  return a != CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT && a != CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING &&
         a != CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED;
}

// The forward-convolution and backward-data entry points of cuDNN, for
// CudnnConvolution.
struct ForwardConvolution {
  using Algo = cudnnConvolutionFwdAlgo_t;
  using Perf = cudnnConvolutionFwdAlgoPerf_t;
  static constexpr const char* kWhat = "convolution";
  static constexpr Algo kFallbacks[2] = {CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
                                         CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM};
  static const char* MaxCountName() { return "cudnnGetConvolutionForwardAlgorithmMaxCount"; }
  static cudnnStatus_t MaxCount(cudnnHandle_t h, int* n) { return cudnnGetConvolutionForwardAlgorithmMaxCount(h, n); }
  static const char* RankName() { return "cudnnGetConvolutionForwardAlgorithm_v7"; }
  template <typename D>
  static cudnnStatus_t Rank(cudnnHandle_t h, const D& d, int n, int* got, Perf* perf) {
    return cudnnGetConvolutionForwardAlgorithm_v7(h, d.in.get(), d.w.get(), d.conv.get(), d.out.get(), n, got, perf);
  }
  static const char* WorkspaceName() { return "cudnnGetConvolutionForwardWorkspaceSize"; }
  template <typename D>
  static cudnnStatus_t Workspace(cudnnHandle_t h, const D& d, Algo a, size_t* bytes) {
    return cudnnGetConvolutionForwardWorkspaceSize(h, d.in.get(), d.w.get(), d.conv.get(), d.out.get(), a, bytes);
  }
  static const char* RunName() { return "cudnnConvolutionForward"; }
  // out = conv(in = `x`, `w`).
  template <typename D>
  static cudnnStatus_t Run(cudnnHandle_t h, const D& d, Algo a, const void* x, const void* w, void* out, void* ws,
                           size_t bytes) {
    const float alpha = 1.0f, beta = 0.0f;
    return cudnnConvolutionForward(h, &alpha, d.in.get(), x, d.w.get(), w, d.conv.get(), a, ws, bytes, &beta,
                                   d.out.get(), out);
  }
};

struct BackwardDataConvolution {
  using Algo = cudnnConvolutionBwdDataAlgo_t;
  using Perf = cudnnConvolutionBwdDataAlgoPerf_t;
  static constexpr const char* kWhat = "transposed-convolution";
  static constexpr Algo kFallbacks[2] = {CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0};
  static const char* MaxCountName() { return "cudnnGetConvolutionBackwardDataAlgorithmMaxCount"; }
  static cudnnStatus_t MaxCount(cudnnHandle_t h, int* n) { return cudnnGetConvolutionBackwardDataAlgorithmMaxCount(h, n); }
  static const char* RankName() { return "cudnnGetConvolutionBackwardDataAlgorithm_v7"; }
  template <typename D>
  static cudnnStatus_t Rank(cudnnHandle_t h, const D& d, int n, int* got, Perf* perf) {
    return cudnnGetConvolutionBackwardDataAlgorithm_v7(h, d.w.get(), d.out.get(), d.conv.get(), d.in.get(), n, got,
                                                       perf);
  }
  static const char* WorkspaceName() { return "cudnnGetConvolutionBackwardDataWorkspaceSize"; }
  template <typename D>
  static cudnnStatus_t Workspace(cudnnHandle_t h, const D& d, Algo a, size_t* bytes) {
    return cudnnGetConvolutionBackwardDataWorkspaceSize(h, d.w.get(), d.out.get(), d.conv.get(), d.in.get(), a, bytes);
  }
  static const char* RunName() { return "cudnnConvolutionBackwardData"; }
  // in (dx) = backward data of out (`dy`) through `w`.
  template <typename D>
  static cudnnStatus_t Run(cudnnHandle_t h, const D& d, Algo a, const void* w, const void* dy, void* dx, void* ws,
                           size_t bytes) {
    const float alpha = 1.0f, beta = 0.0f;
    return cudnnConvolutionBackwardData(h, &alpha, d.w.get(), w, d.out.get(), dy, d.conv.get(), a, ws, bytes, &beta,
                                        d.in.get(), dx);
  }
};

// One cuDNN convolution of `in` [N, C, ...] with the filter `w` giving `out`
// (ConvTranspose runs it backwards: its X is `out`, its result `in`): the
// descriptors, set up once per shape, and the algorithms that may run it,
// ranked by cuDNN's heuristics (Op::Rank), then Op's implicit-GEMM fallbacks.
template <typename Op>
class CudnnConvolution {
 public:
  TensorDesc in, out;
  FilterDesc w;
  ConvDesc conv;

  // Sets the descriptors (pads are symmetric, per spatial dim) and chooses
  // the algorithms. UNIMPLEMENTED (`too_big`) when a size exceeds cuDNN's
  // ints; INTERNAL (`mismatch`) when cuDNN's forward output of `in` and `w`
  // is not `out`.
  Status Set(const std::string& label, cudaStream_t stream, LoomDataType dt, const std::vector<int64_t>& in_shape,
             const std::vector<int64_t>& w_shape, const std::vector<int64_t>& out_shape,
             const std::vector<int64_t>& pads, const Window& win, int64_t groups, const std::string& too_big,
             const std::string& mismatch) {
    std::vector<int> ind, wd, outd;
    if (!CudnnDims(in_shape, &ind) || !CudnnDims(w_shape, &wd) || !CudnnDims(out_shape, &outd) || !FitsInt(pads) ||
        !FitsInt(win.strides) || !FitsInt(win.dilations) || groups > INT_MAX) {
      return sdk::Unimplemented(label + ": " + too_big + " exceeds cuDNN's int sizes");
    }
    LOOM_SDK_RETURN_IF_ERROR(in.Set(CudnnType(dt), ind, label));
    LOOM_SDK_RETURN_IF_ERROR(w.Set(CudnnType(dt), wd, label));
    LOOM_SDK_RETURN_IF_ERROR(out.Set(CudnnType(dt), outd, label));
    LOOM_SDK_RETURN_IF_ERROR(conv.Set(CudnnParams(pads, 0), CudnnParams(win.strides, 1),
                                      CudnnParams(win.dilations, 1), static_cast<int>(groups), dt, label));
    std::vector<int> check(outd.size());
    LOOM_CUDNN_RETURN_IF_ERROR(cudnnGetConvolutionNdForwardOutputDim(conv.get(), in.get(), w.get(),
                                                                     static_cast<int>(check.size()), check.data()),
                               label + ": cudnnGetConvolutionNdForwardOutputDim");
    if (check != outd) return sdk::Internal(label + ": " + mismatch);
    cudnnHandle_t h = nullptr;
    LOOM_SDK_RETURN_IF_ERROR(GetCudnn(stream, &h));
    return ChooseAlgorithms(label, h);
  }

  // Runs Op::Run(a, b -> result) with the algorithm that worked last, else
  // the next ones in order until one is accepted.
  Status Run(const std::string& label, cudaStream_t stream, const void* a, const void* b, void* result) {
    cudnnHandle_t h = nullptr;
    LOOM_SDK_RETURN_IF_ERROR(GetCudnn(stream, &h));
    std::string why = "no algorithm";
    for (size_t t = 0; t < algos_.size(); ++t) {
      const size_t i = (chosen_ + t) % algos_.size();
      size_t bytes = 0;
      cudnnStatus_t st = Op::Workspace(h, *this, algos_[i], &bytes);
      if (st != CUDNN_STATUS_SUCCESS) {
        why = std::string(Op::WorkspaceName()) + ": " + cudnnGetErrorString(st);
        continue;
      }
      AsyncBuffer ws(stream);
      cudaError_t e = ws.Alloc(bytes);
      if (e != cudaSuccess) {
        why = "workspace of " + std::to_string(bytes) + " bytes: " + CudaErrorString(e);
        continue;
      }
      st = Op::Run(h, *this, algos_[i], a, b, result, ws.get(), bytes);
      if (st == CUDNN_STATUS_SUCCESS) {
        chosen_ = i;
        return Status::Ok();
      }
      why = std::string(Op::RunName()) + ": " + cudnnGetErrorString(st);
    }
    return sdk::Internal(label + ": cuDNN ran no " + Op::kWhat + " algorithm (last: " + why + ")");
  }

 private:
  Status ChooseAlgorithms(const std::string& label, cudnnHandle_t h) {
    algos_.clear();
    chosen_ = 0;
    int max_count = 0;
    LOOM_CUDNN_RETURN_IF_ERROR(Op::MaxCount(h, &max_count), label + ": " + Op::MaxCountName());
    std::vector<typename Op::Perf> perf(static_cast<size_t>(std::max(max_count, 1)));
    int got = 0;
    LOOM_CUDNN_RETURN_IF_ERROR(Op::Rank(h, *this, static_cast<int>(perf.size()), &got, perf.data()),
                               label + ": " + Op::RankName());
    auto add = [&](typename Op::Algo a) {
      if (!Allowed(a)) return;
      if (std::find(algos_.begin(), algos_.end(), a) == algos_.end()) algos_.push_back(a);
    };
    for (int i = 0; i < got && i < static_cast<int>(perf.size()); ++i) {
      if (perf[i].status == CUDNN_STATUS_SUCCESS) add(perf[i].algo);
    }
    for (typename Op::Algo a : Op::kFallbacks) add(a);
    return Status::Ok();
  }

  std::vector<typename Op::Algo> algos_;
  size_t chosen_ = 0;
};

// Group (>= 1) of Conv and ConvTranspose.
Status ReadGroup(const KernelInfo& info, const std::string& label, int64_t* group) {
  LOOM_SDK_RETURN_IF_ERROR(info.GetInt("group", group));
  if (*group < 1) return sdk::InvalidArgument(label + ": group must be >= 1; found " + std::to_string(*group));
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// Conv

// ONNX Conv-11 (float32, float16): X [N, C, D1..Dn] (n = 1..3) convolved
// with W [M, C / group, k1..kn], plus the optional bias B [M], gives
// Y [N, M, D1'..Dn']. Attributes: group, kernel_shape (from W if absent),
// strides, dilations, pads, auto_pad. cuDNN pads symmetrically, so with
// asymmetric padding X is first copied into a buffer padded by the
// difference. Errors (INVALID_ARGUMENT): dtypes, ranks, W[1] != C / group, C
// or M not divisible by group, B not [M], kernel_shape differing from W, an
// input smaller than the window; UNIMPLEMENTED for tensors beyond cuDNN's
// int sizes; INTERNAL for CUDA/cuDNN failures.
class ConvKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    LOOM_SDK_RETURN_IF_ERROR(ReadGroup(info, label_, &group_));
    return attrs_.Read(info, label_);
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), w = ctx.Input(1), b = ctx.Input(2), y;
    LOOM_SDK_RETURN_IF_ERROR(CheckConvDtypes(label_, x, w, b));
    const LoomDataType dt = x.dtype();
    const std::vector<int64_t> xs = x.shape(), ws = w.shape();
    std::vector<int64_t> k;
    LOOM_SDK_RETURN_IF_ERROR(semantics::CheckConvOperands(label_, group_, xs, ws, b, attrs_.kernel, &k));
    const int64_t N = xs[0], M = ws[0];
    const std::vector<int64_t> spatial(xs.begin() + 2, xs.end());
    Window win;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Resolve(label_, spatial, k, &win));
    std::vector<int64_t> ys = {N, M};
    ys.insert(ys.end(), win.out.begin(), win.out.end());
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, dt, ys, &y));
    if (y.num_elements() == 0) return Status::Ok();
    cudaStream_t stream = StreamOf(ctx);
    if (x.num_elements() == 0) return FillBias(label_, b, y, stream);  // no input channels / all-padding windows

    // Symmetric padding for cuDNN; the excess is copied in front of / after X.
    const size_t n = spatial.size();
    std::vector<int64_t> sym(n), extra_begin(n), xp_shape = xs;
    bool padded = false;
    for (size_t i = 0; i < n; ++i) {
      sym[i] = std::min(win.pads_begin[i], win.pads_end[i]);
      extra_begin[i] = win.pads_begin[i] - sym[i];
      const int64_t extra_end = win.pads_end[i] - sym[i];
      xp_shape[2 + i] += extra_begin[i] + extra_end;
      padded = padded || extra_begin[i] != 0 || extra_end != 0;
    }
    std::vector<int64_t> key = xs;
    key.insert(key.end(), ws.begin(), ws.end());
    key.push_back(dt);
    if (key != key_) {
      key_.clear();
      LOOM_SDK_RETURN_IF_ERROR(conv_.Set(
          label_, stream, dt, xp_shape, ws, ys, sym, win, group_,
          "X " + ShapeStr(xs) + ", W " + ShapeStr(ws) + " or Y " + ShapeStr(ys),
          "cuDNN's output shape differs from ONNX's " + ShapeStr(ys) + " for X " + ShapeStr(xs) + " and W " +
              ShapeStr(ws)));
      pad_params_ = ShiftCopyParams{};
      pad_params_.rank = static_cast<int>(xs.size());
      for (size_t i = 0; i < xs.size(); ++i) {
        pad_params_.ydims[i] = xp_shape[i];
        pad_params_.xdims[i] = xs[i];
        pad_params_.offset[i] = i < 2 ? 0 : -extra_begin[i - 2];
      }
      key_ = key;
    }
    AsyncBuffer xpad(stream);
    const void* xin = x.raw_data();
    if (padded) {
      const size_t bytes = static_cast<size_t>(Product(xp_shape)) * sdk::DTypeSize(dt);
      LOOM_CUDA_RETURN_STATUS_IF_ERROR(xpad.Alloc(bytes), "cudaMallocAsync (padded X)");
      LOOM_CUDA_RETURN_STATUS_IF_ERROR(LaunchShiftCopy(dt, pad_params_, x.raw_data(), nullptr, xpad.get(), stream),
                                       "padding X");
      xin = xpad.get();
    }
    LOOM_SDK_RETURN_IF_ERROR(conv_.Run(label_, stream, xin, w.raw_data(), y.raw_data()));
    if (b.present()) {
      LOOM_CUDA_RETURN_STATUS_IF_ERROR(
          LaunchAddChannelBias(dt, N, M, y.num_elements() / (N * M), b.raw_data(), y.raw_data(), stream), "Conv bias");
    }
    return Status::Ok();
  }

 private:
  std::string label_;
  int64_t group_ = 1;
  WindowAttrs attrs_;
  std::vector<int64_t> key_;  // X and W shapes and the dtype of the convolution below
  CudnnConvolution<ForwardConvolution> conv_;
  ShiftCopyParams pad_params_;
};

// ---------------------------------------------------------------------------
// ConvTranspose

// ONNX ConvTranspose-11 (float32, float16): X [N, C, D1..Dn] (n = 1..3) with
// W [C, M / group, k1..kn] and optional B [M] gives Y [N, M, D1'..Dn'] with
// the CPU kernel's output size and padding rules (pads, auto_pad,
// output_padding, output_shape). cuDNN's backward-data convolution computes
// the full transposed result trimmed by a symmetric pad; when ONNX's
// padding is asymmetric or negative the result goes to a buffer and is
// copied into Y at its offset (outputs it does not cover get the bias
// alone). Errors (INVALID_ARGUMENT): dtypes, ranks, W[0] != C, C not
// divisible by group, B not [M], attribute lengths, kernel_shape differing
// from W, a negative output size; UNIMPLEMENTED beyond cuDNN's int sizes.
class ConvTransposeKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    LOOM_SDK_RETURN_IF_ERROR(ReadGroup(info, label_, &group_));
    return attrs_.Read(info, label_);
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), w = ctx.Input(1), b = ctx.Input(2), y;
    LOOM_SDK_RETURN_IF_ERROR(CheckConvDtypes(label_, x, w, b));
    const LoomDataType dt = x.dtype();
    const std::vector<int64_t> xs = x.shape(), ws = w.shape();
    LOOM_SDK_RETURN_IF_ERROR(semantics::CheckConvTransposeOperands(label_, group_, xs, ws, b));
    const int64_t N = xs[0], Mg = ws[1], M = Mg * group_;
    const size_t n = xs.size() - 2;
    // Per axis: the full (untrimmed) size, Y's size and the padding that
    // trims full to Y: Y[j] = full[j + pb] (pb, pe may be negative).
    ConvTransposeGeometry geo;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Resolve(label_, xs, ws, &geo));
    const std::vector<int64_t> &full = geo.full, &out = geo.out;
    const std::vector<int64_t> &pb = geo.pads_begin, &pe = geo.pads_end;
    std::vector<int64_t> ys = {N, M};
    ys.insert(ys.end(), out.begin(), out.end());
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, dt, ys, &y));
    if (y.num_elements() == 0) return Status::Ok();
    cudaStream_t stream = StreamOf(ctx);
    // cuDNN computes T[t] = full[t + p] for t < full - 2p with a symmetric
    // p >= 0; then Y[j] = T[j + pb - p].
    std::vector<int64_t> p(n), ts = {N, M};
    bool direct = true, empty = x.num_elements() == 0;
    for (size_t i = 0; i < n; ++i) {
      p[i] = std::min(std::max<int64_t>(pb[i], 0), std::max<int64_t>(pe[i], 0));
      ts.push_back(full[i] - 2 * p[i]);
      if (pb[i] != p[i] || pe[i] != p[i]) direct = false;
      if (ts.back() <= 0) empty = true;
    }
    if (empty) return FillBias(label_, b, y, stream);  // no input channels, or nothing computed lands in Y
    std::vector<int64_t> key = xs;
    key.insert(key.end(), ws.begin(), ws.end());
    key.insert(key.end(), ts.begin(), ts.end());
    key.insert(key.end(), p.begin(), p.end());
    key.push_back(dt);
    if (key != key_) {
      key_.clear();
      // The forward convolution whose data gradient this is maps T [N, M,
      // ...] to X [N, C, ...] with the filter W [C, M / group, k...].
      Window win;
      win.strides = geo.strides;
      win.dilations = geo.dilations;
      LOOM_SDK_RETURN_IF_ERROR(conv_.Set(
          label_, stream, dt, ts, ws, xs, p, win, group_,
          "X " + ShapeStr(xs) + ", W " + ShapeStr(ws) + " or the computed " + ShapeStr(ts),
          "cuDNN's convolution of " + ShapeStr(ts) + " does not give X " + ShapeStr(xs)));
      shift_ = ShiftCopyParams{};
      shift_.rank = static_cast<int>(ys.size());
      for (size_t i = 0; i < ys.size(); ++i) {
        shift_.ydims[i] = ys[i];
        shift_.xdims[i] = ts[i];
        shift_.offset[i] = i < 2 ? 0 : pb[i - 2] - p[i - 2];
      }
      key_ = key;
    }
    AsyncBuffer tbuf(stream);
    void* dst = y.raw_data();
    if (!direct) {
      const size_t bytes = static_cast<size_t>(Product(ts)) * sdk::DTypeSize(dt);
      LOOM_CUDA_RETURN_STATUS_IF_ERROR(tbuf.Alloc(bytes), "cudaMallocAsync (ConvTranspose result)");
      dst = tbuf.get();
    }
    LOOM_SDK_RETURN_IF_ERROR(conv_.Run(label_, stream, w.raw_data(), x.raw_data(), dst));
    if (!direct) {
      LOOM_CUDA_RETURN_STATUS_IF_ERROR(
          LaunchShiftCopy(dt, shift_, dst, b.present() ? b.raw_data() : nullptr, y.raw_data(), stream),
          "ConvTranspose copy");
    } else if (b.present()) {
      LOOM_CUDA_RETURN_STATUS_IF_ERROR(
          LaunchAddChannelBias(dt, N, M, y.num_elements() / (N * M), b.raw_data(), y.raw_data(), stream),
          "ConvTranspose bias");
    }
    return Status::Ok();
  }

 private:
  std::string label_;
  int64_t group_ = 1;
  ConvTransposeAttrs attrs_;
  std::vector<int64_t> key_;  // shapes, computed extent, pads, dtype of the convolution below
  CudnnConvolution<BackwardDataConvolution> conv_;
  ShiftCopyParams shift_;
};

// ---------------------------------------------------------------------------
// FusedConv

// FusedConv (the Conv + activation fusion of transforms/): Conv, then the
// activation (ops/semantics/activation.h) in place on Y with the elementwise
// family's kernel on the same stream.
class FusedConvKernel : public ConvKernel {
 public:
  Status Init(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(ConvKernel::Init(info));
    return act_.Read(info, OpLabel(info));
  }

  Status Compute(KernelContext& ctx) {
    LOOM_SDK_RETURN_IF_ERROR(ConvKernel::Compute(ctx));
    using A = semantics::FusedActivation;
    UnaryOp op = UnaryOp::kIdentity;
    float alpha = act_.alpha, beta = act_.beta;
    switch (act_.kind) {
      case A::kNone: return Status::Ok();
      case A::kRelu: op = UnaryOp::kRelu; break;
      case A::kLeakyRelu: op = UnaryOp::kLeakyRelu; break;
      case A::kClip: op = UnaryOp::kClip; break;
      case A::kSigmoid: op = UnaryOp::kSigmoid; break;
      case A::kTanh: op = UnaryOp::kTanh; break;
      case A::kHardSigmoid: op = UnaryOp::kHardSigmoid; break;
      case A::kHardSwish: op = UnaryOp::kHardSwish; break;
    }
    LoomTensor* y = sdk::Api().Ctx_OutputHandle(ctx.handle(), 0);
    Tensor t(y);
    return CudaStatus(LaunchUnary(op, t.dtype(), t.num_elements(), t.raw_data(), t.raw_data(), alpha, beta,
                                  StreamOf(ctx)),
                      "FusedConv activation");
  }

 private:
  semantics::FusedActivation act_;
};

sdk::KernelOptions Cuda(std::vector<LoomDataType> types) { return {"CUDA", "", 0, {{"T", std::move(types)}}}; }

}  // namespace

sdk::Status RegisterNnConvKernels(sdk::Registrar& reg) {
  const std::vector<LoomDataType> conv = {LOOM_DTYPE_FLOAT, LOOM_DTYPE_FLOAT16};
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ConvKernel>("Conv", Cuda(conv)));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<FusedConvKernel>("FusedConv", Cuda(conv)));
  return reg.Kernel<ConvTransposeKernel>("ConvTranspose", Cuda(conv));
}

}  // namespace cuda
}  // namespace loom
