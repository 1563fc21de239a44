// CUDA elementwise family against the CPU kernels on random inputs:
// broadcasting binary ops and every unary op, float32 and float16.
#include <string>

#include "plugins/cuda/cuda_test_util.h"

namespace loom {
namespace {

using testing::ExpectCudaMatchesCpu;
using testing::ParseOp;
using testing::RandomTensor;

TEST(CudaElementwiseTest, BinaryOpsBroadcast) {
  LOOM_SKIP_WITHOUT_GPU();
  for (const char* op : {"Add", "Sub", "Mul", "Div", "PRelu"}) {
    for (DataType dt : {DataType::kFloat32, DataType::kFloat16}) {
      OperatorDef def = ParseOp(std::string("type: '") + op + "' input: 'a' input: 'b' output: 'c'");
      ExpectCudaMatchesCpu(def, {RandomTensor(dt, {2, 3, 4, 5}, 1), RandomTensor(dt, {3, 1, 5}, 2, 0.5, 2.0)},
                           dt == DataType::kFloat16 ? 1e-2 : 1e-5, dt == DataType::kFloat16 ? 1e-2 : 1e-6);
      ExpectCudaMatchesCpu(def, {RandomTensor(dt, {}, 3), RandomTensor(dt, {7}, 4, 0.5, 2.0)}, 1e-2, 1e-2);
      ExpectCudaMatchesCpu(def, {RandomTensor(dt, {0, 3}, 5), RandomTensor(dt, {3}, 6)});
    }
  }
}

TEST(CudaElementwiseTest, UnaryOps) {
  LOOM_SKIP_WITHOUT_GPU();
  const char* ops[] = {"Relu", "Sigmoid", "Tanh", "Exp", "Neg", "Abs", "Floor", "Ceil", "Erf", "Softplus",
                       "Softsign", "Identity"};
  for (const char* op : ops) {
    ExpectCudaMatchesCpu(ParseOp(std::string("type: '") + op + "' input: 'x' output: 'y'"),
                         {RandomTensor(DataType::kFloat32, {4, 33}, 7, -3, 3)});
  }
  for (const char* op : {"Log", "Sqrt", "Reciprocal"}) {
    ExpectCudaMatchesCpu(ParseOp(std::string("type: '") + op + "' input: 'x' output: 'y'"),
                         {RandomTensor(DataType::kFloat32, {4, 33}, 8, 0.1, 3)});
  }
  ExpectCudaMatchesCpu(ParseOp("type: 'LeakyRelu' input: 'x' output: 'y' arg { name: 'alpha' f: 0.3 }"),
                       {RandomTensor(DataType::kFloat32, {100}, 9)});
  ExpectCudaMatchesCpu(ParseOp("type: 'Elu' input: 'x' output: 'y' arg { name: 'alpha' f: 0.7 }"),
                       {RandomTensor(DataType::kFloat32, {100}, 10)});
  ExpectCudaMatchesCpu(ParseOp("type: 'Selu' input: 'x' output: 'y'"), {RandomTensor(DataType::kFloat32, {100}, 11)});
  ExpectCudaMatchesCpu(ParseOp("type: 'HardSigmoid' input: 'x' output: 'y'"),
                       {RandomTensor(DataType::kFloat32, {100}, 12, -5, 5)});
  ExpectCudaMatchesCpu(ParseOp("type: 'Clip' input: 'x' input: 'lo' input: 'hi' output: 'y'"),
                       {RandomTensor(DataType::kFloat32, {100}, 13, -2, 2), Tensor::FromVector<float>({}, {-0.5f}),
                        Tensor::FromVector<float>({}, {0.75f})});
}

TEST(CudaElementwiseTest, PowAndVariadicOps) {
  LOOM_SKIP_WITHOUT_GPU();
  ExpectCudaMatchesCpu(ParseOp("type: 'Pow' input: 'x' input: 'y' output: 'z'"),
                       {RandomTensor(DataType::kFloat32, {3, 4}, 20, 0.1, 2), RandomTensor(DataType::kFloat32, {4}, 21, -2, 2)});
  for (const char* op : {"Max", "Min", "Sum", "Mean"}) {
    OperatorDef one = ParseOp(std::string("type: '") + op + "' input: 'a' output: 'y'");
    ExpectCudaMatchesCpu(one, {RandomTensor(DataType::kFloat32, {5}, 22)});
    OperatorDef three = ParseOp(std::string("type: '") + op + "' input: 'a' input: 'b' input: 'c' output: 'y'");
    // The broadcast shape grows at each step: [3] -> [2, 3] -> [4, 2, 3].
    ExpectCudaMatchesCpu(three, {RandomTensor(DataType::kFloat32, {3}, 23), RandomTensor(DataType::kFloat32, {2, 1}, 24),
                                 RandomTensor(DataType::kFloat32, {4, 1, 1}, 25)});
  }
}

TEST(CudaElementwiseTest, ShapesThatDoNotBroadcastAreAnError) {
  LOOM_SKIP_WITHOUT_GPU();
  auto r = testing::RunOnCuda(ParseOp("type: 'Add' input: 'a' input: 'b' output: 'c'"),
                              {RandomTensor(DataType::kFloat32, {2, 3}, 1), RandomTensor(DataType::kFloat32, {4}, 2)});
  EXPECT_FALSE(r.ok());
}

}  // namespace
}  // namespace loom
