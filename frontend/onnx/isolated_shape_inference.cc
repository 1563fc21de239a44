#include "frontend/onnx/isolated_shape_inference.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <exception>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/proto_io.h"
#include "onnx/shape_inference/implementation.h"
#include "frontend/onnx/legacy_ops.h"

// Under a sanitizer (the fuzz and asan builds), a crash in the child would
// run the parent's death callback (libFuzzer's saves the input as a crash of
// its own). The child turns it off; a weak symbol, absent in normal builds.
extern "C" void __sanitizer_set_death_callback(void (*)(void)) __attribute__((weak));

namespace loom {
namespace onnx_import {
namespace {

bool GraphNeeds(const onnx::GraphProto& g, int64_t opset, bool body) {
  if (body) {
    for (const auto& out : g.output()) {
      if (!out.type().has_tensor_type() || out.type().tensor_type().elem_type() == 0) return true;
    }
  }
  for (const auto& node : g.node()) {
    if (RewriteUsesRanks(node, opset)) return true;
    for (const auto& a : node.attribute()) {
      if (a.has_g() && GraphNeeds(a.g(), opset, true)) return true;
      for (const auto& sub : a.graphs()) {
        if (GraphNeeds(sub, opset, true)) return true;
      }
    }
  }
  return false;
}

// What the parent needs back: graphs, their nodes and value infos; no
// initializers or tensor attributes (weights stay in the parent).
void StripData(onnx::GraphProto* g) {
  g->clear_initializer();
  g->clear_sparse_initializer();
  for (auto& node : *g->mutable_node()) {
    for (auto& a : *node.mutable_attribute()) {
      a.clear_t();
      a.clear_tensors();
      a.clear_sparse_tensor();
      a.clear_sparse_tensors();
      if (a.has_g()) StripData(a.mutable_g());
      for (auto& sub : *a.mutable_graphs()) StripData(&sub);
    }
  }
}

bool HasElemType(const onnx::ValueInfoProto& v) {
  return v.type().has_tensor_type() && v.type().tensor_type().elem_type() != 0;
}

// Copies inferred types from `from` (the child's result) into `to`, which
// has the same structure unless the child's reply is corrupt; then stops.
void CopyTypes(const onnx::GraphProto& from, onnx::GraphProto* to) {
  *to->mutable_value_info() = from.value_info();
  // Graph inputs and outputs that had no type take the inferred one.
  auto fill_types = [](const google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>& src,
                       google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* dst) {
    if (src.size() != dst->size()) return;
    for (int i = 0; i < dst->size(); ++i) {
      if (!HasElemType(dst->Get(i)) && src.Get(i).has_type()) *dst->Mutable(i)->mutable_type() = src.Get(i).type();
    }
  };
  fill_types(from.input(), to->mutable_input());
  fill_types(from.output(), to->mutable_output());
  if (from.node_size() != to->node_size()) return;
  for (int n = 0; n < to->node_size(); ++n) {
    const onnx::NodeProto& fn = from.node(n);
    onnx::NodeProto* tn = to->mutable_node(n);
    if (fn.attribute_size() != tn->attribute_size()) continue;
    for (int k = 0; k < tn->attribute_size(); ++k) {
      const onnx::AttributeProto& fa = fn.attribute(k);
      onnx::AttributeProto* ta = tn->mutable_attribute(k);
      if (fa.has_g() && ta->has_g()) CopyTypes(fa.g(), ta->mutable_g());
      if (fa.graphs_size() == ta->graphs_size()) {
        for (int j = 0; j < ta->graphs_size(); ++j) CopyTypes(fa.graphs(j), ta->mutable_graphs(j));
      }
    }
  }
}

bool WriteAll(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    done += static_cast<size_t>(w);
  }
  return true;
}

// Ends the child without exit hooks: sanitizers intercept even _exit to run
// a leak check, which is meaningless in a throwaway copy of the process (and
// fails inside Bazel's sandbox, where LeakSanitizer cannot ptrace).
[[noreturn]] void ExitChild(int code) {
  ::syscall(SYS_exit_group, code);
  ::_exit(code);  // not reached
}

// The child: infer, strip, reply "T" + model bytes or "E" + message.
[[noreturn]] void RunChild(onnx::ModelProto* model, int fd) {
  if (__sanitizer_set_death_callback != nullptr) __sanitizer_set_death_callback(nullptr);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(sig, SIG_DFL);
  ::signal(SIGPIPE, SIG_IGN);
  std::string reply;
  try {
    onnx::shape_inference::InferShapes(*model);
    StripData(model->mutable_graph());
    std::string bytes;
    if (!model->SerializeToString(&bytes)) ExitChild(3);
    reply = "T" + bytes;
  } catch (const std::exception& e) {
    reply = std::string("E") + e.what();
  }
  ExitChild(WriteAll(fd, reply) ? 0 : 4);
}

}  // namespace

bool NeedsShapeInference(const onnx::ModelProto& model, int64_t opset) {
  return GraphNeeds(model.graph(), opset, /*body=*/false);
}

absl::Status InferShapesIsolated(onnx::ModelProto* model, absl::Duration timeout) {
  int fds[2];
  if (::pipe(fds) != 0) return absl::InternalError(absl::StrCat("ONNX shape inference: pipe: ", strerror(errno)));
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    return absl::InternalError(absl::StrCat("ONNX shape inference: fork: ", strerror(err)));
  }
  if (pid == 0) {
    ::close(fds[0]);
    RunChild(model, fds[1]);
  }
  ::close(fds[1]);
  const absl::Time deadline = absl::Now() + timeout;
  std::string reply;
  bool timed_out = false;
  char buf[1 << 16];
  for (;;) {
    const int64_t left_ms = absl::ToInt64Milliseconds(deadline - absl::Now());
    if (left_ms <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left_ms, 1 << 30)));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) continue;  // the deadline check above ends it
    const ssize_t n = ::read(fds[0], buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EOF: the child is done (or died)
    reply.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  if (timed_out) ::kill(pid, SIGKILL);
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    return absl::DeadlineExceededError(
        absl::StrCat("ONNX shape inference did not finish within ", absl::FormatDuration(timeout), "; stopped"));
  }
  if (WIFSIGNALED(wstatus)) {
    const int sig = WTERMSIG(wstatus);
    return absl::InternalError(absl::StrCat("ONNX shape inference crashed: signal ", sig, " (", strsignal(sig), ")"));
  }
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0 || reply.empty()) {
    return absl::InternalError(absl::StrCat("ONNX shape inference ended with exit code ",
                                            WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1, " and no result"));
  }
  if (reply[0] == 'E') return absl::InvalidArgumentError(absl::StrCat("ONNX shape inference: ", reply.substr(1)));
  onnx::ModelProto inferred;
  if (reply[0] != 'T' || !ParseBinaryProto(absl::string_view(reply).substr(1), &inferred)) {
    return absl::InternalError("ONNX shape inference: the child's reply does not parse");
  }
  CopyTypes(inferred.graph(), model->mutable_graph());
  return absl::OkStatus();
}

}  // namespace onnx_import
}  // namespace loom
