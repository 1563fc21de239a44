#include "core/autodiff/gradient.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "core/autodiff/backward.h"
#include "core/op_instance.h"
#include "core/status_bridge.h"

namespace loom {

absl::StatusOr<OpGradient> MakeOpGradient(const CheckedOp& op, const std::vector<std::string>& output_grads,
                                          const std::vector<std::string>& input_grads, const std::string& temp_prefix,
                                          const Registry* registry) {
  LoomGradientFn maker = op.schema != nullptr ? op.schema->gradient : nullptr;
  // A maker a plugin registered apart from the schema (ABI 7).
  if (maker == nullptr && registry != nullptr && op.schema != nullptr) maker = registry->FindGradient(*op.schema);
  if (maker == nullptr) {
    return absl::UnimplementedError(absl::StrCat(op.label, ": no gradient is implemented for ", op.info->op.type(),
                                                 " (no gradient maker is registered for it)"));
  }
  LoomGradientContext ctx;
  ctx.info = op.info.get();
  ctx.output_grads = output_grads;
  ctx.input_grads = input_grads;
  ctx.no_gradient.assign(input_grads.size(), false);
  ctx.temp_prefix = temp_prefix;
  if (registry != nullptr) {
    ctx.net_backward = [registry](const NetDef& net, const std::vector<std::string>& outputs,
                                  const std::vector<std::string>& output_grads, const std::vector<std::string>& wrt,
                                  NetDef* backward, std::vector<std::string>* wrt_grads) {
      return NetBackward(*registry, net, outputs, output_grads, wrt, backward, wrt_grads);
    };
  }
  absl::Status s = FromLoomStatus(maker(&ctx));
  if (!s.ok()) {
    return absl::Status(s.code(), absl::StrCat(op.label, ": gradient: ", s.message()));
  }
  // A maker names the ops it emits by type (Grad_AddOp has no domain): one
  // that the forward op's domain defines is taken from there, so that two
  // plugins' ScaleGradient ops of two domains stay apart.
  if (registry != nullptr && op.schema != nullptr && !op.schema->domain.empty()) {
    for (OperatorDef& o : ctx.ops) {
      if (o.domain().empty() && registry->FindSchema(op.schema->domain, o.type()) != nullptr) {
        o.set_domain(op.schema->domain);
      }
    }
  }
  OpGradient g;
  std::set<std::string> outputs;
  for (const OperatorDef& o : ctx.ops) outputs.insert(o.output().begin(), o.output().end());
  g.written.assign(input_grads.size(), false);
  g.no_gradient = ctx.no_gradient;
  for (size_t i = 0; i < input_grads.size(); ++i) {
    if (input_grads[i].empty() || ctx.no_gradient[i]) continue;
    g.written[i] = outputs.count(input_grads[i]) > 0;
    if (!g.written[i]) {
      return absl::InvalidArgumentError(absl::StrCat(op.label, ": the gradient maker of ", op.info->op.type(),
                                                     " wrote no gradient for input ", i, " '", op.info->op.input(i),
                                                     "' and did not mark it NoGradient"));
    }
  }
  g.ops = std::move(ctx.ops);
  return g;
}

}  // namespace loom
