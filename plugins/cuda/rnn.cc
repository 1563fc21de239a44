// ONNX LSTM, GRU and RNN on CUDA through cuDNN 9's RNN API (cudnnRNNForward,
// inference mode, one layer). Semantics follow the CPU kernels
// (plugins/cpu/rnn.cc: ONNX opset 7-14, directions forward / reverse /
// bidirectional, layout 0 and 1, optional B, sequence_lens, initial_h,
// initial_c and optional outputs Y, Y_h, Y_c) with the same shape checks and
// error texts. float32 (FMA math, no TF32) and float64.
//
// Supported: the default activations (LSTM Sigmoid/Tanh/Tanh, GRU
// Sigmoid/Tanh, RNN Tanh or Relu, the same for both directions), no clip, no
// input_forget, no peepholes (P), GRU with linear_before_reset = 1 (cuDNN's
// GRU formula). Kernel selection happens before Init can look at
// attributes, so anything else fails kernel creation with UNIMPLEMENTED naming
// the attribute (run such ops on CPU); P is refused the same way when the
// operator names it.
//
// ONNX -> cuDNN:
//   gates    cudnnGetRNNWeightParams' linLayerID: LSTM 0..3 = input, forget,
//            cell (new memory), output for W and 4..7 for R; ONNX order is
//            i, o, f, c. GRU 0..2 = reset, update, new for W, 3..5 for R;
//            ONNX is z, r, h. RNN 0 = W, 1 = R. Each matrix is [H, in]
//            row-major, as ONNX's per-gate block (the layout PyTorch relies on
//            when it copies its weights flat into cuDNN's weight space).
//   biases   CUDNN_RNN_DOUBLE_BIAS: the bias of a W lin layer is ONNX Wb of
//            that gate, of an R lin layer Rb; absent B gives zeros.
//   lengths  sequence_lens -> seqLengthArray of unpacked (padded) RNN data
//            descriptors with CUDNN_RNN_PADDED_IO_ENABLED and paddingFill 0:
//            Y past a sequence's end is 0, Y_h/Y_c hold its last valid step
//            (the backward direction starts at each sequence's last valid
//            step), as ONNX and the CPU kernel.
//   layout   0: X [T, N, I] is CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED; Y
//            [T, D, N, H] is cuDNN's [T, N, D*H] when D == 1, else a copy
//            with N and D swapped. 1: X [N, T, I] is BATCH_MAJOR_UNPACKED and
//            Y [N, T, D, H] is cuDNN's [N, T, D*H]; states [N, D, H] are
//            swapped to/from cuDNN's fully packed [D, N, H] when D == 2.
//   reverse  cuDNN has no reverse-only direction: each sequence's valid
//            prefix of X is reversed (rnn.cu), the forward RNN runs, and Y is
//            reversed back; Y_h/Y_c are then the state after step 0.
//
// Weights are gathered into the kernel's cached weight space by one kernel
// (a device-to-device pass over W, R and B). Prepare records which of them
// are initializers (constant for the plan's life; an absent B counts as
// constant zeros): their blocks are gathered once per weight space (after it
// is built or rebuilt), the others on every run, without comparing anything:
// the ABI has no contents version, and the planner refills the same device
// replica of a graph input with new values on every run.
//
// Device state kept by a kernel (one GPU): the RNN/data descriptors, the
// weight space (rebuilt when dtype, input or hidden size change) and a
// grow-only scratch buffer for a run's temporaries (lengths, cuDNN workspace,
// reversed X, Y before its reorder, transposed states). An event recorded
// after each run orders the next run (possibly on another stream) after it,
// and freeing or growing these buffers waits for it. sequence_lens is read
// back to the host (a stream synchronization) for the descriptors.
#include <cudnn.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "ops/semantics/common.h"
#include "ops/semantics/rnn.h"
#include "plugins/cuda/cuda_status.h"
#include "plugins/cuda/handles.h"
#include "plugins/cuda/kernels.h"
#include "plugins/cuda/rnn.h"

namespace loom {
namespace cuda {
namespace {

enum class Cell { kLstm, kGru, kRnn };

using semantics::ShapeStr;

// cuDNN's linLayerID of the W matrix of ONNX gate k; R's is that + gates.
constexpr int kLstmLinLayer[4] = {0, 3, 1, 2};  // ONNX i, o, f, c -> cuDNN i=0, f=1, c=2, o=3
constexpr int kGruLinLayer[3] = {1, 0, 2};      // ONNX z, r, h -> cuDNN r=0, z=1, h=2
constexpr int kRnnLinLayer[1] = {0};

// Owns a cuDNN descriptor.
template <typename H, cudnnStatus_t (*kDestroy)(H)>
class Owned {
 public:
  Owned() = default;
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  ~Owned() { reset(); }
  void reset() {
    if (h_ != nullptr) kDestroy(h_);
    h_ = nullptr;
  }
  H get() const { return h_; }
  H* out() {
    reset();
    return &h_;
  }

 private:
  H h_ = nullptr;
};
using RnnDescriptor = Owned<cudnnRNNDescriptor_t, &cudnnDestroyRNNDescriptor>;
using DropoutDescriptor = Owned<cudnnDropoutDescriptor_t, &cudnnDestroyDropoutDescriptor>;
using RnnDataDescriptor = Owned<cudnnRNNDataDescriptor_t, &cudnnDestroyRNNDataDescriptor>;
using TensorDescriptor = Owned<cudnnTensorDescriptor_t, &cudnnDestroyTensorDescriptor>;

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// One LSTM, GRU or RNN operator (see the file comment).
class RnnKernel {
 public:
  RnnKernel() = default;
  RnnKernel(const RnnKernel&) = delete;
  RnnKernel& operator=(const RnnKernel&) = delete;
  ~RnnKernel() { ReleaseDevice(); }

  // Reads and checks the attributes: INVALID_ARGUMENT for values ONNX does
  // not allow (as the CPU kernel), UNIMPLEMENTED for valid ones cuDNN lacks.
  sdk::Status Init(const sdk::KernelInfo& info) {
    label_ = info.op_type() + " '" + info.op_name() + "'";
    const std::string op = info.op_type();
    cell_ = op == "LSTM" ? Cell::kLstm : op == "GRU" ? Cell::kGru : Cell::kRnn;
    gates_ = cell_ == Cell::kLstm ? 4 : cell_ == Cell::kGru ? 3 : 1;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Read(info, label_, semantics::RnnCellOf(info.op_type())));
    dirs_ = attrs_.num_directions;
    reverse_ = attrs_.reverse;
    hidden_ = attrs_.hidden_size;
    batch_major_ = attrs_.batch_major;
    if (attrs_.has_clip) {
      return sdk::Unimplemented(label_ + ": attribute 'clip' is not supported by the CUDA (cuDNN) kernel; run it on CPU");
    }
    if (attrs_.input_forget) {
      return sdk::Unimplemented(label_ + ": attribute 'input_forget' = 1 is not supported by the CUDA (cuDNN) kernel; run it on CPU");
    }
    if (cell_ == Cell::kGru && !attrs_.linear_before_reset) {
      return sdk::Unimplemented(label_ + ": attribute 'linear_before_reset' = 0 is not supported by the CUDA (cuDNN) "
                                "kernel (cuDNN's GRU applies the recurrent weights before the reset gate); run it on CPU");
    }
    if (cell_ == Cell::kLstm && info.num_inputs() > 7 && !info.input_name(7).empty()) {
      return sdk::Unimplemented(label_ + ": peephole input 'P' is not supported by the CUDA (cuDNN) kernel; run it on CPU");
    }

    // Activations: per direction f, g, h (LSTM), f, g (GRU), f (RNN), as
    // lower-case names.
    const size_t per_dir = attrs_.acts_per_dir;
    std::vector<std::string> names;
    for (const semantics::RnnActivation& a : attrs_.activations) names.push_back(Lower(a.name));
    bool supported = true;
    for (size_t d = 0; d < static_cast<size_t>(dirs_); ++d) {
      const std::string* a = &names[d * per_dir];
      if (cell_ == Cell::kLstm) supported &= a[0] == "sigmoid" && a[1] == "tanh" && a[2] == "tanh";
      if (cell_ == Cell::kGru) supported &= a[0] == "sigmoid" && a[1] == "tanh";
      if (cell_ == Cell::kRnn) supported &= (a[0] == "tanh" || a[0] == "relu") && a[0] == names[0];
    }
    if (!supported) {
      std::string list;
      for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
      return sdk::Unimplemented(label_ + ": attribute 'activations' [" + list +
                                "] is not supported by the CUDA (cuDNN) kernel (LSTM sigmoid/tanh/tanh, GRU sigmoid/tanh, "
                                "RNN tanh or relu for all directions); run it on CPU");
    }
    rnn_mode_ = cell_ == Cell::kLstm ? CUDNN_LSTM
                : cell_ == Cell::kGru ? CUDNN_GRU
                : names[0] == "relu"  ? CUDNN_RNN_RELU
                                      : CUDNN_RNN_TANH;
    return sdk::Status::Ok();
  }

  // Records which of W, R, B (inputs 1..3) are constant for the plan.
  sdk::Status Prepare(const sdk::PrepareContext& ctx) {
    for (size_t i = 0; i < 3; ++i) {
      const bool absent = i + 1 >= ctx.num_inputs() || ctx.InputDType(i + 1) == LOOM_DTYPE_UNDEFINED;
      constant_[i] = ctx.InputConstant(i + 1).present() || (i == 2 && absent);
    }
    return sdk::Status::Ok();
  }

  // Inputs X, W, R, B?, sequence_lens?, initial_h?, (LSTM: initial_c?, P?)
  // on the device; outputs Y?, Y_h?, (LSTM: Y_c?). Shapes as the ONNX spec
  // (see ops/rnn.cc). INVALID_ARGUMENT for bad shapes, dtypes or lengths.
  sdk::Status Compute(sdk::KernelContext& ctx) {
    const bool lstm = cell_ == Cell::kLstm;
    sdk::Tensor x = ctx.Input(0), w = ctx.Input(1), r = ctx.Input(2), b = ctx.Input(3), sl = ctx.Input(4),
                h0 = ctx.Input(5);
    sdk::Tensor c0 = lstm ? ctx.Input(6) : sdk::Tensor(), p = lstm ? ctx.Input(7) : sdk::Tensor();
    if (!x.present() || !w.present() || !r.present()) return sdk::InvalidArgument(label_ + ": X, W and R are required");
    const LoomDataType dt = x.dtype();
    if (dt != LOOM_DTYPE_FLOAT && dt != LOOM_DTYPE_DOUBLE) {
      return sdk::InvalidArgument(label_ + ": dtype " + sdk::DTypeName(dt) + " is not supported by this kernel");
    }
    const size_t esize = sdk::DTypeSize(dt);
    semantics::RnnAttrs::Shapes shapes;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.CheckInputs(label_, dt, x, w, r, b, h0, c0, p, &shapes));
    const int64_t T = shapes.T, N = shapes.N, I = shapes.I, H = shapes.H, D = shapes.D;
    const std::vector<int64_t>& state = shapes.state;
    if (p.present()) {
      return sdk::Unimplemented(label_ + ": peephole input 'P' is not supported by the CUDA (cuDNN) kernel; run it on CPU");
    }
    const int64_t kIntMax = std::numeric_limits<int32_t>::max();
    if (T > kIntMax || N > kIntMax || I > kIntMax || D * H > kIntMax) {
      return sdk::InvalidArgument(label_ + ": dims of X " + ShapeStr(x.shape()) + " / hidden size " + std::to_string(H) +
                                  " exceed cuDNN's int32 limits");
    }
    const cudaStream_t stream = static_cast<cudaStream_t>(ctx.stream());

    // Valid lengths per batch entry; each in [1, T] (as ONNX Runtime and
    // the CPU kernel). They are needed on the host for the descriptors.
    lens_.assign(static_cast<size_t>(N), static_cast<int32_t>(T));
    if (sl.present()) {
      const bool int32 = sl.dtype() == LOOM_DTYPE_INT32;
      LOOM_SDK_RETURN_IF_ERROR(semantics::CheckSequenceLensInput(label_, sl, N));
      std::vector<int64_t> read(static_cast<size_t>(N));
      if (N > 0) {
        if (int32) {
          LOOM_CUDA_RETURN_STATUS_IF_ERROR(cudaMemcpyAsync(lens_.data(), sl.raw_data(), N * sizeof(int32_t),
                                                           cudaMemcpyDeviceToHost, stream),
                                           "RNN sequence_lens read-back");
        } else {
          LOOM_CUDA_RETURN_STATUS_IF_ERROR(cudaMemcpyAsync(read.data(), sl.raw_data(), N * sizeof(int64_t),
                                                           cudaMemcpyDeviceToHost, stream),
                                           "RNN sequence_lens read-back");
        }
        LOOM_CUDA_RETURN_STATUS_IF_ERROR(cudaStreamSynchronize(stream), "RNN sequence_lens read-back");
      }
      if (int32) read.assign(lens_.begin(), lens_.end());
      LOOM_SDK_RETURN_IF_ERROR(semantics::CheckSequenceLens(label_, read, T));
      lens_.assign(read.begin(), read.end());
    }

    sdk::Tensor y, yh, yc;
    if (ctx.OutputRequested(0)) {
      LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, dt, shapes.y, &y));
    }
    if (ctx.OutputRequested(1)) LOOM_SDK_RETURN_IF_ERROR(ctx.Output(1, dt, state, &yh));
    if (lstm && ctx.OutputRequested(2)) LOOM_SDK_RETURN_IF_ERROR(ctx.Output(2, dt, state, &yc));

    if (N == 0 || H == 0) return sdk::Status::Ok();  // every output is empty
    if (T == 0) {  // no steps: Y is empty, the final states are the initial ones
      const size_t bytes = static_cast<size_t>(D * N * H) * esize;
      const sdk::Tensor* outs[2] = {&yh, &yc};
      const sdk::Tensor* inits[2] = {&h0, &c0};
      for (int i = 0; i < 2; ++i) {
        if (!outs[i]->present()) continue;
        if (inits[i]->present()) {
          LOOM_CUDA_RETURN_STATUS_IF_ERROR(cudaMemcpyAsync(outs[i]->raw_data(), inits[i]->raw_data(), bytes,
                                                           cudaMemcpyDeviceToDevice, stream),
                                           label_.c_str());
        } else {
          LOOM_CUDA_RETURN_STATUS_IF_ERROR(cudaMemsetAsync(outs[i]->raw_data(), 0, bytes, stream), label_.c_str());
        }
      }
      return sdk::Status::Ok();
    }
    if (I == 0) {
      return sdk::Unimplemented(label_ + ": input_size 0 (X " + ShapeStr(x.shape()) + ") is not supported by cuDNN");
    }

    int device = 0;
    LOOM_CUDA_RETURN_STATUS_IF_ERROR(cudaGetDevice(&device), "cudaGetDevice");
    if (device != device_) {
      ReleaseDevice();
      device_ = device;
    }
    if (last_use_ == nullptr) {
      LOOM_CUDA_RETURN_STATUS_IF_ERROR(cudaEventCreateWithFlags(&last_use_, cudaEventDisableTiming), "cudaEventCreate");
    } else if (used_) {
      // The weight space and descriptors are shared by runs that may be on
      // other streams: order this run after the previous one.
      LOOM_CUDA_RETURN_STATUS_IF_ERROR(cudaStreamWaitEvent(stream, last_use_, 0), "cudaStreamWaitEvent");
    }
    // From here on work may be queued: mark the shared state as in use by
    // this stream whatever happens next.
    struct MarkUse {
      RnnKernel* k;
      cudaStream_t s;
      ~MarkUse() { k->used_ = cudaEventRecord(k->last_use_, s) == cudaSuccess; }
    } mark{this, stream};
    cudnnHandle_t handle = nullptr;
    LOOM_SDK_RETURN_IF_ERROR(GetCudnn(stream, &handle));
    const cudnnDataType_t cdt = dt == LOOM_DTYPE_FLOAT ? CUDNN_DATA_FLOAT : CUDNN_DATA_DOUBLE;
    LOOM_SDK_RETURN_IF_ERROR(BuildPrimitive(handle, stream, cdt, esize, static_cast<int>(I), static_cast<int>(H)));

    // Gather W, R, B into the weight space: the constant ones once per
    // weight space, the others every run.
    RnnPackJobs jobs{};
    int64_t max_count = 0;
    for (const PackSlot& s : pack_) {
      if (packed_ && constant_[s.source]) continue;
      const sdk::Tensor& from = s.source == PackSlot::kW ? w : s.source == PackSlot::kR ? r : b;
      RnnPackJob& job = jobs.job[jobs.count++];
      // Absent B: a null source makes the block zeros.
      job.src = from.present() ? static_cast<const char*>(from.raw_data()) + s.src_offset * esize : nullptr;
      job.dst = s.dst;
      job.count = s.count;
      max_count = std::max(max_count, s.count);
    }
    if (jobs.count > 0) {
      LOOM_CUDA_RETURN_STATUS_IF_ERROR(LaunchRnnPack(jobs, esize, max_count, stream), "RNN weight packing");
    }
    packed_ = true;

    // Descriptors of this run's data.
    const cudnnRNNDataLayout_t data_layout =
        batch_major_ ? CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED : CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED;
    void* fill = dt == LOOM_DTYPE_FLOAT ? static_cast<void*>(&zero_f_) : static_cast<void*>(&zero_d_);
    LOOM_CUDNN_RETURN_IF_ERROR(cudnnSetRNNDataDescriptor(x_desc_.get(), cdt, data_layout, static_cast<int>(T),
                                                         static_cast<int>(N), static_cast<int>(I), lens_.data(), fill),
                               "cudnnSetRNNDataDescriptor(x)");
    LOOM_CUDNN_RETURN_IF_ERROR(cudnnSetRNNDataDescriptor(y_desc_.get(), cdt, data_layout, static_cast<int>(T),
                                                         static_cast<int>(N), static_cast<int>(D * H), lens_.data(), fill),
                               "cudnnSetRNNDataDescriptor(y)");
    if (N * H > kIntMax) return sdk::InvalidArgument(label_ + ": batch_size * hidden_size exceeds cuDNN's int32 limits");
    const int hdims[3] = {static_cast<int>(D), static_cast<int>(N), static_cast<int>(H)};
    const int hstrides[3] = {static_cast<int>(N * H), static_cast<int>(H), 1};
    LOOM_CUDNN_RETURN_IF_ERROR(cudnnSetTensorNdDescriptor(h_desc_.get(), cdt, 3, hdims, hstrides),
                               "cudnnSetTensorNdDescriptor(h)");
    size_t work_bytes = 0, reserve_bytes = 0;
    LOOM_CUDNN_RETURN_IF_ERROR(cudnnGetRNNTempSpaceSizes(handle, rnn_desc_.get(), CUDNN_FWD_MODE_INFERENCE,
                                                         x_desc_.get(), &work_bytes, &reserve_bytes),
                               "cudnnGetRNNTempSpaceSizes");

    // Temporaries, carved from the kernel's scratch buffer (256-byte aligned
    // pieces; a piece of 0 bytes is null).
    // Y: cuDNN writes [T, N, D*H] / [N, T, D*H]; directly into ONNX's Y when
    // that is the same memory order. States: cuDNN's [D, N, H]; layout 1 is
    // [N, D, H] (the same memory when D == 1).
    const bool direct_y = y.present() && !reverse_ && (D == 1 || batch_major_);
    const bool swap_states = batch_major_ && D == 2;
    const size_t state_bytes = static_cast<size_t>(D * N * H) * esize;
    size_t total = 0;
    auto piece = [&total](size_t bytes) {
      const size_t at = total;
      total += (bytes + 255) / 256 * 256;
      return bytes > 0 ? at : std::numeric_limits<size_t>::max();
    };
    const size_t at_lens = piece(N * sizeof(int32_t));
    const size_t at_work = piece(work_bytes);
    const size_t at_reserve = piece(reserve_bytes);
    const size_t at_x = piece(reverse_ ? static_cast<size_t>(T * N * I) * esize : 0);
    const size_t at_y = piece(direct_y ? 0 : static_cast<size_t>(T * N * D * H) * esize);
    const size_t at_hx = piece(swap_states && h0.present() ? state_bytes : 0);
    const size_t at_cx = piece(swap_states && c0.present() ? state_bytes : 0);
    const size_t at_hy = piece(swap_states && yh.present() ? state_bytes : 0);
    const size_t at_cy = piece(swap_states && yc.present() ? state_bytes : 0);
    LOOM_SDK_RETURN_IF_ERROR(EnsureScratch(total));
    auto place = [this](size_t at) -> void* {
      return at == std::numeric_limits<size_t>::max() ? nullptr : static_cast<char*>(scratch_) + at;
    };

    // Lengths on the device (cudnnRNNForward's devSeqLengths; the reversal).
    // lens_ is pageable: the copy stages it before returning.
    int32_t* lens_d = static_cast<int32_t*>(place(at_lens));
    LOOM_CUDA_RETURN_STATUS_IF_ERROR(
        cudaMemcpyAsync(lens_d, lens_.data(), N * sizeof(int32_t), cudaMemcpyHostToDevice, stream), "RNN lengths");

    // X: as is, or each sequence's valid prefix reversed.
    const void* x_in = x.raw_data();
    if (reverse_) {
      void* xr = place(at_x);
      LOOM_CUDA_RETURN_STATUS_IF_ERROR(LaunchRnnReverse(esize, x.raw_data(), xr, T, N, I, lens_d, batch_major_, stream),
                                       "RNN reverse X");
      x_in = xr;
    }
    void* y_out = direct_y ? y.raw_data() : place(at_y);
    // Initial states (null: zeros) and final states (null: not written).
    const void* hx = h0.present() ? h0.raw_data() : nullptr;
    const void* cx = c0.present() ? c0.raw_data() : nullptr;
    void* hy = yh.present() ? yh.raw_data() : nullptr;
    void* cy = yc.present() ? yc.raw_data() : nullptr;
    if (swap_states) {  // [N, D, H] -> [D, N, H]
      if (hx != nullptr) {
        LOOM_CUDA_RETURN_STATUS_IF_ERROR(LaunchRnnSwapMiddle(esize, hx, place(at_hx), 1, N, D, H, stream),
                                         "RNN initial_h transpose");
        hx = place(at_hx);
      }
      if (cx != nullptr) {
        LOOM_CUDA_RETURN_STATUS_IF_ERROR(LaunchRnnSwapMiddle(esize, cx, place(at_cx), 1, N, D, H, stream),
                                         "RNN initial_c transpose");
        cx = place(at_cx);
      }
      if (hy != nullptr) hy = place(at_hy);
      if (cy != nullptr) cy = place(at_cy);
    }

    LOOM_CUDNN_RETURN_IF_ERROR(
        cudnnRNNForward(handle, rnn_desc_.get(), CUDNN_FWD_MODE_INFERENCE, lens_d, x_desc_.get(), x_in, y_desc_.get(),
                        y_out, h_desc_.get(), hx, hy, h_desc_.get(), cx, cy, weight_bytes_, weights_, work_bytes,
                        place(at_work), reserve_bytes, place(at_reserve)),
        label_ + ": cudnnRNNForward");

    if (y.present() && !direct_y) {
      if (reverse_) {  // D == 1: [T, N, H] or [N, T, H] either way
        LOOM_CUDA_RETURN_STATUS_IF_ERROR(LaunchRnnReverse(esize, y_out, y.raw_data(), T, N, H, lens_d, batch_major_, stream),
                                         "RNN reverse Y");
      } else {  // bidirectional, layout 0: [T, N, D, H] -> [T, D, N, H]
        LOOM_CUDA_RETURN_STATUS_IF_ERROR(LaunchRnnSwapMiddle(esize, y_out, y.raw_data(), T, N, D, H, stream),
                                         "RNN Y transpose");
      }
    }
    if (swap_states) {  // [D, N, H] -> [N, D, H]
      if (hy != nullptr) {
        LOOM_CUDA_RETURN_STATUS_IF_ERROR(LaunchRnnSwapMiddle(esize, hy, yh.raw_data(), 1, D, N, H, stream),
                                         "RNN Y_h transpose");
      }
      if (cy != nullptr) {
        LOOM_CUDA_RETURN_STATUS_IF_ERROR(LaunchRnnSwapMiddle(esize, cy, yc.raw_data(), 1, D, N, H, stream),
                                         "RNN Y_c transpose");
      }
    }
    return sdk::Status::Ok();
  }

 private:
  // Where one block of the weight space comes from: `count` elements at
  // element offset `src_offset` of W, R or B.
  struct PackSlot {
    enum Source { kW, kR, kB } source;
    int64_t src_offset;
    int64_t count;
    void* dst;
  };

  // Makes the scratch buffer hold at least `bytes`. Its previous contents
  // may still be read by queued work of an earlier run: growing waits for it.
  sdk::Status EnsureScratch(size_t bytes) {
    if (bytes <= scratch_bytes_) return sdk::Status::Ok();
    if (scratch_ != nullptr) {
      if (used_) LOOM_CUDA_RETURN_STATUS_IF_ERROR(cudaEventSynchronize(last_use_), "cudaEventSynchronize");
      LOOM_CUDA_RETURN_STATUS_IF_ERROR(cudaFree(scratch_), "cudaFree");
      scratch_ = nullptr;
      scratch_bytes_ = 0;
    }
    LOOM_CUDA_RETURN_STATUS_IF_ERROR(cudaMalloc(&scratch_, bytes), "cudaMalloc(RNN scratch)");
    scratch_bytes_ = bytes;
    return sdk::Status::Ok();
  }

  // Frees what belongs to the current GPU once its queued work is done.
  void ReleaseDevice() {
    if (last_use_ != nullptr) {
      if (used_) cudaEventSynchronize(last_use_);
      cudaEventDestroy(last_use_);
      last_use_ = nullptr;
    }
    used_ = false;
    if (weights_ != nullptr) cudaFree(weights_);
    weights_ = nullptr;
    weight_bytes_ = 0;
    if (scratch_ != nullptr) cudaFree(scratch_);
    scratch_ = nullptr;
    scratch_bytes_ = 0;
    key_.clear();
    pack_.clear();
  }

  // Builds (once per dtype, input and hidden size) the RNN descriptor, the
  // weight space and the map from ONNX W/R/B blocks to it.
  sdk::Status BuildPrimitive(cudnnHandle_t handle, cudaStream_t stream, cudnnDataType_t cdt, size_t esize, int I,
                             int H) {
    const std::vector<int64_t> key = {static_cast<int64_t>(cdt), I, H};
    if (key == key_) return sdk::Status::Ok();
    key_.clear();
    pack_.clear();
    packed_ = false;
    if (x_desc_.get() == nullptr) {
      LOOM_CUDNN_RETURN_IF_ERROR(cudnnCreateRNNDataDescriptor(x_desc_.out()), "cudnnCreateRNNDataDescriptor");
    }
    if (y_desc_.get() == nullptr) {
      LOOM_CUDNN_RETURN_IF_ERROR(cudnnCreateRNNDataDescriptor(y_desc_.out()), "cudnnCreateRNNDataDescriptor");
    }
    if (h_desc_.get() == nullptr) {
      LOOM_CUDNN_RETURN_IF_ERROR(cudnnCreateTensorDescriptor(h_desc_.out()), "cudnnCreateTensorDescriptor");
    }
    if (rnn_desc_.get() == nullptr) {
      LOOM_CUDNN_RETURN_IF_ERROR(cudnnCreateRNNDescriptor(rnn_desc_.out()), "cudnnCreateRNNDescriptor");
    }
    if (dropout_desc_.get() == nullptr) {
      LOOM_CUDNN_RETURN_IF_ERROR(cudnnCreateDropoutDescriptor(dropout_desc_.out()), "cudnnCreateDropoutDescriptor");
      // Dropout 0 needs no random states (it only applies between layers).
      const cudnnStatus_t st = cudnnSetDropoutDescriptor(dropout_desc_.get(), handle, 0.0f, nullptr, 0, 0);
      if (st != CUDNN_STATUS_SUCCESS) {
        dropout_desc_.reset();  // retried on the next run
        return CudnnStatus(st, "cudnnSetDropoutDescriptor");
      }
    }
    const cudnnDirectionMode_t dir_mode = dirs_ == 2 ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL;
    auto set = [&](cudnnMathType_t math) {
      return cudnnSetRNNDescriptor_v8(rnn_desc_.get(), CUDNN_RNN_ALGO_STANDARD, rnn_mode_, CUDNN_RNN_DOUBLE_BIAS, dir_mode,
                                      CUDNN_LINEAR_INPUT, cdt, cdt, math, I, H, /*projSize=*/H, /*numLayers=*/1,
                                      dropout_desc_.get(), CUDNN_RNN_PADDED_IO_ENABLED);
    };
    // float32: FMA math keeps full fp32 precision (the default allows TF32
    // on Ampere and later); if a cuDNN build refuses it, take the default.
    cudnnStatus_t st = set(cdt == CUDNN_DATA_FLOAT ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH);
    if (st != CUDNN_STATUS_SUCCESS && cdt == CUDNN_DATA_FLOAT) st = set(CUDNN_DEFAULT_MATH);
    LOOM_CUDNN_RETURN_IF_ERROR(st, label_ + ": cudnnSetRNNDescriptor_v8");

    size_t bytes = 0;
    LOOM_CUDNN_RETURN_IF_ERROR(cudnnGetRNNWeightSpaceSize(handle, rnn_desc_.get(), &bytes), "cudnnGetRNNWeightSpaceSize");
    if (bytes != weight_bytes_) {
      if (weights_ != nullptr) {
        // cudaFree is not stream-ordered: wait for runs still reading it.
        if (used_) LOOM_CUDA_RETURN_STATUS_IF_ERROR(cudaEventSynchronize(last_use_), "cudaEventSynchronize");
        LOOM_CUDA_RETURN_STATUS_IF_ERROR(cudaFree(weights_), "cudaFree");
        weights_ = nullptr;
        weight_bytes_ = 0;
      }
      if (bytes > 0) LOOM_CUDA_RETURN_STATUS_IF_ERROR(cudaMalloc(&weights_, bytes), "cudaMalloc(RNN weight space)");
      weight_bytes_ = bytes;
    }
    // Zero once: alignment gaps between blocks stay zero.
    if (weight_bytes_ > 0) {
      LOOM_CUDA_RETURN_STATUS_IF_ERROR(cudaMemsetAsync(weights_, 0, weight_bytes_, stream), "cudaMemsetAsync");
    }

    TensorDescriptor m_desc, b_desc;
    LOOM_CUDNN_RETURN_IF_ERROR(cudnnCreateTensorDescriptor(m_desc.out()), "cudnnCreateTensorDescriptor");
    LOOM_CUDNN_RETURN_IF_ERROR(cudnnCreateTensorDescriptor(b_desc.out()), "cudnnCreateTensorDescriptor");
    const int* lin = cell_ == Cell::kLstm ? kLstmLinLayer : cell_ == Cell::kGru ? kGruLinLayer : kRnnLinLayer;
    const int64_t G = gates_, GH = G * H;
    char* const base = static_cast<char*>(weights_);
    // Checks that a block cuDNN reports has `want` elements and lies inside
    // the weight space.
    auto check = [&](cudnnTensorDescriptor_t desc, void* addr, int64_t want, const std::string& what) -> sdk::Status {
      cudnnDataType_t got_dt;
      int nd = 0, dims[8] = {}, strides[8] = {};
      LOOM_CUDNN_RETURN_IF_ERROR(cudnnGetTensorNdDescriptor(desc, 8, &got_dt, &nd, dims, strides),
                                 "cudnnGetTensorNdDescriptor");
      // Packed row-major (strides of size-1 dims do not matter): then the
      // ONNX block copies in flat.
      int64_t count = nd > 0 ? 1 : 0;
      bool packed = true;
      for (int i = std::min(nd, 8) - 1; i >= 0; --i) {
        if (dims[i] > 1 && strides[i] != count) packed = false;
        count *= dims[i];
      }
      const char* a = static_cast<const char*>(addr);
      if (addr == nullptr || count != want || !packed || got_dt != cdt || a < base ||
          static_cast<size_t>(a - base) + static_cast<size_t>(want) * esize > weight_bytes_) {
        return sdk::Internal(label_ + ": cuDNN reports " + what + " with " + std::to_string(count) + " elements (" +
                             std::to_string(nd) + "-D, " + (packed ? "packed" : "not packed") + ") at offset " +
                             (addr ? std::to_string(a - base) : std::string("null")) + "; expected " +
                             std::to_string(want) + " inside a weight space of " + std::to_string(weight_bytes_) +
                             " bytes");
      }
      return sdk::Status::Ok();
    };
    for (int64_t d = 0; d < dirs_; ++d) {
      for (int64_t k = 0; k < G; ++k) {
        for (int rec = 0; rec < 2; ++rec) {  // 0: W (input GEMM), 1: R (recurrent GEMM)
          const int lin_id = lin[k] + rec * static_cast<int>(G);
          const int64_t in = rec ? H : I;
          void *m_addr = nullptr, *b_addr = nullptr;
          LOOM_CUDNN_RETURN_IF_ERROR(cudnnGetRNNWeightParams(handle, rnn_desc_.get(), static_cast<int32_t>(d),
                                                             weight_bytes_, weights_, lin_id, m_desc.get(), &m_addr,
                                                             b_desc.get(), &b_addr),
                                     "cudnnGetRNNWeightParams");
          const std::string what = "pseudo-layer " + std::to_string(d) + " linLayerID " + std::to_string(lin_id);
          LOOM_SDK_RETURN_IF_ERROR(check(m_desc.get(), m_addr, H * in, what + " matrix"));
          LOOM_SDK_RETURN_IF_ERROR(check(b_desc.get(), b_addr, H, what + " bias"));
          // ONNX: W/R [D, G*H, in] row-major, gate k rows [k*H, (k+1)*H);
          // B [D, 2*G*H] = [Wb (G*H), Rb (G*H)] per direction.
          pack_.push_back({rec ? PackSlot::kR : PackSlot::kW, (d * GH + k * H) * in, H * in, m_addr});
          pack_.push_back({PackSlot::kB, d * 2 * GH + rec * GH + k * H, H, b_addr});
        }
      }
    }
    if (pack_.size() > static_cast<size_t>(kMaxRnnPackJobs)) {
      pack_.clear();
      return sdk::Internal(label_ + ": too many weight blocks");
    }
    key_ = key;
    return sdk::Status::Ok();
  }

  std::string label_;
  semantics::RnnAttrs attrs_;  // the ONNX attributes (the members below copy the ones the run uses)
  Cell cell_ = Cell::kLstm;
  int64_t gates_ = 4, dirs_ = 1, hidden_ = -1;
  bool reverse_ = false, batch_major_ = false;
  cudnnRNNMode_t rnn_mode_ = CUDNN_LSTM;

  // Device state (GPU device_), rebuilt when key_ (dtype, I, H) changes.
  int device_ = -1;
  std::vector<int64_t> key_;
  DropoutDescriptor dropout_desc_;  // declared before rnn_desc_: destroyed after it
  RnnDescriptor rnn_desc_;
  RnnDataDescriptor x_desc_, y_desc_;
  TensorDescriptor h_desc_;
  void* weights_ = nullptr;
  size_t weight_bytes_ = 0;
  std::vector<PackSlot> pack_;
  bool constant_[3] = {false, false, false};  // W, R, B (indexed by PackSlot::Source) constant for the plan
  bool packed_ = false;                       // the constant blocks are in the weight space
  void* scratch_ = nullptr;  // temporaries of a run (grow-only)
  size_t scratch_bytes_ = 0;
  cudaEvent_t last_use_ = nullptr;  // recorded after each run's work
  bool used_ = false;               // last_use_ has been recorded
  std::vector<int32_t> lens_;       // host lengths of the current run
  float zero_f_ = 0.0f;             // paddingFill values
  double zero_d_ = 0.0;
};

}  // namespace

sdk::Status RegisterRnnKernels(sdk::Registrar& reg) {
  const std::vector<LoomDataType> types = {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE};
  for (const char* op : {"LSTM", "GRU", "RNN"}) {
    LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<RnnKernel>(op, {"CUDA", "", 0, {{"T", types}}}));
  }
  return sdk::Status::Ok();
}

}  // namespace cuda
}  // namespace loom
