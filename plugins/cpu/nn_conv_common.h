// What the CPU Conv/FusedConv (nn_conv.cc) and ConvTranspose
// (nn_conv_transpose.cc) kernels share: operands X, W and optional B; a
// oneDNN primitive that chooses its own layouts for X, W and Y, with reorders
// in and out (none for NchwcConv, whose X and Y are blocked already); the kernel lifecycle of ABI 2 (Prepare configures for the
// planned shapes and packs a constant W once; Compute reconfigures only when
// the shapes change and repacks a W that is not constant on every run).
#ifndef LOOM_PLUGINS_CPU_NN_CONV_COMMON_H_
#define LOOM_PLUGINS_CPU_NN_CONV_COMMON_H_

#include <string>
#include <unordered_map>
#include <vector>

#include "plugins/cpu/dnnl_common.h"
#include "plugins/cpu/dnnl_fpmath.h"

namespace loom {
namespace cpu {

// ONNX ConvTranspose's W [C, M / G, k...] as oneDNN's deconvolution
// weights [G,] O, I, k... over the same bytes: [G, C / G, M / G, k...] with
// the I and O strides swapped (for the forward and the gradient kernels).
inline dnnl::memory::desc ConvTransposeWeightsDesc(const std::vector<int64_t>& ws, int64_t group) {
  const int64_t C = ws[0], Mg = ws[1], G = group, M = Mg * G;
  const std::vector<int64_t> k(ws.begin() + 2, ws.end());
  int64_t K = 1;
  for (int64_t d : k) K *= d;
  std::vector<int64_t> wdims, wstrides;
  if (G > 1) {
    wdims = {G, Mg, C / G};
    wstrides = {(C / G) * Mg * K, K, Mg * K};
  } else {
    wdims = {M, C};
    wstrides = {K, M * K};
  }
  wdims.insert(wdims.end(), k.begin(), k.end());
  const dnnl::memory::dims kstrides = PlainStrides(k);
  wstrides.insert(wstrides.end(), kstrides.begin(), kstrides.end());
  return dnnl::memory::desc(Dims(wdims), dnnl::memory::data_type::f32, Dims(wstrides));
}

// Derived provides
//   Status Configure(xs, ws, bs, threads);  // checks, sets ys_, builds via Bind
// Attrs reads the window attributes: Status Read(info, label).
template <class Derived, class Attrs>
class ConvLikeKernel {
 public:
  // label_, group (>= 1), whether the optional B is given, and the window
  // attributes.
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("group", &group_));
    if (group_ < 1) return sdk::InvalidArgument(label_ + ": group must be >= 1; found " + std::to_string(group_));
    has_b_ = info.num_inputs() > 2 && !info.input_name(2).empty();
    return attrs_.Read(info, label_);
  }

  Status Prepare(const sdk::PrepareContext& ctx) {
    compute_ = ComputeDataType(ctx);
    if (ctx.InputDType(0) == LOOM_DTYPE_DOUBLE) return Status::Ok();  // plain loops at compute, W kept
    const Tensor w = ctx.InputConstant(1);
    w_constant_ = w.present();
    std::vector<int64_t> xs, ws, bs;
    if (!ctx.InputShape(0, &xs) || !ctx.InputShape(1, &ws) || (has_b_ && !ctx.InputShape(2, &bs))) {
      return Status::Ok();  // sized at the first run
    }
    LOOM_SDK_RETURN_IF_ERROR(Self().Configure(xs, ws, bs, ctx.num_threads()));
    if (w_constant_ && ready_) {
      // Packed once for every kernel that packs this W the same way, in
      // memory from the core (a large W gets huge pages, core/device.cc);
      // a core before ABI 8, or a W already in the primitive's layout,
      // gets the kernel's own copy.
      LOOM_SDK_RETURN_IF_ERROR(
          PackConstantShared(ctx, 1, label_, w_mem_.get_desc(), w_blk_md_, run_threads_, &w_pack_, &w_blk_));
      if (w_pack_.empty()) {
        LOOM_SDK_RETURN_IF_ERROR(PackWeights(w));
      } else {
        w_packed_ = true;
      }
      // Compute reads only the packed copy: the core may free W
      // (static_shape nets).
      ctx.ReleaseConstant(1);
      w_released_ = true;
    }
    return Status::Ok();
  }

 protected:
  using memory = dnnl::memory;

  // Reconfigures unless X, W, B and the threads are what the primitive was
  // configured for, then sizes Y.
  Status Begin(KernelContext& ctx, const Tensor& x, const Tensor& w, const Tensor& b, Tensor* y) {
    const int threads = ctx.num_threads();
    // A W released after packing may be freed by now (static_shape nets):
    // its shape is ws_ and it cannot be packed again.
    const bool w_freed = FreedAfterPacking(w_released_, w, ws_);
    const bool w_changed = !w_freed && !ShapeIs(w, ws_);
    if (!ShapeIs(x, xs_) || w_changed || (has_b_ && !ShapeIs(b, bs_)) || threads != threads_ || !configured_) {
      if (w_freed) return PackedInputFreedError(label_, "W", "X", xs_, threads_, x.shape(), threads);
      LOOM_SDK_RETURN_IF_ERROR(
          Self().Configure(x.shape(), w.shape(), has_b_ ? b.shape() : std::vector<int64_t>{}, threads));
    }
    return ctx.Output(0, LOOM_DTYPE_FLOAT, ys_, y);
  }

  // Records the shapes configured for (before the primitive is built).
  void Configured(const std::vector<int64_t>& xs, const std::vector<int64_t>& ws, const std::vector<int64_t>& bs,
                  const std::vector<int64_t>& ys, int threads) {
    xs_ = xs;
    ws_ = ws;
    bs_ = bs;
    ys_ = ys;
    threads_ = threads;
    run_threads_ = threads;
    configured_ = true;
  }

  // Takes the primitive made from `pd` (oneDNN's layouts; its attributes
  // from UserScratchpad) for the plain descriptors of X, W, Y (Y may be a
  // scratch shape) and B.
  template <class PrimitiveDesc, class Primitive>
  void Bind(const PrimitiveDesc& pd, const memory::desc& x_md, const memory::desc& w_md, const memory::desc& y_md,
            const memory::desc& b_md) {
    prim_ = Primitive(pd);
    x_mem_ = UnboundMemory(x_md);
    w_mem_ = UnboundMemory(w_md);
    y_mem_ = UnboundMemory(y_md);
    b_mem_ = UnboundMemory(b_md);
    x_reorder_ = pd.src_desc() != x_md;
    y_reorder_ = pd.dst_desc() != y_md;
    // X and Y in oneDNN's layouts live in per-run scratch (Ctx_Scratch, the
    // net's pool), not in the kernel: every conv keeping two activations
    // for the net's life was most of a CNN's memory.
    x_blk_ = x_reorder_ ? UnboundMemory(pd.src_desc()) : memory();
    y_blk_ = y_reorder_ ? UnboundMemory(pd.dst_desc()) : memory();
    // W in the primitive's layout: allocated when first packed (PackWeights),
    // or the shared copy Prepare makes.
    w_blk_md_ = pd.weights_desc();
    w_blk_ = memory();
    w_pack_.Reset();
    if (x_reorder_) x_to_blk_ = dnnl::reorder(dnnl::reorder::primitive_desc(DnnlEngine(), x_md, DnnlEngine(), pd.src_desc()));
    if (y_reorder_) y_from_blk_ = dnnl::reorder(dnnl::reorder::primitive_desc(DnnlEngine(), pd.dst_desc(), DnnlEngine(), y_md));
    w_to_blk_ = dnnl::reorder(dnnl::reorder::primitive_desc(DnnlEngine(), w_md, DnnlEngine(), pd.weights_desc()));
    scratchpad_.Reset(pd.scratchpad_desc());
  }

  // A oneDNN memory descriptor of `md`'s dims and `dt` whose layout the
  // primitive chooses.
  static memory::desc Any(const memory::desc& md, memory::data_type dt = memory::data_type::f32) {
    return memory::desc(md.dims(), dt, memory::format_tag::any);
  }

  // Runs the primitive from X's buffer into `dst` (Y or a scratch buffer of
  // the configured computed shape), packing W first unless it is packed.
  Status Execute(KernelContext& ctx, const Tensor& x, const Tensor& w, const Tensor& b, void* dst, int threads) {
    if (!w_packed_) LOOM_SDK_RETURN_IF_ERROR(PackWeights(w));
    if (x_reorder_) LOOM_SDK_RETURN_IF_ERROR(BindScratch(ctx, &x_blk_));
    if (y_reorder_) LOOM_SDK_RETURN_IF_ERROR(BindScratch(ctx, &y_blk_));
    if (!w_constant_) w_packed_ = false;  // W may change before the next run
    x_mem_.set_data_handle(x.raw_data());
    y_mem_.set_data_handle(dst);
    if (x_reorder_) LOOM_SDK_RETURN_IF_ERROR(DnnlExecute(label_, x_to_blk_, {{DNNL_ARG_FROM, x_mem_}, {DNNL_ARG_TO, x_blk_}}, threads));
    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, x_reorder_ ? x_blk_ : x_mem_},
                                            {DNNL_ARG_WEIGHTS, w_blk_},
                                            {DNNL_ARG_DST, y_reorder_ ? y_blk_ : y_mem_}};
    if (has_b_ && bias_in_primitive_) {
      b_mem_.set_data_handle(b.raw_data());
      args[DNNL_ARG_BIAS] = b_mem_;
    }
    LOOM_SDK_RETURN_IF_ERROR(scratchpad_.Bind(ctx, &args));
    LOOM_SDK_RETURN_IF_ERROR(DnnlExecute(label_, prim_, args, threads));
    if (y_reorder_) LOOM_SDK_RETURN_IF_ERROR(DnnlExecute(label_, y_from_blk_, {{DNNL_ARG_FROM, y_blk_}, {DNNL_ARG_TO, y_mem_}}, threads));
    return Status::Ok();
  }

  // Points `m` at scratch of its size for this compute call.
  // Reorders W into the primitive's weight layout.
  Status PackWeights(const Tensor& w) {
    if (!w_blk_) w_blk_ = memory(w_blk_md_, DnnlEngine());
    w_mem_.set_data_handle(w.raw_data());
    LOOM_SDK_RETURN_IF_ERROR(DnnlExecute(label_, w_to_blk_, {{DNNL_ARG_FROM, w_mem_}, {DNNL_ARG_TO, w_blk_}}, run_threads_));
    w_packed_ = true;
    return Status::Ok();
  }

  // Starts a configuration: nothing is valid until Configured (and Bind).
  void Reset() {
    configured_ = ready_ = w_packed_ = false;
    bias_in_primitive_ = true;
  }

  std::string label_;
  // What X and W are convolved in (dnnl_fpmath.h): f32, or bf16 where the
  // net's fpmath_mode allows it; set in Prepare.
  memory::data_type compute_ = memory::data_type::f32;
  int64_t group_ = 1;
  bool has_b_ = false;
  bool bias_in_primitive_ = true;  // false: the kernel adds B itself after Execute
  Attrs attrs_;
  // What the primitive was configured for.
  std::vector<int64_t> xs_, ws_, bs_, ys_;
  int threads_ = 0;      // the context's (the configuration's key)
  int run_threads_ = 0;  // what the primitives were made and run with (Conv: 1 for a small one)
  bool configured_ = false;  // shapes checked and Y sized
  bool ready_ = false;       // primitive built (something is computed)
  bool w_constant_ = false;  // W is an initializer: packed once per configuration
  bool w_packed_ = false;    // w_blk_ holds W for the current primitive
  bool w_released_ = false;  // packed in Prepare and let go of (ReleaseConstant)
  dnnl::primitive prim_;
  memory x_mem_, w_mem_, y_mem_, b_mem_;  // the tensors (plain layouts)
  memory x_blk_, w_blk_, y_blk_;          // oneDNN's chosen layouts
  memory::desc w_blk_md_;                 // w_blk_'s
  sdk::SharedPack w_pack_;                // holds w_blk_'s memory when W is shared-packed
  DnnlScratchpad scratchpad_;              // pd made with UserScratchpad
  dnnl::reorder x_to_blk_, w_to_blk_, y_from_blk_;
  bool x_reorder_ = false, y_reorder_ = false;

 private:
  Derived& Self() { return static_cast<Derived&>(*this); }
};

}  // namespace cpu
}  // namespace loom

#endif  // LOOM_PLUGINS_CPU_NN_CONV_COMMON_H_
