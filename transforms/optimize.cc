#include "transforms/optimize.h"

#include "transforms/batchnorm_training.h"
#include "transforms/fold_batchnorm.h"
#include "transforms/fuse_dynamic_quant.h"
#include "transforms/fuse_conv_activation.h"
#include "transforms/fuse_elementwise.h"
#include "transforms/fuse_qdq.h"
#include "transforms/int8_channels_last.h"
#include "transforms/nchwc_layout.h"

namespace loom {
namespace transforms {
namespace {

int RunNameRunningStatistics(NetDef* net, const OptimizeOptions&) { return NameRunningStatistics(net); }

int RunFuseQdq(NetDef* net, const OptimizeOptions&) { return FuseQdq(net); }

int RunInt8ChannelsLast(NetDef* net, const OptimizeOptions&) { return Int8ChannelsLast(net); }

int RunFuseDynamicQuant(NetDef* net, const OptimizeOptions&) { return FuseDynamicQuant(net); }

int RunFoldIntoConv(NetDef* net, const OptimizeOptions&) {
  // Alternately: a BatchNormalization after a folded Add (PP-OCR's
  // ConvTranspose -> Add(bias) -> BatchNormalization) folds next round.
  int total = 0;
  for (int n = 1; n > 0; total += n) n = FoldBatchNormIntoConv(net) + FoldConvScalarAffine(net);
  return total;
}

int RunFuseHardSwish(NetDef* net, const OptimizeOptions&) { return FuseHardSwish(net); }

int RunFuseConvActivation(NetDef* net, const OptimizeOptions& options) {
  return FuseConvActivation(net, options.training);
}

int RunNchwcLayout(NetDef* net, const OptimizeOptions& options) {
  const int64_t block = options.nchwc_block < 0 ? NchwcBlockForThisCpu() : options.nchwc_block;
  if (block == 0) return 0;
  const int rewrites = PropagateNchwcLayout(net, block, options.winograd);
  if (rewrites > 0) FuseConvActivation(net);  // activations after fused residual Adds
  return rewrites;
}

}  // namespace

const std::vector<Pass>& Passes() {
  static const std::vector<Pass> kPasses = {
      {"name_running_statistics", 0, true, true, "", &RunNameRunningStatistics},
      {"fuse_qdq", 1, false, false, "CPU", &RunFuseQdq},
      {"int8_channels_last", 1, false, false, "CPU", &RunInt8ChannelsLast},
      {"fuse_dynamic_quant", 1, false, false, "CPU", &RunFuseDynamicQuant},
      {"fold_into_conv", 1, false, false, "", &RunFoldIntoConv},
      {"fuse_hard_swish", 1, false, false, "", &RunFuseHardSwish},
      {"fuse_conv_activation", 1, true, false, "", &RunFuseConvActivation},
      {"nchwc_layout", 1, false, false, "CPU", &RunNchwcLayout},
  };
  return kPasses;
}

std::vector<std::pair<std::string, int>> Optimize(NetDef* net, const OptimizeOptions& options) {
  const std::string device = options.device.empty() ? "CPU" : options.device;
  std::vector<std::pair<std::string, int>> ran;
  for (const Pass& pass : Passes()) {
    if (pass.level > options.level) continue;
    if (pass.training_only && !options.training) continue;
    if (options.training && !pass.gradient_safe) continue;
    if (pass.device[0] != '\0' && device.rfind(pass.device, 0) != 0) continue;  // "CPU" and "CPU:0"
    ran.emplace_back(pass.name, pass.run(net, options));
  }
  return ran;
}

}  // namespace transforms
}  // namespace loom
