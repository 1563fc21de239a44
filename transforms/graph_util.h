// Small helpers for the graph rewrites of transforms/ (the folds, fusions,
// NCHWc layout and BatchNormalization training rewrites): who reads what,
// attributes, and scalar constants.
#ifndef LOOM_TRANSFORMS_GRAPH_UTIL_H_
#define LOOM_TRANSFORMS_GRAPH_UTIL_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/proto/loom.pb.h"
#include "core/proto_io.h"
#include "core/tensor.h"

namespace loom {
namespace transforms {

// How many times each blob is read anywhere in `net` (nested nets and net
// outputs count too).
inline void CollectReads(const NetDef& net, std::map<std::string, int>* reads) {
  for (const OperatorDef& op : net.op()) {
    for (const std::string& in : op.input()) {
      if (!in.empty()) ++(*reads)[in];
    }
    for (const Argument& a : op.arg()) {
      if (a.has_n()) CollectReads(a.n(), reads);
      for (const NetDef& n : a.nets()) CollectReads(n, reads);
    }
  }
  for (const std::string& out : net.external_output()) ++(*reads)[out];
}

inline const Argument* FindArg(const OperatorDef& op, const std::string& name) {
  for (const Argument& a : op.arg()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

inline float FloatArg(const OperatorDef& op, const std::string& name, float dflt) {
  const Argument* a = FindArg(op, name);
  return a != nullptr && a->has_f() ? a->f() : dflt;
}

inline bool HasNonZeroInt(const OperatorDef& op, const std::string& name) {
  const Argument* a = FindArg(op, name);
  return a != nullptr && a->i() != 0;
}

// The initializer named `name` unless it is also a net input (a caller may
// feed another value, so it is no constant); nullptr otherwise.
const TensorProto* ConstantInitializer(const NetDef& net, const std::string& name);

// Whether `op` is the ONNX op `type` (default domain, "" or "ai.onnx").
inline bool IsOnnxOp(const OperatorDef& op, const std::string& type) {
  return op.type() == type && (op.domain().empty() || op.domain() == "ai.onnx");
}

// The value of the initializer `name` unless it is also a net input (a
// caller may feed another value); nullopt otherwise, for "" and for an
// initializer that does not parse.
std::optional<Tensor> ConstantValue(const NetDef& net, const std::string& name);

// The value of a one-element float32 initializer named `name` of rank at most
// `max_rank` (so broadcasting it changes no shape of that rank); nullopt
// otherwise, and for an initializer that is also a net input (a caller may
// feed another value).
inline std::optional<float> ScalarInitializer(const NetDef& net, const std::string& name, int max_rank) {
  const TensorProto* t = ConstantInitializer(net, name);
  if (t == nullptr || t->data_type() != static_cast<int>(DataType::kFloat32) || t->dims_size() > max_rank) {
    return std::nullopt;
  }
  auto v = TensorFromProto(*t);
  if (!v.ok() || v->num_elements() != 1) return std::nullopt;
  return v->data<float>()[0];
}

// A float32 initializer named `name` that broadcasts onto a tensor
// [N, channels, d...] of rank `rank` along the channel axis alone (numpy
// rules): one element of rank at most `rank` (a scalar), or `channels`
// elements whose dims, aligned to the right of the tensor's, are 1 except at
// the channel axis ([channels, 1, 1] or [1, channels, 1, 1] for rank 4).
// Returns its value per channel (`channels` values); nullopt otherwise, and
// for an initializer that is also a net input.
std::optional<std::vector<float>> ChannelInitializer(const NetDef& net, const std::string& name, int rank,
                                                     int64_t channels);

// The op that reads `name`, when exactly one op reads it once and it is not
// a net output (`reads` from CollectReads); -1 otherwise.
int SoleReader(const NetDef& net, const std::map<std::string, int>& reads, const std::string& name);

// The initializer named `name`, or nullptr.
const TensorProto* FindInitializer(const NetDef& net, const std::string& name);

// Keeps the ops of `net` not in `removed`, in order, and drops initializers
// nothing reads any more (those that are net inputs stay).
void RemoveOps(NetDef* net, const std::set<int>& removed);

// Clip's bounds: attributes (opset < 11) or constant scalar inputs (11+);
// absent ones are the float range. False if a bound input is not a constant.
bool ClipBounds(const NetDef& net, const OperatorDef& clip, float* lo, float* hi);

// The parameters semantics::FusedActivation::Parse takes for activation
// `act`: LeakyRelu's alpha, HardSigmoid's alpha and beta (ONNX's defaults
// where absent), Clip's bounds (ClipBounds); none for the others. False
// when Clip's bounds are not constants.
bool ActivationParams(const NetDef& net, const OperatorDef& act, std::vector<float>* params);

// The weights W and bias B [M] (zeros when absent) of a Conv (W [M, ...])
// or a ConvTranspose of group 1 (W [C, M, ...]) when both are float32
// initializers; false otherwise.
bool ConstantConvParams(const NetDef& net, const OperatorDef& conv, Tensor* w, Tensor* b);

// M, the output channels of `conv` (a Conv or ConvTranspose) with weights w.
int64_t ConvOutputChannels(const OperatorDef& conv, const Tensor& w);

// Folds a per-output-channel affine map that follows op `conv_index` (a Conv
// or ConvTranspose of group 1 whose W and B are `w`, `b`) into it: W[o] (a
// ConvTranspose's W[:, o]) * scale[o] and
// B[o] * scale[o] + shift[o] become new initializers "<name>_W" / "<name>_B",
// and the Conv writes `output`.
void FoldAffineIntoConv(NetDef* net, int conv_index, const Tensor& w, const Tensor& b, const std::vector<double>& scale,
                        const std::vector<double>& shift, const std::string& output, const std::string& name);

}  // namespace transforms
}  // namespace loom

#endif  // LOOM_TRANSFORMS_GRAPH_UTIL_H_
