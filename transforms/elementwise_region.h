// A region of float element-wise ops that computes one tensor from one
// other, evaluated on one value at a time: what the QDQ rewrite
// (fuse_qdq.h) needs to turn DequantizeLinear -> float ops ->
// QuantizeLinear into a 256-entry table (QLinearLookup), as ONNX Runtime
// computes its QLinearSigmoid and QLinearLeakyRelu by a table. The ops may
// form a DAG (paddle2onnx's HardSwish is y * Clip(y + 3, 0, 6) / 6, reading
// y twice), every value depending on the one input and on scalar constants.
#ifndef LOOM_TRANSFORMS_ELEMENTWISE_REGION_H_
#define LOOM_TRANSFORMS_ELEMENTWISE_REGION_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/proto/loom.pb.h"
#include "ops/semantics/activation.h"

namespace loom {
namespace transforms {

class ElementwiseRegion {
 public:
  // The region of `net`'s top level that computes `output` from one
  // non-constant tensor, its input(): the ops walked back from `output`
  // until the output of a DequantizeLinear (that is the input; a
  // DequantizeLinear of a one-element constant is a constant). Every op
  // must be one of
  //   Relu, LeakyRelu, Sigmoid, Tanh, HardSigmoid, HardSwish, Clip (constant
  //   bounds), Neg, Abs, Exp, Log, Sqrt, Reciprocal, Erf, Identity,
  //   Add, Sub, Mul, Div, Max, Min (two operands)
  // with ONNX's attributes and defaults, its other operands one-element
  // float32 constants of rank 0 or 1 (so broadcasting them changes no shape
  // of a tensor of rank >= 1); every value an op writes is read only by the
  // region's ops (`reads` from CollectReads), but `output`, which the
  // caller checks; at most `max_ops` ops. `producer`: the index of the op
  // writing each blob. nullopt otherwise. `output` itself a DequantizeLinear's
  // output gives an empty region (the identity).
  static std::optional<ElementwiseRegion> Find(const NetDef& net, const std::map<std::string, int>& reads,
                                               const std::map<std::string, int>& producer, const std::string& output,
                                               int max_ops = 32);

  // Whether `op` is of a type a region may hold (the list above).
  static bool Evaluates(const OperatorDef& op);
  // Whether `reader`, reading `value`, may extend a region computing
  // `value`: it Evaluates and its other operands are scalar constants.
  static bool Extends(const NetDef& net, const std::map<std::string, int>& producer, const OperatorDef& reader,
                      const std::string& value);

  // The tensor the region computes from.
  const std::string& input() const { return input_; }
  // Its ops' indices in `net`, ascending.
  const std::vector<int>& ops() const { return ops_; }

  // The region's output for an input element `x`, each op in float32 with
  // its ONNX definition.
  float Eval(float x) const;

 private:
  struct Step {
    std::string type;
    semantics::FusedActivation activation;  // the activations' kinds (FusedConv's set)
    // Operands: slot >= 0 (a value computed before), or -1 and the constant.
    int slot[2] = {-1, -1};
    float constant[2] = {0, 0};
    int arity = 1;
  };

  std::string input_;
  std::vector<int> ops_;
  std::vector<Step> steps_;  // one per op, in order; step k writes slot k + 1 (slot 0: the input)
};

}  // namespace transforms
}  // namespace loom

#endif  // LOOM_TRANSFORMS_ELEMENTWISE_REGION_H_
