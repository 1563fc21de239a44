// ONNX LSTM / GRU / RNN (opset 7-14) attribute parsing shared by every
// recurrent kernel (the CPU oneDNN kernel, the STEPNET kernel of the rnn
// plugin, the CUDA cuDNN kernel): direction, hidden_size, layout, clip,
// input_forget, linear_before_reset, and the activations with their
// activation_alpha / activation_beta.
#ifndef LOOM_OPS_SEMANTICS_RNN_H_
#define LOOM_OPS_SEMANTICS_RNN_H_

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "ops/semantics/common.h"

namespace loom {
namespace semantics {

enum class RnnCell { kLstm, kGru, kRnn };

// The cell of an "LSTM", "GRU" or "RNN" node (Loom's DynamicQuantizeLSTM
// and DynamicQuantizeGRU: theirs).
inline RnnCell RnnCellOf(const std::string& op_type) {
  return op_type == "LSTM" || op_type == "DynamicQuantizeLSTM"  ? RnnCell::kLstm
         : op_type == "GRU" || op_type == "DynamicQuantizeGRU" ? RnnCell::kGru
                                                                : RnnCell::kRnn;
}

// One ONNX activation function with its alpha/beta.
struct RnnActivation {
  std::string name;  // canonical ONNX name: "Relu", "Affine", ...
  double alpha = 0, beta = 0;
};

// Parses an ONNX activation name (case-insensitive, as ONNX Runtime does).
// Functions with parameters take the next activation_alpha/_beta values in
// order, or ONNX Runtime's defaults when the lists run out. False for an
// unknown name.
inline bool ParseRnnActivation(const std::string& name, const std::vector<float>& alphas, size_t* ai,
                               const std::vector<float>& betas, size_t* bi, RnnActivation* out) {
  struct Entry {
    const char* name;
    int params;
    double alpha, beta;
  };
  static const Entry kTable[] = {
      {"Relu", 0, 0, 0},          {"Tanh", 0, 0, 0},          {"Sigmoid", 0, 0, 0},      {"Affine", 2, 1, 0},
      {"LeakyRelu", 1, 0.01, 0},  {"ThresholdedRelu", 1, 1, 0}, {"ScaledTanh", 2, 1, 1}, {"HardSigmoid", 2, 0.2, 0.5},
      {"Elu", 1, 1, 0},           {"Softsign", 0, 0, 0},      {"Softplus", 0, 0, 0},
  };
  auto lower = [](std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
  };
  const std::string key = lower(name);
  for (const Entry& e : kTable) {
    if (key != lower(e.name)) continue;
    out->name = e.name;
    out->alpha = e.alpha;
    out->beta = e.beta;
    if (e.params >= 1 && *ai < alphas.size()) out->alpha = alphas[(*ai)++];
    if (e.params >= 2 && *bi < betas.size()) out->beta = betas[(*bi)++];
    return true;
  }
  return false;
}

// The attributes of one ONNX LSTM / GRU / RNN node.
struct RnnAttrs {
  RnnCell cell = RnnCell::kLstm;
  int64_t gates = 4;              // ONNX gates: LSTM 4 (i, o, f, c), GRU 3 (z, r, h), RNN 1
  size_t acts_per_dir = 3;        // activations per direction: LSTM f, g, h; GRU f, g; RNN f
  std::string direction = "forward";
  int64_t num_directions = 1;     // 2 for bidirectional
  bool reverse = false;           // direction == "reverse"
  int64_t hidden_size = -1;       // -1: not given
  bool batch_major = false;       // layout 1
  bool has_clip = false;
  float clip = 0;
  bool input_forget = false;         // LSTM only
  bool linear_before_reset = false;  // GRU only
  // Per direction (direction-major), acts_per_dir each; one direction's list
  // serves both when only that many are given; ONNX's defaults (Sigmoid,
  // Tanh, Tanh / Sigmoid, Tanh / Tanh) when none are.
  std::vector<RnnActivation> activations;

  // Reads the attributes of a `cell` node. INVALID_ARGUMENT, naming `label`,
  // for an unknown direction, a layout other than 0 or 1, a non-positive
  // clip, a wrong number of activations or an unknown activation.
  sdk::Status Read(const sdk::KernelInfo& info, const std::string& label, RnnCell c) {
    cell = c;
    gates = cell == RnnCell::kLstm ? 4 : cell == RnnCell::kGru ? 3 : 1;
    acts_per_dir = cell == RnnCell::kLstm ? 3 : cell == RnnCell::kGru ? 2 : 1;
    direction = info.StringOr("direction", "forward");
    if (direction != "forward" && direction != "reverse" && direction != "bidirectional") {
      return sdk::InvalidArgument(label + ": direction must be forward, reverse or bidirectional; found '" +
                                  direction + "'");
    }
    num_directions = direction == "bidirectional" ? 2 : 1;
    reverse = direction == "reverse";
    hidden_size = info.IntOr("hidden_size", -1);
    const int64_t layout = info.IntOr("layout", 0);
    if (layout != 0 && layout != 1) {
      return sdk::InvalidArgument(label + ": layout must be 0 or 1; found " + std::to_string(layout));
    }
    batch_major = layout == 1;
    has_clip = info.Has("clip");
    clip = info.FloatOr("clip", 0.0f);
    if (has_clip && !(clip > 0)) {
      return sdk::InvalidArgument(label + ": clip must be positive; found " + std::to_string(clip));
    }
    input_forget = cell == RnnCell::kLstm && info.IntOr("input_forget", 0) != 0;
    linear_before_reset = cell == RnnCell::kGru && info.IntOr("linear_before_reset", 0) != 0;

    std::vector<std::string> names;
    if (info.Has("activations")) LOOM_SDK_RETURN_IF_ERROR(info.GetStrings("activations", &names));
    if (names.empty()) {
      names = cell == RnnCell::kLstm  ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
              : cell == RnnCell::kGru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                      : std::vector<std::string>{"Tanh"};
    }
    const size_t dirs = static_cast<size_t>(num_directions);
    if (names.size() == acts_per_dir && dirs == 2) {  // one list serves both directions
      const std::vector<std::string> one = names;
      names.insert(names.end(), one.begin(), one.end());
    }
    if (names.size() != acts_per_dir * dirs) {
      return sdk::InvalidArgument(label + ": activations needs " + std::to_string(acts_per_dir * dirs) +
                                  " entries for " + std::to_string(dirs) + " direction(s); found " +
                                  std::to_string(names.size()));
    }
    const std::vector<float> alphas = info.FloatsOr("activation_alpha", {});
    const std::vector<float> betas = info.FloatsOr("activation_beta", {});
    size_t ai = 0, bi = 0;
    activations.assign(names.size(), RnnActivation());
    for (size_t i = 0; i < names.size(); ++i) {
      if (!ParseRnnActivation(names[i], alphas, &ai, betas, &bi, &activations[i])) {
        return sdk::InvalidArgument(label + ": unknown activation '" + names[i] + "'");
      }
    }
    return sdk::Status::Ok();
  }

  // The sizes of one run: T (seq_length), N (batch), I (input), H (hidden,
  // from R), D (directions), G (gates); `state` is initial_h's / Y_h's shape
  // ([D, N, H], layout 1 [N, D, H]) and `y` Y's ([T, D, N, H], layout 1
  // [N, T, D, H]).
  struct Shapes {
    int64_t T = 0, N = 0, I = 0, H = 0, D = 1, G = 1;
    std::vector<int64_t> state, y;
  };

  // The sizes of a run over X of shape `xs` (3-D: [T, N, I], layout 1
  // [N, T, I]) with hidden size `H`, and the output shapes (Y: s.y; Y_h,
  // Y_c: s.state).
  Shapes ShapesOf(const std::vector<int64_t>& xs, int64_t H) const {
    Shapes s;
    s.T = batch_major ? xs[1] : xs[0];
    s.N = batch_major ? xs[0] : xs[1];
    s.I = xs[2];
    s.H = H;
    s.D = num_directions;
    s.G = gates;
    s.state = batch_major ? std::vector<int64_t>{s.N, s.D, H} : std::vector<int64_t>{s.D, s.N, H};
    s.y = batch_major ? std::vector<int64_t>{s.N, s.T, s.D, H} : std::vector<int64_t>{s.T, s.D, s.N, H};
    return s;
  }

  // Checks the inputs X, W, R and the optional B, initial_h, initial_c, P
  // (absent: not present()) against each other and hidden_size, all of
  // dtype `dt`. INVALID_ARGUMENT naming `label` and the input otherwise.
  sdk::Status CheckInputs(const std::string& label, LoomDataType dt, const sdk::Tensor& x, const sdk::Tensor& w,
                          const sdk::Tensor& r, const sdk::Tensor& b, const sdk::Tensor& h0, const sdk::Tensor& c0,
                          const sdk::Tensor& p, Shapes* s) const {
    if (x.rank() != 3) return sdk::InvalidArgument(label + ": X must be 3-D; found " + ShapeStr(x.shape()));
    if (r.rank() != 3) {
      return sdk::InvalidArgument(label + ": R must be 3-D [num_directions, G*hidden, hidden]; found " +
                                  ShapeStr(r.shape()));
    }
    *s = ShapesOf(x.shape(), r.dim(2));
    const int64_t I = s->I, H = s->H, D = s->D, G = s->G;
    if (hidden_size >= 0 && hidden_size != H) {
      return sdk::InvalidArgument(label + ": hidden_size is " + std::to_string(hidden_size) + " but R " +
                                  ShapeStr(r.shape()) + " has hidden size " + std::to_string(H));
    }
    auto check = [&](const char* name, const sdk::Tensor& t, const std::vector<int64_t>& want) -> sdk::Status {
      if (!t.present()) return sdk::Status::Ok();
      if (t.dtype() != dt) {
        return sdk::InvalidArgument(label + ": " + name + " must have X's dtype " + sdk::DTypeName(dt) + "; found " +
                                    sdk::DTypeName(t.dtype()));
      }
      if (t.shape() != want) {
        return sdk::InvalidArgument(label + ": " + name + " must have shape " + ShapeStr(want) + "; found " +
                                    ShapeStr(t.shape()));
      }
      return sdk::Status::Ok();
    };
    LOOM_SDK_RETURN_IF_ERROR(check("W", w, {D, G * H, I}));
    LOOM_SDK_RETURN_IF_ERROR(check("R", r, {D, G * H, H}));
    LOOM_SDK_RETURN_IF_ERROR(check("B", b, {D, 2 * G * H}));
    LOOM_SDK_RETURN_IF_ERROR(check("initial_h", h0, s->state));
    LOOM_SDK_RETURN_IF_ERROR(check("initial_c", c0, s->state));
    return check("P", p, {D, 3 * H});
  }
};

// sequence_lens: a present input must be an int32 (or int64) vector of
// batch size N. INVALID_ARGUMENT naming `label` otherwise.
inline sdk::Status CheckSequenceLensInput(const std::string& label, const sdk::Tensor& sl, int64_t N) {
  const bool ints = sl.dtype() == LOOM_DTYPE_INT32 || sl.dtype() == LOOM_DTYPE_INT64;
  if (sl.rank() != 1 || sl.dim(0) != N || !ints) {
    return sdk::InvalidArgument(label + ": sequence_lens must be an int32 vector of batch_size " + std::to_string(N) +
                                "; found " + sdk::DTypeName(sl.dtype()) + ShapeStr(sl.shape()));
  }
  return sdk::Status::Ok();
}

// Each valid length in [1, T] (as ONNX Runtime). INVALID_ARGUMENT naming
// `label` and the first one outside.
inline sdk::Status CheckSequenceLens(const std::string& label, const std::vector<int64_t>& lens, int64_t T) {
  for (size_t n = 0; n < lens.size(); ++n) {
    if (lens[n] < 1 || lens[n] > T) {
      return sdk::InvalidArgument(label + ": sequence_lens[" + std::to_string(n) + "] = " + std::to_string(lens[n]) +
                                  " is outside [1, seq_length = " + std::to_string(T) + "]");
    }
  }
  return sdk::Status::Ok();
}

}  // namespace semantics
}  // namespace loom

#endif  // LOOM_OPS_SEMANTICS_RNN_H_
