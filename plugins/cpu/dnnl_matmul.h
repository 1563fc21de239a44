// One oneDNN matmul primitive (float32 tensors) over buffers bound at each
// run: src A, weights B, dst Y and an optional bias. B is read as the tensor
// holds it, or from a copy packed once from a constant input into the layout
// the primitive picks, shared with every kernel that packs it the same way
// (PackConstantShared, ABI 8). With the net's fpmath_mode bf16
// (dnnl_fpmath.h) A and B are multiplied as bf16: A is rounded into per-run
// scratch, a constant B packed as bf16, a B that is not constant rounded
// every run; Y and the bias stay float32. Gemm, MatMul and FC
// (math_gemm_matmul.cc) each hold one and keep their own shape rules,
// attributes and empty-size cases; DynamicQuantizeMatMul
// (quantized_dynamic_matmul.cc) holds one over int8 operands.
#ifndef LOOM_PLUGINS_CPU_DNNL_MATMUL_H_
#define LOOM_PLUGINS_CPU_DNNL_MATMUL_H_

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "plugins/cpu/dnnl_common.h"
#include "plugins/cpu/dnnl_fpmath.h"

namespace loom {
namespace cpu {

class DnnlMatmul {
 public:
  using memory = dnnl::memory;

  // In Prepare, before Build: what A and B are multiplied in from now on
  // (the net's fpmath_mode, dnnl_fpmath.h).
  void SetComputeType(const sdk::PrepareContext& ctx) { compute_ = ComputeDataType(ctx); }

  // Drops the primitive and any packed copy (before a new configuration).
  void Reset() {
    prim_ = dnnl::matmul();
    pack_.Reset();
    packed_mem_ = memory();
  }

  // Builds the primitive; call it inside DnnlCreate (oneDNN throws). `b` is
  // B as the tensor holds it; with `pack` the primitive picks B's layout,
  // for PackConstant. `bias`: a zero desc for none. `attr`: output scales
  // and post-ops (a user scratchpad is added).
  void Build(const memory::desc& a, const memory::desc& b, bool pack, const memory::desc& bias, const memory::desc& y,
             const dnnl::primitive_attr& attr) {
    b_plain_md_ = b;
    // bf16 (float32 operands only): A and B rounded, in the layouts the
    // matmul picks.
    const bool f32 = compute_ == memory::data_type::f32 || a.data_type() != memory::data_type::f32;
    const memory::desc a_md = f32 ? a : memory::desc(a.dims(), compute_, memory::format_tag::any);
    const memory::desc b_md =
        pack || !f32 ? memory::desc(b.dims(), f32 ? b.data_type() : compute_, memory::format_tag::any) : b;
    const dnnl::matmul::desc d = bias.is_zero() ? dnnl::matmul::desc(a_md, b_md, y) : dnnl::matmul::desc(a_md, b_md, bias, y);
    dnnl::matmul::primitive_desc pd(d, UserScratchpad(attr), DnnlEngine());
    prim_ = dnnl::matmul(pd);
    scratchpad_.Reset(pd.scratchpad_desc());
    b_md_ = pd.weights_desc();
    a_.Make(a, pd.src_desc(), true);
    b_.Make(b, f32 ? b : b_md_, true);  // B not packed: as it is (f32), rounded per run (bf16)
    y_mem_ = UnboundMemory(y);
    bias_mem_ = bias.is_zero() ? memory() : UnboundMemory(bias);
  }

  bool built() const { return static_cast<bool>(prim_); }

  // In Prepare, after a Build with `pack`: copies the constant input `index`
  // (B) into the primitive's layout, shared, and lets go of the input
  // (Compute reads the copy only). False when no copy was made (B not
  // constant, already in that layout, a core before ABI 8, or packing
  // failed): the kernel then rebuilds without `pack` and reads B as it is.
  bool PackConstant(const sdk::PrepareContext& ctx, size_t index, const std::string& label, int threads) {
    const Status packed = PackConstantShared(ctx, index, label, b_plain_md_, b_md_, threads, &pack_, &packed_mem_);
    if (!packed.ok() || pack_.empty()) return false;
    ctx.ReleaseConstant(index);
    released_ = true;
    return true;
  }

  // After a Build with `pack`: copies B, as the tensor holds it at `b` (a
  // slice of a constant: one direction's weights of a recurrent op), into
  // the primitive's layout in memory of this object's own.
  Status PackOwn(const std::string& label, int threads, const void* b) {
    return DnnlCreate(label, threads, [&] {
      packed_mem_ = memory(b_md_, DnnlEngine());
      memory from(b_plain_md_, DnnlEngine(), const_cast<void*>(b));
      dnnl::reorder(from, packed_mem_).execute(DnnlStream(), from, packed_mem_);
      DnnlStream().wait();
    });
  }

  // B was let go of after packing and the net has freed it (static_shape):
  // `b` reads as empty where `packed_shape` was not (FreedAfterPacking).
  bool BFreed(const sdk::Tensor& b, const std::vector<int64_t>& packed_shape) const {
    return FreedAfterPacking(released_, b, packed_shape);
  }

  // Binds A, B (unless packed), Y, the bias (with a bias desc) and per-call
  // scratch, adds `extra` (post-op operands) and runs the primitive.
  Status Execute(sdk::KernelContext& ctx, const std::string& label, int threads, const void* a, const void* b, void* y,
                 const void* bias = nullptr, std::unordered_map<int, memory> extra = {}) {
    memory a_used, b_used = packed_mem_;
    LOOM_SDK_RETURN_IF_ERROR(a_.Bind(ctx, const_cast<void*>(a), &a_used));
    LOOM_SDK_RETURN_IF_ERROR(a_.ReorderIn(label, threads));
    if (!packed_mem_) {
      LOOM_SDK_RETURN_IF_ERROR(b_.Bind(ctx, const_cast<void*>(b), &b_used));
      LOOM_SDK_RETURN_IF_ERROR(b_.ReorderIn(label, threads));
    }
    y_mem_.set_data_handle(y);
    std::unordered_map<int, memory> args = std::move(extra);
    args[DNNL_ARG_SRC] = a_used;
    args[DNNL_ARG_WEIGHTS] = b_used;
    args[DNNL_ARG_DST] = y_mem_;
    if (bias_mem_) {
      bias_mem_.set_data_handle(const_cast<void*>(bias));
      args[DNNL_ARG_BIAS] = bias_mem_;
    }
    LOOM_SDK_RETURN_IF_ERROR(scratchpad_.Bind(ctx, &args));
    return DnnlExecute(label, prim_, args, threads);
  }

 private:
  dnnl::matmul prim_;
  DnnlScratchpad scratchpad_;
  memory::data_type compute_ = memory::data_type::f32;  // SetComputeType's
  DnnlOperand a_, b_;               // A and B as the tensors hold them, and rounded to bf16
  memory y_mem_, bias_mem_;
  memory::desc b_plain_md_, b_md_;  // B as it is; B as the matmul reads it
  sdk::SharedPack pack_;            // a constant B packed in Prepare, shared
  memory packed_mem_;               // over pack_, or PackOwn's; B is read as it is without one
  bool released_ = false;           // B let go of after packing
};

}  // namespace cpu
}  // namespace loom

#endif  // LOOM_PLUGINS_CPU_DNNL_MATMUL_H_
