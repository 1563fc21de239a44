#include "testing/gradient_check.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/autodiff/backward.h"
#include "core/net.h"
#include "testing/op_runner.h"
#include "core/workspace.h"

namespace loom {
namespace testing {
namespace {

bool IsFloat(DataType t) { return t == DataType::kFloat32 || t == DataType::kFloat64; }

}  // namespace

::testing::AssertionResult CheckGradient(const OperatorDef& op, const std::vector<Tensor>& inputs, Registry* registry,
                                         const GradientCheckOptions& options) {
  // The outputs' shapes and dtypes, from one plain run.
  absl::StatusOr<std::vector<Tensor>> plain = RunSingleOp(op, inputs, registry);
  if (!plain.ok()) return ::testing::AssertionFailure() << "forward run: " << plain.status();

  // By default the float64 inputs (as before float32 could be checked), or
  // the float32 ones where no input is float64.
  std::vector<int> checked = options.inputs;
  for (DataType t : {DataType::kFloat64, DataType::kFloat32}) {
    if (!checked.empty()) break;
    for (int i = 0; i < op.input_size(); ++i) {
      if (!op.input(i).empty() && inputs[i].dtype() == t) checked.push_back(i);
    }
  }
  if (checked.empty()) return ::testing::AssertionFailure() << "the op has no float32 or float64 input to check";
  const DataType dtype = inputs[checked[0]].dtype();
  for (int i : checked) {
    if (inputs[i].dtype() != dtype || !IsFloat(dtype)) {
      return ::testing::AssertionFailure() << "checked inputs must all be float64 or all float32; input " << i << " is "
                                           << DataTypeName(inputs[i].dtype()) << ", input " << checked[0] << " "
                                           << DataTypeName(dtype);
    }
  }
  const bool f32 = dtype == DataType::kFloat32;
  const double eps = options.eps > 0 ? options.eps : f32 ? 1e-2 : 1e-6;
  const double tolerance = options.tolerance > 0 ? options.tolerance : f32 ? 1e-2 : 1e-6;

  NetDef net;
  net.set_name("gradient_check");
  *net.add_op() = op;
  std::vector<std::string> sums;
  for (int k = 0; k < op.output_size(); ++k) {
    const Tensor& y = (*plain)[k];
    if (op.output(k).empty() || !IsFloat(y.dtype())) continue;
    std::string out = op.output(k);
    if (y.dtype() == DataType::kFloat32) {  // to float64 before the weighted sum
      OperatorDef* cast = net.add_op();
      cast->set_type("Cast");
      cast->add_input(out);
      out = absl::StrCat("__y", k, "_f64");
      cast->add_output(out);
      Argument* to = cast->add_arg();
      to->set_name("to");
      to->set_i(11);  // ONNX DOUBLE
    }
    const std::string w = absl::StrCat("__R", k), p = absl::StrCat("__p", k), s = absl::StrCat("__s", k);
    Tensor r = RandomTensor(DataType::kFloat64, y.dims(), options.seed + k, -1.0, 1.0);
    TensorProto* init = net.add_initializer();
    init->set_name(w);
    init->set_data_type(11);  // float64 (ONNX code)
    for (int64_t d : y.dims()) init->add_dims(d);
    for (int64_t i = 0; i < r.num_elements(); ++i) init->add_double_data(r.data<double>()[i]);
    OperatorDef* mul = net.add_op();
    mul->set_type("Mul");
    mul->add_input(out);
    mul->add_input(w);
    mul->add_output(p);
    OperatorDef* sum = net.add_op();
    sum->set_type("ReduceSum");
    sum->add_input(p);
    sum->add_output(s);
    Argument* keep = sum->add_arg();
    keep->set_name("keepdims");
    keep->set_i(0);
    sums.push_back(s);
  }
  if (sums.empty()) return ::testing::AssertionFailure() << "the op has no float32 or float64 output";
  OperatorDef* total = net.add_op();
  total->set_type("Sum");
  for (const std::string& s : sums) total->add_input(s);
  total->add_output("__loss");
  net.add_external_output("__loss");

  BackwardOptions bo;
  for (int i : checked) bo.wrt.push_back(op.input(i));
  Workspace ws;
  for (int i = 0; i < op.input_size(); ++i) {
    if (op.input(i).empty()) continue;
    net.add_external_input(op.input(i));
    ws.SetBlob(op.input(i), *inputs[i].Clone());
  }
  absl::StatusOr<BackwardResult> backward = AddBackward(*registry, {"__loss"}, bo, &net);
  if (!backward.ok()) return ::testing::AssertionFailure() << "AddBackward: " << backward.status();
  NetOptions no;
  no.num_threads = 1;
  absl::StatusOr<std::unique_ptr<Net>> n = Net::Create(net, &ws, registry, no);
  if (!n.ok()) return ::testing::AssertionFailure() << "Net::Create: " << n.status();
  auto loss = [&]() -> absl::StatusOr<double> {
    if (options.rebuild_net_per_run) {
      n = Net::Create(net, &ws, registry, no);
      if (!n.ok()) return n.status();
    }
    absl::Status s = (*n)->Run();
    if (!s.ok()) return s;
    return ws.GetBlob("__loss")->data<double>()[0];
  };
  if (absl::StatusOr<double> l = loss(); !l.ok()) return ::testing::AssertionFailure() << "run: " << l.status();

  double worst = 0;
  std::string worst_what;
  for (int i : checked) {
    const std::string& name = op.input(i);
    auto g = backward->gradients.find(name);
    if (g == backward->gradients.end()) {
      return ::testing::AssertionFailure() << "no gradient was built for input " << i << " '" << name << "'";
    }
    // The analytic gradient at the unperturbed point (the last run).
    (void)loss();
    Tensor analytic = *ws.GetBlob(g->second)->Clone();
    if (analytic.dims() != inputs[i].dims()) {
      return ::testing::AssertionFailure() << "gradient of '" << name << "' is " << analytic.DebugString() << "; the input is "
                                           << inputs[i].DebugString();
    }
    Tensor* x = ws.GetBlob(name);
    for (int64_t e = 0; e < x->num_elements(); ++e) {
      const double saved = ElementAsDouble(*x, e);
      // The step actually taken: x +- eps rounded to the input's dtype.
      const double up = f32 ? static_cast<double>(static_cast<float>(saved + eps)) : saved + eps;
      const double down = f32 ? static_cast<double>(static_cast<float>(saved - eps)) : saved - eps;
      SetElement(*x, e, up);
      absl::StatusOr<double> plus = loss();
      SetElement(*x, e, down);
      absl::StatusOr<double> minus = loss();
      SetElement(*x, e, saved);
      if (!plus.ok() || !minus.ok()) return ::testing::AssertionFailure() << "perturbed run failed";
      const double numeric = (*plus - *minus) / (up - down);
      const double a = ElementAsDouble(analytic, e);
      const double err = std::abs(a - numeric) / std::max(1.0, std::abs(numeric));
      if (err > worst) {
        worst = err;
        std::ostringstream what;
        what << "input " << i << " '" << name << "' element " << e << ": analytic " << a << ", numeric " << numeric;
        worst_what = what.str();
      }
    }
  }
  if (worst > tolerance) {
    return ::testing::AssertionFailure() << "relative error " << worst << " > " << tolerance << " at " << worst_what;
  }
  return ::testing::AssertionSuccess();
}

}  // namespace testing
}  // namespace loom
