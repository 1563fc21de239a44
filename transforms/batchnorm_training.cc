#include "transforms/batchnorm_training.h"

#include <string>
#include <utility>
#include <vector>

#include "transforms/graph_util.h"

namespace loom {
namespace transforms {
namespace {

void SetInt(OperatorDef* op, const std::string& name, int64_t v) {
  for (Argument& a : *op->mutable_arg()) {
    if (a.name() == name) {
      a.set_i(v);
      return;
    }
  }
  Argument* a = op->add_arg();
  a->set_name(name);
  a->set_i(v);
}

bool IsTrainingBatchNorm(const OperatorDef& op) {
  return op.type() == "BatchNormalization" && HasNonZeroInt(op, "training_mode") && op.input_size() >= 5;
}

}  // namespace

int NameRunningStatistics(NetDef* net) {
  int named = 0;
  for (OperatorDef& op : *net->mutable_op()) {
    if (!IsTrainingBatchNorm(op)) continue;
    bool any = false;
    for (int k = 1; k <= 2; ++k) {
      while (op.output_size() <= k) op.add_output("");
      if (!op.output(k).empty()) continue;
      op.set_output(k, op.input(2 + k) + "_running");
      any = true;
    }
    named += any;
  }
  return named;
}

int AppendRunningStatisticsWriteBack(NetDef* net) {
  std::vector<std::pair<std::string, std::string>> copies;  // running output -> initializer
  for (const OperatorDef& op : net->op()) {
    if (!IsTrainingBatchNorm(op)) continue;
    for (int k = 1; k <= 2 && k < op.output_size(); ++k) {
      if (!op.output(k).empty() && FindInitializer(*net, op.input(2 + k)) != nullptr) {
        copies.emplace_back(op.output(k), op.input(2 + k));
      }
    }
  }
  for (const auto& [from, to] : copies) {
    OperatorDef* c = net->add_op();
    c->set_type("Identity");
    c->set_name(to + "_write_back");
    c->add_input(from);
    c->add_output(to);
  }
  return static_cast<int>(copies.size());
}

int TrainingOpsForInference(NetDef* net) {
  int changed = 0;
  for (OperatorDef& op : *net->mutable_op()) {
    if (op.type() == "BatchNormalization" && (HasNonZeroInt(op, "training_mode") || op.output_size() > 1)) {
      SetInt(&op, "training_mode", 0);
      while (op.output_size() > 1) op.mutable_output()->RemoveLast();
      ++changed;
    } else if (op.type() == "Dropout" && op.input_size() > 2) {
      while (op.input_size() > 2) op.mutable_input()->RemoveLast();
      ++changed;
    }
  }
  return changed;
}

}  // namespace transforms
}  // namespace loom
