// ONNX If (opset 1-16, tensor outputs): runs then_branch or else_branch in a
// child workspace of the op's and copies the branch's outputs to the op's.
// Each branch is checked and planned on its first run and reused after.
#include "plugins/controlflow/body.h"
#include "plugins/controlflow/controlflow_ops.h"

namespace loom {
namespace controlflow {
namespace {

class IfKernel {
 public:
  sdk::Status Init(const sdk::KernelInfo& info) {
    label_ = "If '" + info.op_name() + "'";
    LOOM_SDK_RETURN_IF_ERROR(then_.Init(info, "then_branch", label_, 0, info.num_outputs()));
    return else_.Init(info, "else_branch", label_, 0, info.num_outputs());
  }

  sdk::Status Compute(sdk::KernelContext& ctx) {
    sdk::Tensor cond = ctx.Input(0);
    if (cond.num_elements() != 1) {
      return sdk::InvalidArgument(label_ + ": input 'cond' must hold one element, found " +
                                  std::to_string(cond.num_elements()));
    }
    Body& branch = *cond.data<bool>() ? then_ : else_;
    LOOM_SDK_RETURN_IF_ERROR(branch.Run(ctx));
    for (size_t i = 0; i < ctx.num_outputs(); ++i) {
      const LoomTensor* value = nullptr;
      LOOM_SDK_RETURN_IF_ERROR(branch.Output(ctx, i, &value));
      LOOM_SDK_RETURN_IF_ERROR(CopyToOutput(ctx, i, value));
    }
    return sdk::Status::Ok();
  }

 private:
  std::string label_;
  Body then_, else_;
};

sdk::Status InferIf(sdk::InferenceContext& ctx) {
  std::vector<std::pair<size_t, size_t>> map;
  for (size_t i = 0; i < ctx.num_outputs(); ++i) map.push_back({i, i});
  return InferFromBody(ctx, "then_branch", map);
}

}  // namespace

sdk::Status RegisterIf(sdk::Registrar& reg) {
  sdk::SchemaBuilder s("If");
  s.Doc("ONNX If (opset 16, tensor outputs only): runs then_branch when cond is true, else else_branch, in a child "
        "workspace that sees the enclosing net's blobs; outputs are the branch's outputs (shapes may differ between "
        "branches, dtypes are then_branch's declared ones).")
      .SinceVersion(1)
      .Input("cond", "B", LOOM_PARAM_SINGLE, "bool tensor with one element")
      .Output("outputs", "any", LOOM_PARAM_VARIADIC, "the branch's outputs, in order")
      .TypeConstraint("B", {LOOM_DTYPE_BOOL}, "condition")
      .Infer<&InferIf>()
      .Attr("then_branch", LOOM_ATTR_NET, true, "net run when cond is true; as many outputs as the op")
      .Attr("else_branch", LOOM_ATTR_NET, true, "net run when cond is false; as many outputs as the op");
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  return reg.Kernel<IfKernel>("If");
}

}  // namespace controlflow
}  // namespace loom
