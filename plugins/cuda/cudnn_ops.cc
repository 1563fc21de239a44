// Host side of the CUDA plugin's cuDNN family: Conv and ConvTranspose on
// cuDNN 9's (legacy) convolution API, MaxPool / AveragePool /
// GlobalAveragePool / GlobalMaxPool / BatchNormalization (inference) as
// CUDA kernels (cudnn_ops.cu). ONNX semantics, window arithmetic and errors
// follow the CPU plugin (plugins/cpu/dnnl_window.cc, nn_conv.cc,
// nn_pool.cc, nn_batch_norm.cc, nn_conv_transpose.cc).
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
#include "ops/semantics/window.h"
#include "plugins/cuda/cuda_status.h"
#include "plugins/cuda/cudnn_ops.h"
#include "plugins/cuda/handles.h"
#include "plugins/cuda/kernels.h"

namespace loom {
namespace cuda {
namespace {

using sdk::KernelContext;
using sdk::KernelInfo;
using sdk::Status;
using sdk::Tensor;

std::string Label(const KernelInfo& info) { return info.op_type() + " '" + info.op_name() + "'"; }

using semantics::ShapeStr;

Status UnsupportedDtype(const std::string& label, const char* input, LoomDataType found, const char* expected) {
  return sdk::InvalidArgument(label + ": input " + input + " has dtype " + sdk::DTypeName(found) + "; expected " +
                              expected + " on CUDA");
}

int64_t Product(const std::vector<int64_t>& v, size_t from = 0) {
  int64_t p = 1;
  for (size_t i = from; i < v.size(); ++i) p *= v[i];
  return p;
}

// Window geometry: the ONNX rules shared with the CPU plugin and the schemas.
using semantics::ConvTransposeAttrs;
using semantics::ConvTransposeGeometry;
using semantics::To3;
using semantics::Window;
using semantics::WindowAttrs;

// ---------------------------------------------------------------------------
// cuDNN plumbing.

class TensorDesc {
 public:
  TensorDesc() = default;
  TensorDesc(const TensorDesc&) = delete;
  TensorDesc& operator=(const TensorDesc&) = delete;
  ~TensorDesc() { if (d_) cudnnDestroyTensorDescriptor(d_); }
  // A packed row-major tensor of `dims` (4 or 5 of them).
  Status Set(cudnnDataType_t type, const std::vector<int>& dims, const std::string& label) {
    if (!d_) LOOM_CUDNN_RETURN_IF_ERROR(cudnnCreateTensorDescriptor(&d_), label + ": cudnnCreateTensorDescriptor");
    std::vector<int> strides(dims.size(), 1);
    for (size_t i = dims.size() - 1; i-- > 0;) strides[i] = strides[i + 1] * dims[i + 1];
    LOOM_CUDNN_RETURN_IF_ERROR(
        cudnnSetTensorNdDescriptor(d_, type, static_cast<int>(dims.size()), dims.data(), strides.data()),
        label + ": cudnnSetTensorNdDescriptor");
    return Status::Ok();
  }
  cudnnTensorDescriptor_t get() const { return d_; }

 private:
  cudnnTensorDescriptor_t d_ = nullptr;
};

class FilterDesc {
 public:
  FilterDesc() = default;
  FilterDesc(const FilterDesc&) = delete;
  FilterDesc& operator=(const FilterDesc&) = delete;
  ~FilterDesc() { if (d_) cudnnDestroyFilterDescriptor(d_); }
  Status Set(cudnnDataType_t type, const std::vector<int>& dims, const std::string& label) {
    if (!d_) LOOM_CUDNN_RETURN_IF_ERROR(cudnnCreateFilterDescriptor(&d_), label + ": cudnnCreateFilterDescriptor");
    LOOM_CUDNN_RETURN_IF_ERROR(
        cudnnSetFilterNdDescriptor(d_, type, CUDNN_TENSOR_NCHW, static_cast<int>(dims.size()), dims.data()),
        label + ": cudnnSetFilterNdDescriptor");
    return Status::Ok();
  }
  cudnnFilterDescriptor_t get() const { return d_; }

 private:
  cudnnFilterDescriptor_t d_ = nullptr;
};

class ConvDesc {
 public:
  ConvDesc() = default;
  ConvDesc(const ConvDesc&) = delete;
  ConvDesc& operator=(const ConvDesc&) = delete;
  ~ConvDesc() { if (d_) cudnnDestroyConvolutionDescriptor(d_); }
  // Cross-correlation with symmetric `pads`, float accumulation, `groups`,
  // and the math type for `dtype` (see the file comment).
  Status Set(const std::vector<int>& pads, const std::vector<int>& strides, const std::vector<int>& dilations,
             int groups, LoomDataType dtype, const std::string& label) {
    if (!d_) LOOM_CUDNN_RETURN_IF_ERROR(cudnnCreateConvolutionDescriptor(&d_), label + ": cudnnCreateConvolutionDescriptor");
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
  cudnnConvolutionDescriptor_t get() const { return d_; }

 private:
  cudnnConvolutionDescriptor_t d_ = nullptr;
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
    label_ = Label(info);
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("group", &group_));
    if (group_ < 1) return sdk::InvalidArgument(label_ + ": group must be >= 1; found " + std::to_string(group_));
    return attrs_.Read(info, label_);
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), w = ctx.Input(1), b = ctx.Input(2), y;
    LOOM_SDK_RETURN_IF_ERROR(CheckConvDtypes(label_, x, w, b));
    const LoomDataType dt = x.dtype();
    const std::vector<int64_t> xs = x.shape(), ws = w.shape();
    std::vector<int64_t> k;
    LOOM_SDK_RETURN_IF_ERROR(semantics::CheckConvOperands(label_, group_, xs, ws, b, attrs_.kernel, &k));
    const int64_t N = xs[0], M = ws[0], G = group_;
    const std::vector<int64_t> spatial(xs.begin() + 2, xs.end());
    Window win;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Resolve(label_, spatial, k, &win));
    std::vector<int64_t> ys = {N, M};
    ys.insert(ys.end(), win.out.begin(), win.out.end());
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, dt, ys, &y));
    if (y.num_elements() == 0) return Status::Ok();
    cudaStream_t stream = static_cast<cudaStream_t>(ctx.stream());
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
      std::vector<int> xd, wd, yd;
      if (!CudnnDims(xp_shape, &xd) || !CudnnDims(ws, &wd) || !CudnnDims(ys, &yd) || !FitsInt(sym) ||
          !FitsInt(win.strides) || !FitsInt(win.dilations) || G > INT_MAX) {
        return sdk::Unimplemented(label_ + ": X " + ShapeStr(xs) + ", W " + ShapeStr(ws) + " or Y " + ShapeStr(ys) +
                                  " exceeds cuDNN's int sizes");
      }
      LOOM_SDK_RETURN_IF_ERROR(x_desc_.Set(CudnnType(dt), xd, label_));
      LOOM_SDK_RETURN_IF_ERROR(w_desc_.Set(CudnnType(dt), wd, label_));
      LOOM_SDK_RETURN_IF_ERROR(y_desc_.Set(CudnnType(dt), yd, label_));
      LOOM_SDK_RETURN_IF_ERROR(conv_desc_.Set(CudnnParams(sym, 0), CudnnParams(win.strides, 1),
                                              CudnnParams(win.dilations, 1), static_cast<int>(G), dt, label_));
      std::vector<int> check(yd.size());
      LOOM_CUDNN_RETURN_IF_ERROR(cudnnGetConvolutionNdForwardOutputDim(conv_desc_.get(), x_desc_.get(), w_desc_.get(),
                                                                       static_cast<int>(check.size()), check.data()),
                                 label_ + ": cudnnGetConvolutionNdForwardOutputDim");
      if (check != yd) {
        return sdk::Internal(label_ + ": cuDNN's output shape differs from ONNX's " + ShapeStr(ys) + " for X " +
                             ShapeStr(xs) + " and W " + ShapeStr(ws));
      }
      cudnnHandle_t h = nullptr;
      LOOM_SDK_RETURN_IF_ERROR(GetCudnn(stream, &h));
      LOOM_SDK_RETURN_IF_ERROR(ChooseAlgorithms(h));
      pad_params_ = ShiftCopyParams{};
      pad_params_.rank = static_cast<int>(xs.size());
      for (size_t i = 0; i < xs.size(); ++i) {
        pad_params_.ydims[i] = xp_shape[i];
        pad_params_.xdims[i] = xs[i];
        pad_params_.offset[i] = i < 2 ? 0 : -extra_begin[i - 2];
      }
      key_ = key;
    }
    cudnnHandle_t h = nullptr;
    LOOM_SDK_RETURN_IF_ERROR(GetCudnn(stream, &h));
    AsyncBuffer xpad(stream);
    const void* xin = x.raw_data();
    if (padded) {
      const size_t bytes = static_cast<size_t>(Product(xp_shape)) * sdk::DTypeSize(dt);
      LOOM_CUDA_RETURN_STATUS_IF_ERROR(xpad.Alloc(bytes), "cudaMallocAsync (padded X)");
      LOOM_CUDA_RETURN_STATUS_IF_ERROR(LaunchShiftCopy(dt, pad_params_, x.raw_data(), nullptr, xpad.get(), stream),
                                       "padding X");
      xin = xpad.get();
    }
    LOOM_SDK_RETURN_IF_ERROR(Run(h, xin, w.raw_data(), y.raw_data(), stream));
    if (b.present()) {
      LOOM_CUDA_RETURN_STATUS_IF_ERROR(
          LaunchAddChannelBias(dt, N, M, y.num_elements() / (N * M), b.raw_data(), y.raw_data(), stream), "Conv bias");
    }
    return Status::Ok();
  }

 private:
  // The heuristics' ranking (cudnnGetConvolutionForwardAlgorithm_v7), then
  // the implicit-GEMM algorithms as a fallback.
  Status ChooseAlgorithms(cudnnHandle_t h) {
    algos_.clear();
    chosen_ = 0;
    int max_count = 0;
    LOOM_CUDNN_RETURN_IF_ERROR(cudnnGetConvolutionForwardAlgorithmMaxCount(h, &max_count),
                               label_ + ": cudnnGetConvolutionForwardAlgorithmMaxCount");
    std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(static_cast<size_t>(std::max(max_count, 1)));
    int got = 0;
    LOOM_CUDNN_RETURN_IF_ERROR(
        cudnnGetConvolutionForwardAlgorithm_v7(h, x_desc_.get(), w_desc_.get(), conv_desc_.get(), y_desc_.get(),
                                               static_cast<int>(perf.size()), &got, perf.data()),
        label_ + ": cudnnGetConvolutionForwardAlgorithm_v7");
    auto add = [&](cudnnConvolutionFwdAlgo_t a) {
      if (!Allowed(a)) return;
      if (std::find(algos_.begin(), algos_.end(), a) == algos_.end()) algos_.push_back(a);
    };
    for (int i = 0; i < got && i < static_cast<int>(perf.size()); ++i) {
      if (perf[i].status == CUDNN_STATUS_SUCCESS) add(perf[i].algo);
    }
    add(CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM);
    add(CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM);
    return Status::Ok();
  }

  // Runs the convolution with the algorithm that worked last, else the next
  // ones in order until one is accepted.
  Status Run(cudnnHandle_t h, const void* x, const void* w, void* y, cudaStream_t stream) {
    const float alpha = 1.0f, beta = 0.0f;
    std::string why = "no algorithm";
    for (size_t t = 0; t < algos_.size(); ++t) {
      const size_t i = (chosen_ + t) % algos_.size();
      size_t bytes = 0;
      cudnnStatus_t st = cudnnGetConvolutionForwardWorkspaceSize(h, x_desc_.get(), w_desc_.get(), conv_desc_.get(),
                                                                 y_desc_.get(), algos_[i], &bytes);
      if (st != CUDNN_STATUS_SUCCESS) {
        why = std::string("cudnnGetConvolutionForwardWorkspaceSize: ") + cudnnGetErrorString(st);
        continue;
      }
      AsyncBuffer ws(stream);
      cudaError_t e = ws.Alloc(bytes);
      if (e != cudaSuccess) {
        why = "workspace of " + std::to_string(bytes) + " bytes: " + CudaErrorString(e);
        continue;
      }
      st = cudnnConvolutionForward(h, &alpha, x_desc_.get(), x, w_desc_.get(), w, conv_desc_.get(), algos_[i],
                                   ws.get(), bytes, &beta, y_desc_.get(), y);
      if (st == CUDNN_STATUS_SUCCESS) {
        chosen_ = i;
        return Status::Ok();
      }
      why = std::string("cudnnConvolutionForward: ") + cudnnGetErrorString(st);
    }
    return sdk::Internal(label_ + ": cuDNN ran no convolution algorithm (last: " + why + ")");
  }

  std::string label_;
  int64_t group_ = 1;
  WindowAttrs attrs_;
  std::vector<int64_t> key_;  // X and W shapes and the dtype of the descriptors below
  TensorDesc x_desc_, y_desc_;
  FilterDesc w_desc_;
  ConvDesc conv_desc_;
  ShiftCopyParams pad_params_;
  std::vector<cudnnConvolutionFwdAlgo_t> algos_;
  size_t chosen_ = 0;
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
    label_ = Label(info);
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("group", &group_));
    if (group_ < 1) return sdk::InvalidArgument(label_ + ": group must be >= 1; found " + std::to_string(group_));
    return attrs_.Read(info, label_);
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), w = ctx.Input(1), b = ctx.Input(2), y;
    LOOM_SDK_RETURN_IF_ERROR(CheckConvDtypes(label_, x, w, b));
    const LoomDataType dt = x.dtype();
    const std::vector<int64_t> xs = x.shape(), ws = w.shape();
    LOOM_SDK_RETURN_IF_ERROR(semantics::CheckConvTransposeOperands(label_, group_, xs, ws, b));
    const int64_t N = xs[0], G = group_, Mg = ws[1], M = Mg * G;
    const size_t n = xs.size() - 2;
    // Per axis: the full (untrimmed) size, Y's size and the padding that
    // trims full to Y: Y[j] = full[j + pb] (pb, pe may be negative).
    ConvTransposeGeometry geo;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Resolve(label_, xs, ws, &geo));
    const std::vector<int64_t> &strides = geo.strides, &dil = geo.dilations, &full = geo.full, &out = geo.out;
    const std::vector<int64_t> &pb = geo.pads_begin, &pe = geo.pads_end;
    std::vector<int64_t> ys = {N, M};
    ys.insert(ys.end(), out.begin(), out.end());
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, dt, ys, &y));
    if (y.num_elements() == 0) return Status::Ok();
    cudaStream_t stream = static_cast<cudaStream_t>(ctx.stream());
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
      std::vector<int> xd, wd, td;
      if (!CudnnDims(xs, &xd) || !CudnnDims(ws, &wd) || !CudnnDims(ts, &td) || !FitsInt(p) || !FitsInt(strides) || !FitsInt(dil) || G > INT_MAX) {
        return sdk::Unimplemented(label_ + ": X " + ShapeStr(xs) + ", W " + ShapeStr(ws) + " or the computed " +
                                  ShapeStr(ts) + " exceeds cuDNN's int sizes");
      }
      // The forward convolution whose data gradient this is maps T [N, M,
      // ...] to X [N, C, ...] with the filter W [C, M / group, k...].
      LOOM_SDK_RETURN_IF_ERROR(dy_desc_.Set(CudnnType(dt), xd, label_));
      LOOM_SDK_RETURN_IF_ERROR(w_desc_.Set(CudnnType(dt), wd, label_));
      LOOM_SDK_RETURN_IF_ERROR(dx_desc_.Set(CudnnType(dt), td, label_));
      LOOM_SDK_RETURN_IF_ERROR(conv_desc_.Set(CudnnParams(p, 0), CudnnParams(strides, 1), CudnnParams(dil, 1),
                                              static_cast<int>(G), dt, label_));
      std::vector<int> check(xd.size());
      LOOM_CUDNN_RETURN_IF_ERROR(cudnnGetConvolutionNdForwardOutputDim(conv_desc_.get(), dx_desc_.get(), w_desc_.get(),
                                                                       static_cast<int>(check.size()), check.data()),
                                 label_ + ": cudnnGetConvolutionNdForwardOutputDim");
      if (check != xd) {
        return sdk::Internal(label_ + ": cuDNN's convolution of " + ShapeStr(ts) + " does not give X " + ShapeStr(xs));
      }
      cudnnHandle_t h = nullptr;
      LOOM_SDK_RETURN_IF_ERROR(GetCudnn(stream, &h));
      LOOM_SDK_RETURN_IF_ERROR(ChooseAlgorithms(h));
      shift_ = ShiftCopyParams{};
      shift_.rank = static_cast<int>(ys.size());
      for (size_t i = 0; i < ys.size(); ++i) {
        shift_.ydims[i] = ys[i];
        shift_.xdims[i] = ts[i];
        shift_.offset[i] = i < 2 ? 0 : pb[i - 2] - p[i - 2];
      }
      key_ = key;
    }
    cudnnHandle_t h = nullptr;
    LOOM_SDK_RETURN_IF_ERROR(GetCudnn(stream, &h));
    AsyncBuffer tbuf(stream);
    void* dst = y.raw_data();
    if (!direct) {
      const size_t bytes = static_cast<size_t>(Product(ts)) * sdk::DTypeSize(dt);
      LOOM_CUDA_RETURN_STATUS_IF_ERROR(tbuf.Alloc(bytes), "cudaMallocAsync (ConvTranspose result)");
      dst = tbuf.get();
    }
    LOOM_SDK_RETURN_IF_ERROR(Run(h, w.raw_data(), x.raw_data(), dst, stream));
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
  Status ChooseAlgorithms(cudnnHandle_t h) {
    algos_.clear();
    chosen_ = 0;
    int max_count = 0;
    LOOM_CUDNN_RETURN_IF_ERROR(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(h, &max_count),
                               label_ + ": cudnnGetConvolutionBackwardDataAlgorithmMaxCount");
    std::vector<cudnnConvolutionBwdDataAlgoPerf_t> perf(static_cast<size_t>(std::max(max_count, 1)));
    int got = 0;
    LOOM_CUDNN_RETURN_IF_ERROR(
        cudnnGetConvolutionBackwardDataAlgorithm_v7(h, w_desc_.get(), dy_desc_.get(), conv_desc_.get(), dx_desc_.get(),
                                                    static_cast<int>(perf.size()), &got, perf.data()),
        label_ + ": cudnnGetConvolutionBackwardDataAlgorithm_v7");
    auto add = [&](cudnnConvolutionBwdDataAlgo_t a) {
      if (!Allowed(a)) return;
      if (std::find(algos_.begin(), algos_.end(), a) == algos_.end()) algos_.push_back(a);
    };
    for (int i = 0; i < got && i < static_cast<int>(perf.size()); ++i) {
      if (perf[i].status == CUDNN_STATUS_SUCCESS) add(perf[i].algo);
    }
    add(CUDNN_CONVOLUTION_BWD_DATA_ALGO_1);
    add(CUDNN_CONVOLUTION_BWD_DATA_ALGO_0);
    return Status::Ok();
  }

  // dx (T) = backward data of dy (X) through W; see ConvKernel::Run.
  Status Run(cudnnHandle_t h, const void* w, const void* dy, void* dx, cudaStream_t stream) {
    const float alpha = 1.0f, beta = 0.0f;
    std::string why = "no algorithm";
    for (size_t t = 0; t < algos_.size(); ++t) {
      const size_t i = (chosen_ + t) % algos_.size();
      size_t bytes = 0;
      cudnnStatus_t st = cudnnGetConvolutionBackwardDataWorkspaceSize(h, w_desc_.get(), dy_desc_.get(),
                                                                      conv_desc_.get(), dx_desc_.get(), algos_[i],
                                                                      &bytes);
      if (st != CUDNN_STATUS_SUCCESS) {
        why = std::string("cudnnGetConvolutionBackwardDataWorkspaceSize: ") + cudnnGetErrorString(st);
        continue;
      }
      AsyncBuffer ws(stream);
      cudaError_t e = ws.Alloc(bytes);
      if (e != cudaSuccess) {
        why = "workspace of " + std::to_string(bytes) + " bytes: " + CudaErrorString(e);
        continue;
      }
      st = cudnnConvolutionBackwardData(h, &alpha, w_desc_.get(), w, dy_desc_.get(), dy, conv_desc_.get(), algos_[i],
                                        ws.get(), bytes, &beta, dx_desc_.get(), dx);
      if (st == CUDNN_STATUS_SUCCESS) {
        chosen_ = i;
        return Status::Ok();
      }
      why = std::string("cudnnConvolutionBackwardData: ") + cudnnGetErrorString(st);
    }
    return sdk::Internal(label_ + ": cuDNN ran no transposed-convolution algorithm (last: " + why + ")");
  }

  std::string label_;
  int64_t group_ = 1;
  ConvTransposeAttrs attrs_;
  std::vector<int64_t> key_;  // shapes, computed extent, pads, dtype of the descriptors below
  TensorDesc dy_desc_, dx_desc_;
  FilterDesc w_desc_;
  ConvDesc conv_desc_;
  ShiftCopyParams shift_;
  std::vector<cudnnConvolutionBwdDataAlgo_t> algos_;
  size_t chosen_ = 0;
};

// ---------------------------------------------------------------------------
// Pooling

// ONNX MaxPool-12 (kMax; float32, float16, bfloat16, int8, uint8, with the
// optional Indices output, storage_order) and AveragePool-19 (float32,
// float16, bfloat16; count_include_pad) over X [N, C, D1..Dn], n = 1..3.
// Attributes: kernel_shape (required), strides, dilations, pads, auto_pad,
// ceil_mode. A max window entirely in padding gives the dtype's lowest
// value. Errors (INVALID_ARGUMENT): X's rank, attribute ranks, an input
// smaller than the window, an empty X with a non-empty Y (without Indices,
// like the CPU kernel).
template <bool kMax>
class PoolKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = Label(info);
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Read(info, label_));
    if (attrs_.kernel.empty()) return sdk::InvalidArgument(label_ + ": attribute kernel_shape is required");
    include_pad_ = info.IntOr("count_include_pad", 0) != 0;
    col_major_ = info.IntOr("storage_order", 0) != 0;
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y, indices;
    const std::vector<int64_t> xs = x.shape();
    if (xs.size() < 3 || xs.size() > 5) {
      return sdk::InvalidArgument(label_ + ": input X must be [N, C, D...] with 1 to 3 spatial dims; found " +
                                  ShapeStr(xs));
    }
    const std::vector<int64_t> spatial(xs.begin() + 2, xs.end());
    Window win;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Resolve(label_, spatial, attrs_.kernel, &win));
    std::vector<int64_t> ys = {xs[0], xs[1]};
    ys.insert(ys.end(), win.out.begin(), win.out.end());
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), ys, &y));
    const bool want_indices = kMax && ctx.OutputRequested(1);
    if (want_indices) LOOM_SDK_RETURN_IF_ERROR(ctx.Output(1, LOOM_DTYPE_INT64, ys, &indices));
    if (y.num_elements() == 0) return Status::Ok();
    if (x.num_elements() == 0 && !want_indices) {
      return sdk::InvalidArgument(label_ + ": input X " + ShapeStr(xs) + " is empty but Y " + ShapeStr(ys) + " is not");
    }
    const size_t n = spatial.size();
    const std::vector<int64_t> in3 = To3(spatial, 1), out3 = To3(win.out, 1), k3 = To3(win.kernel, 1);
    const std::vector<int64_t> s3 = To3(win.strides, 1), d3 = To3(win.dilations, 1), pb3 = To3(win.pads_begin, 0);
    std::vector<int64_t> limit(n);
    for (size_t i = 0; i < n; ++i) limit[i] = spatial[i] + win.pads_end[i];
    const std::vector<int64_t> limit3 = To3(limit, 1);
    PoolParams p;
    p.planes = xs[0] * xs[1];
    for (int d = 0; d < 3; ++d) {
      p.in[d] = in3[d];
      p.out[d] = out3[d];
      p.kernel[d] = k3[d];
      p.stride[d] = s3[d];
      p.dilation[d] = d3[d];
      p.pad_begin[d] = pb3[d];
      p.limit[d] = limit3[d];
    }
    // Indices over the real spatial dims, row-major (storage_order 0) or
    // column-major (1), as the CPU kernel.
    const std::vector<int64_t> istride = semantics::PoolIndexStrides3(spatial, col_major_);
    for (int d = 0; d < 3; ++d) p.index_stride[d] = istride[d];
    const PoolMode mode = kMax ? PoolMode::kMax : (include_pad_ ? PoolMode::kAvgIncludePad : PoolMode::kAvgExcludePad);
    return CudaStatus(LaunchPool(mode, x.dtype(), p, x.raw_data(), y.raw_data(),
                                 want_indices ? indices.data<int64_t>() : nullptr,
                                 static_cast<cudaStream_t>(ctx.stream())),
                      label_.c_str());
  }

 private:
  std::string label_;
  WindowAttrs attrs_;
  bool include_pad_ = false, col_major_ = false;
};

// ONNX GlobalAveragePool-1 / GlobalMaxPool-1 (float32, float16, bfloat16):
// X [N, C, D...] -> Y [N, C, 1...], the mean (accumulated in double) or the
// maximum over all spatial dims; an empty spatial extent gives NaN (mean) or
// -inf (max). INVALID_ARGUMENT for X of rank < 2.
template <bool kMax>
class GlobalPoolKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = Label(info);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    const std::vector<int64_t> xs = x.shape();
    std::vector<int64_t> ys;
    LOOM_SDK_RETURN_IF_ERROR(semantics::GlobalPoolShape(label_, xs, &ys));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), ys, &y));
    return CudaStatus(LaunchGlobalPool(kMax, x.dtype(), xs[0] * xs[1], Product(xs, 2), x.raw_data(), y.raw_data(),
                                       static_cast<cudaStream_t>(ctx.stream())),
                      label_.c_str());
  }

 private:
  std::string label_;
};

// ---------------------------------------------------------------------------
// BatchNormalization

// ONNX BatchNormalization-15, inference (float32, float16, bfloat16): for X
// [N, C, D...] (rank >= 2) and per-channel scale, B, input_mean, input_var
// (each [C], X's dtype), Y = (X - input_mean) / sqrt(input_var + epsilon) *
// scale + B, computed in float. momentum is accepted and unused. Errors:
// training_mode = 1 or a request for running_mean / running_var
// (UNIMPLEMENTED), X of rank < 2, a per-channel input that is not [C] or of
// another dtype (INVALID_ARGUMENT).
class BatchNormKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = Label(info);
    LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("epsilon", &epsilon_));
    if (info.IntOr("training_mode", 0) != 0) {
      return sdk::Unimplemented(label_ + ": training_mode = 1 is not supported (inference only)");
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    if (ctx.OutputRequested(1) || ctx.OutputRequested(2)) {
      return sdk::Unimplemented(label_ + ": outputs running_mean and running_var exist only in training mode, "
                                         "which is not supported");
    }
    Tensor x = ctx.Input(0), y;
    const std::vector<int64_t> xs = x.shape();
    if (xs.size() < 2) return sdk::InvalidArgument(label_ + ": input X must be [N, C, D...]; found " + ShapeStr(xs));
    const int64_t N = xs[0], C = xs[1];
    static const char* const kNames[] = {"X", "scale", "B", "input_mean", "input_var"};
    for (size_t i = 1; i < 5; ++i) {
      Tensor t = ctx.Input(i);
      if (!t.present() || t.rank() != 1 || t.dim(0) != C) {
        return sdk::InvalidArgument(label_ + ": input " + kNames[i] + " must be [" + std::to_string(C) + "] (C of X " +
                                    ShapeStr(xs) + "); found " + (t.present() ? ShapeStr(t.shape()) : "none"));
      }
      if (t.dtype() != x.dtype()) return UnsupportedDtype(label_, kNames[i], t.dtype(), sdk::DTypeName(x.dtype()));
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), xs, &y));
    return CudaStatus(LaunchBatchNormInference(x.dtype(), N, C, Product(xs, 2), epsilon_, x.raw_data(),
                                               ctx.Input(1).raw_data(), ctx.Input(2).raw_data(),
                                               ctx.Input(3).raw_data(), ctx.Input(4).raw_data(), y.raw_data(),
                                               static_cast<cudaStream_t>(ctx.stream())),
                      label_.c_str());
  }

 private:
  std::string label_;
  float epsilon_ = 1e-5f;
};

// FusedConv (the importer's Conv + activation fusion): Conv, then the
// activation (ops/semantics/activation.h) in place on Y with the elementwise
// family's kernel on the same stream.
class FusedConvKernel : public ConvKernel {
 public:
  Status Init(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(ConvKernel::Init(info));
    return act_.Read(info, Label(info));
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
                                  static_cast<cudaStream_t>(ctx.stream())),
                      "FusedConv activation");
  }

 private:
  semantics::FusedActivation act_;
};

sdk::KernelOptions Cuda(std::vector<LoomDataType> types) { return {"CUDA", "", 0, {{"T", std::move(types)}}}; }

}  // namespace

sdk::Status RegisterCudnnKernels(sdk::Registrar& reg) {
  const std::vector<LoomDataType> conv = {LOOM_DTYPE_FLOAT, LOOM_DTYPE_FLOAT16};
  const std::vector<LoomDataType> f = {LOOM_DTYPE_FLOAT, LOOM_DTYPE_FLOAT16, LOOM_DTYPE_BFLOAT16};
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ConvKernel>("Conv", Cuda(conv)));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<FusedConvKernel>("FusedConv", Cuda(conv)));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ConvTransposeKernel>("ConvTranspose", Cuda(conv)));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<PoolKernel<true>>(
      "MaxPool", Cuda({LOOM_DTYPE_FLOAT, LOOM_DTYPE_FLOAT16, LOOM_DTYPE_BFLOAT16, LOOM_DTYPE_INT8, LOOM_DTYPE_UINT8})));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<PoolKernel<false>>("AveragePool", Cuda(f)));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<GlobalPoolKernel<false>>("GlobalAveragePool", Cuda(f)));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<GlobalPoolKernel<true>>("GlobalMaxPool", Cuda(f)));
  return reg.Kernel<BatchNormKernel>("BatchNormalization", Cuda(f));
}

}  // namespace cuda
}  // namespace loom
