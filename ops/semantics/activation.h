// FusedConv's activation (the Conv + activation fusion,
// transforms/fuse_conv_activation.h): which ONNX activation, its parameters
// from `activation_params`, and its value per element. Shared by every
// device's FusedConv kernel.
#ifndef LOOM_OPS_SEMANTICS_ACTIVATION_H_
#define LOOM_OPS_SEMANTICS_ACTIVATION_H_

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"

namespace loom {
namespace semantics {

struct FusedActivation {
  enum Kind { kNone, kRelu, kLeakyRelu, kClip, kSigmoid, kTanh, kHardSigmoid, kHardSwish };
  Kind kind = kNone;
  float alpha = 0, beta = 0;  // LeakyRelu: alpha; Clip: min, max; HardSigmoid: alpha, beta

  // Reads `activation` and `activation_params` (ONNX defaults where the
  // params are absent); INVALID_ARGUMENT for an unknown name or a wrong
  // parameter count. Clip with min > max gives max everywhere (ONNX), so the
  // bounds are made equal.
  sdk::Status Read(const sdk::KernelInfo& info, const std::string& label) {
    std::string name;
    LOOM_SDK_RETURN_IF_ERROR(info.GetString("activation", &name));
    std::vector<float> p;
    if (info.Has("activation_params")) LOOM_SDK_RETURN_IF_ERROR(info.GetFloats("activation_params", &p));
    return Set(name, p, label);
  }

  // The same from the attribute values themselves.
  sdk::Status Set(const std::string& name, const std::vector<float>& p, const std::string& label) {
    std::string error;
    if (!Parse(name, p, &error)) return sdk::InvalidArgument(label + ": " + error);
    return sdk::Status::Ok();
  }

  // Set's rule without the SDK's status (the fusion in transforms/ uses
  // it): false with `error` set for an unknown name or a wrong
  // parameter count.
  bool Parse(const std::string& name, const std::vector<float>& p, std::string* error) {
    *this = FusedActivation();
    size_t want = 0;
    if (name == "Relu") {
      kind = kRelu;
    } else if (name == "LeakyRelu") {
      kind = kLeakyRelu, want = 1, alpha = 0.01f;
    } else if (name == "Clip") {
      kind = kClip, want = 2, alpha = std::numeric_limits<float>::lowest(), beta = std::numeric_limits<float>::max();
    } else if (name == "Sigmoid") {
      kind = kSigmoid;
    } else if (name == "Tanh") {
      kind = kTanh;
    } else if (name == "HardSigmoid") {
      kind = kHardSigmoid, want = 2, alpha = 0.2f, beta = 0.5f;
    } else if (name == "HardSwish") {
      kind = kHardSwish;
    } else {
      *error = "activation must be Relu, LeakyRelu, Clip, Sigmoid, Tanh, HardSigmoid or HardSwish; found '" + name + "'";
      return false;
    }
    if (!p.empty() && p.size() != want) {
      *error = "activation_params for " + name + " must have " + std::to_string(want) + " values; found " +
               std::to_string(p.size());
      return false;
    }
    if (p.size() >= 1) alpha = p[0];
    if (p.size() >= 2) beta = p[1];
    if (kind == kClip && alpha > beta) alpha = beta;
    return true;
  }

  // Whether the derivative can be had from the activation's output alone,
  // which is what the backward pass of FusedConv keeps (the pre-activation
  // is never stored): every kind but HardSwish (not monotonic), and
  // LeakyRelu only with alpha >= 0 (a negative alpha makes Y > 0 on both
  // sides of 0). The fusion fuses only these in a net that trains
  // (transforms::OptimizeOptions::training).
  bool HasDerivativeFromOutput() const { return kind != kHardSwish && !(kind == kLeakyRelu && alpha < 0); }

  // dY/dX at the X that gave `y`, for a kind with HasDerivativeFromOutput().
  // At the kinks PyTorch's choices: Relu and LeakyRelu take the negative
  // side at 0; Clip and HardSigmoid pass the gradient strictly inside their
  // linear range only (PyTorch's hardtanh / hardsigmoid backward).
  double DerivativeFromOutput(double y) const {
    switch (kind) {
      case kNone: return 1.0;
      case kRelu: return y > 0 ? 1.0 : 0.0;
      case kLeakyRelu: return y > 0 ? 1.0 : alpha;
      case kClip: return y > alpha && y < beta ? 1.0 : 0.0;
      case kSigmoid: return y * (1.0 - y);
      case kTanh: return 1.0 - y * y;
      case kHardSigmoid: return y > 0 && y < 1 ? alpha : 0.0;
      case kHardSwish: return 0.0;  // not derivable from Y; see HasDerivativeFromOutput
    }
    return 1.0;
  }

  // The activation of one value (ONNX semantics of the named op).
  float Apply(float x) const {
    switch (kind) {
      case kNone: return x;
      case kRelu: return x > 0 ? x : 0.0f;
      case kLeakyRelu: return x < 0 ? alpha * x : x;
      case kClip: return std::min(std::max(x, alpha), beta);
      case kSigmoid: return 1.0f / (1.0f + std::exp(-x));
      case kTanh: return std::tanh(x);
      case kHardSigmoid: return std::max(0.0f, std::min(1.0f, alpha * x + beta));
      case kHardSwish: return x * std::max(0.0f, std::min(1.0f, x / 6.0f + 0.5f));
    }
    return x;
  }
};

}  // namespace semantics
}  // namespace loom

#endif  // LOOM_OPS_SEMANTICS_ACTIVATION_H_
