// Schemas of ONNX's random generators: RandomUniform, RandomNormal,
// RandomUniformLike, RandomNormalLike (opset 1) and Bernoulli (opset 15).
// Seeding (the kernels' rule, plugins/cpu/random.cc): one generator per op
// instance, seeded with `seed` when given; values drawn one after another in
// row-major order, so the same seed gives the same values on any thread
// count, and each run continues the op's stream.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

const char kSeedDoc[] =
    "seed:float?|seeds the op's generator (truncated to an integer); absent: a random seed per op instance";

sdk::Status CheckDType(int64_t dt, const std::vector<LoomDataType>& ok) {
  if (std::find(ok.begin(), ok.end(), static_cast<LoomDataType>(dt)) == ok.end()) {
    return sdk::InvalidArgument("output dtype " + sdk::TypeName(static_cast<LoomDataType>(dt)) +
                                " (attribute 'dtype', or the input's without it) is not one this op makes");
  }
  return sdk::Status::Ok();
}

// RandomUniform / RandomNormal: dtype and shape from the attributes.
sdk::Status InferRandom(sdk::InferenceContext& ctx) {
  const int64_t dt = ctx.info().IntOr("dtype", LOOM_DTYPE_FLOAT);
  LOOM_SDK_RETURN_IF_ERROR(CheckDType(dt, FloatTypes()));
  std::vector<int64_t> shape;
  LOOM_SDK_RETURN_IF_ERROR(ctx.info().GetInts("shape", &shape));
  for (int64_t d : shape) {
    if (d < 0) return sdk::InvalidArgument("attribute 'shape' has a negative dim " + std::to_string(d));
  }
  ctx.SetOutputDType(0, static_cast<LoomDataType>(dt));
  ctx.SetOutputShape(0, shape);
  return sdk::Status::Ok();
}

// *Like and Bernoulli: input 0's shape; dtype from the attribute, else
// input 0's.
sdk::Status InferLikeInput(sdk::InferenceContext& ctx) {
  const bool bernoulli = ctx.info().op_type() == "Bernoulli";
  const int64_t dt = ctx.info().IntOr("dtype", ctx.InputDType(0));
  std::vector<LoomDataType> ok = FloatTypes();
  if (bernoulli) ok = AllTypes();
  LOOM_SDK_RETURN_IF_ERROR(CheckDType(dt, ok));
  ctx.SetOutputDType(0, static_cast<LoomDataType>(dt));
  std::vector<int64_t> s;
  if (ctx.InputShape(0, &s)) ctx.SetOutputShape(0, s);
  return sdk::Status::Ok();
}

}  // namespace

sdk::Status RegisterRandomSchemas(sdk::Registrar& reg) {
  const std::string uniform = "U(low, high): uniform over [low, high)";
  const std::string normal = "N(mean, scale^2): normal with mean `mean` and standard deviation `scale`";
  return RegisterOps(
      reg,
      {{"RandomUniform", 1, "ONNX RandomUniform-1: a tensor of `shape` drawn from " + uniform + ".", {},
        {"output:T|shape"}, {{"T", FloatTypes()}},
        {"dtype:int=1|float types (ONNX TensorProto.DataType)", "high:float=1|upper bound, exclusive",
         "low:float=0|lower bound", kSeedDoc, "shape:ints!|the output's shape"},
        Fn<&InferRandom>()},
       {"RandomNormal", 1, "ONNX RandomNormal-1: a tensor of `shape` drawn from " + normal + ".", {},
        {"output:T|shape"}, {{"T", FloatTypes()}},
        {"dtype:int=1|float types", "mean:float=0|the mean", "scale:float=1|the standard deviation", kSeedDoc,
         "shape:ints!|the output's shape"},
        Fn<&InferRandom>()},
       {"RandomUniformLike", 1, "ONNX RandomUniformLike-1: input's shape drawn from " + uniform + ".",
        {"input:T1|only its shape (and dtype, without `dtype`) matters"}, {"output:T2|input's shape"},
        {{"T1", AllTypes()}, {"T2", FloatTypes()}},
        {"dtype:int?|float types; default input's", "high:float=1|upper bound, exclusive", "low:float=0|lower bound",
         kSeedDoc},
        Fn<&InferLikeInput>()},
       {"RandomNormalLike", 1, "ONNX RandomNormalLike-1: input's shape drawn from " + normal + ".",
        {"input:T1|only its shape (and dtype, without `dtype`) matters"}, {"output:T2|input's shape"},
        {{"T1", AllTypes()}, {"T2", FloatTypes()}},
        {"dtype:int?|float types; default input's", "mean:float=0|the mean", "scale:float=1|the standard deviation",
         kSeedDoc},
        Fn<&InferLikeInput>()},
       {"Bernoulli", 15,
        "ONNX Bernoulli-15: output[i] = 1 with probability input[i] (u < p for u drawn from U(0, 1)), else 0.",
        {"input:T1|probabilities in [0, 1]"}, {"output:T2|input's shape"}, {{"T1", FloatTypes()}, {"T2", AllTypes()}},
        {"dtype:int?|the output's dtype (any numeric or bool); default input's", kSeedDoc}, Fn<&InferLikeInput>()}});
}

}  // namespace ops
}  // namespace loom
