#include "tools/run/dot.h"

#include <cstdlib>
#include <fstream>
#include <map>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "core/dtype.h"
#include "core/plan.h"

namespace loom {
namespace tools {
namespace {

// A DOT string literal; newlines become DOT's \n (centered lines).
std::string Quote(const std::string& s) {
  return "\"" + absl::StrReplaceAll(s, {{"\\", "\\\\"}, {"\"", "\\\""}, {"\n", "\\n"}}) + "\"";
}

std::string TensorLabel(const std::string& name, const Tensor* t) {
  if (t == nullptr) return name;
  return absl::StrCat(name, "\n", DataTypeName(t->dtype()), ShapeToString(t->dims()));
}

}  // namespace

absl::StatusOr<std::string> PlanToDot(const Net& net) {
  const Plan* plan = net.last_plan();
  if (plan == nullptr) return absl::FailedPreconditionError("--dot: the net has not run");
  std::map<std::string, const TensorProto*> weights;
  for (const TensorProto& t : net.def().initializer()) weights[t.name()] = &t;
  std::string out = absl::StrCat("digraph ", Quote(net.def().name().empty() ? "net" : net.def().name()), " {\n",
                                 "  rankdir=TB;\n  node [fontname=\"Helvetica\", fontsize=10];\n");
  std::map<std::string, std::string> tensors;  // name -> label
  auto tensor = [&](const std::string& name, const Tensor* t) {
    if (!tensors.count(name) || t != nullptr) tensors[name] = TensorLabel(name, t);
  };
  int copies = 0;
  for (size_t i = 0; i < plan->steps().size(); ++i) {
    const PlanStep& step = plan->steps()[i];
    const OperatorDef& op = step.op->info->op;
    const std::string id = absl::StrCat("op", i);
    const bool fused = absl::StartsWith(op.type(), "Fused");
    std::string kernel = step.kernel != nullptr ? step.kernel->device : step.op->device_type;
    if (step.kernel != nullptr && !step.kernel->engine.empty()) absl::StrAppend(&kernel, "/", step.kernel->engine);
    absl::StrAppend(&out, "  ", id, " [shape=box, style=\"rounded", fused ? ",filled\", fillcolor=\"#ffe8a8\"" : "\"",
                    ", label=", Quote(absl::StrCat(op.type(), "\n", op.name(), "\n", kernel)), "];\n");
    std::map<const Tensor*, const Tensor*> copied;  // the op's input (a replica) -> the original
    for (const DeviceCopy& c : step.copies_before) copied[c.dst] = c.src;
    for (int k = 0; k < op.input_size(); ++k) {
      if (op.input(k).empty()) continue;
      const Tensor* t = k < static_cast<int>(step.ctx.inputs.size()) ? step.ctx.inputs[k] : nullptr;
      auto c = copied.find(t);
      tensor(op.input(k), c != copied.end() ? c->second : t);
      const std::string tid = Quote("t:" + op.input(k));
      if (c == copied.end()) {
        absl::StrAppend(&out, "  ", tid, " -> ", id, ";\n");
        continue;
      }
      const std::string cid = absl::StrCat("copy", copies++);
      absl::StrAppend(&out, "  ", cid, " [shape=box, style=dashed, label=",
                      Quote(absl::StrCat("copy to ", t->device()->type(), ":", t->device()->id())), "];\n  ", tid,
                      " -> ", cid, ";\n  ", cid, " -> ", id, ";\n");
    }
    for (int k = 0; k < op.output_size(); ++k) {
      if (op.output(k).empty()) continue;
      tensor(op.output(k), k < static_cast<int>(step.ctx.outputs.size()) ? step.ctx.outputs[k] : nullptr);
      absl::StrAppend(&out, "  ", id, " -> ", Quote("t:" + op.output(k)), ";\n");
    }
  }
  for (auto& [name, label] : tensors) {
    auto w = weights.find(name);
    if (w != weights.end() && absl::EndsWith(label, "[0]")) {
      // A weight the kernels packed at plan time; the original was freed
      // (static_shape): its declared shape.
      std::vector<int64_t> dims(w->second->dims().begin(), w->second->dims().end());
      label = absl::StrCat(name, "\n", DataTypeName(static_cast<DataType>(w->second->data_type())), ShapeToString(dims),
                           "\npacked by its kernel");
    }
    absl::StrAppend(&out, "  ", Quote("t:" + name), " [shape=ellipse",
                    w != weights.end() ? ", style=filled, fillcolor=\"#e0e0e0\"" : "", ", label=", Quote(label), "];\n");
  }
  out += "}\n";
  return out;
}

absl::Status WriteDot(const Net& net, const std::string& path, std::string* rendered) {
  absl::StatusOr<std::string> dot = PlanToDot(net);
  if (!dot.ok()) return dot.status();
  {
    std::ofstream f(path);
    f << *dot;
    if (!f) return absl::InternalError(absl::StrCat("--dot: cannot write ", path));
  }
  if (std::system("command -v dot >/dev/null 2>&1") != 0) return absl::OkStatus();
  const std::string stem = absl::EndsWith(path, ".dot") ? path.substr(0, path.size() - 4) : path;
  for (const char* format : {"svg", "png"}) {
    const std::string picture = absl::StrCat(stem, ".", format);
    auto shell = [](const std::string& s) { return "'" + absl::StrReplaceAll(s, {{"'", "'\\''"}}) + "'"; };
    const std::string cmd = absl::StrCat("dot -T", format, " ", shell(path), " -o ", shell(picture), " 2>/dev/null");
    if (std::system(cmd.c_str()) == 0 && rendered != nullptr) absl::StrAppend(rendered, rendered->empty() ? "" : ", ", picture);
  }
  return absl::OkStatus();
}

}  // namespace tools
}  // namespace loom
