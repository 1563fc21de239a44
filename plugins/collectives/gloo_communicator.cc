// The Gloo communicator: rendezvous through Gloo's FileStore in
// <rendezvous>/<run_id>/, a full mesh of TCP pairs, and gloo::allreduce /
// broadcast / barrier with the spec's timeout. Gloo reports failures as
// exceptions; they become statuses here.
#include <signal.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <functional>
#include <thread>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "gloo/allreduce.h"
#include "gloo/barrier.h"
#include "gloo/broadcast.h"
#include "gloo/math.h"
#include "gloo/rendezvous/context.h"
#include "gloo/rendezvous/file_store.h"
#include "gloo/transport/tcp/device.h"
#include "plugins/collectives/communicator.h"

namespace loom {
namespace collectives {
namespace {

using sdk::Status;

std::string Where(const CommonWorldSpec& s) {
  return "rank " + std::to_string(s.rank) + " of " + std::to_string(s.size) + " (rendezvous " + s.rendezvous +
         ", run '" + s.run_id + "')";
}

// FileStore with its key check public (Gloo keeps it protected).
class Store : public gloo::rendezvous::FileStore {
 public:
  using FileStore::FileStore;
  bool Has(const std::string& key) { return check({key}); }
};

std::string JoinKey(int rank) { return "loom_joined_" + std::to_string(rank); }

class GlooCommunicator : public Communicator {
 public:
  GlooCommunicator(CommonWorldSpec spec, std::shared_ptr<gloo::rendezvous::Context> context)
      : spec_(std::move(spec)), context_(std::move(context)) {}
  ~GlooCommunicator() override {
    {
      std::lock_guard<std::mutex> lock(queue_mu_);
      stop_ = true;
    }
    queue_cv_.notify_all();
    if (worker_.joinable()) worker_.join();
  }
  int rank() const override { return spec_.rank; }
  int size() const override { return spec_.size; }

  void AllreduceAsync(void* data, size_t count, LoomDataType dtype, ReduceOp op, std::function<void()> then) override {
    std::lock_guard<std::mutex> lock(queue_mu_);
    if (!worker_.joinable()) worker_ = std::thread([this] { Work(); });
    queue_.push_back([=] {
      Status s = RunAllreduce(data, count, dtype, op);
      if (s.ok() && then) then();
      return s;
    });
    ++queued_;
    queue_cv_.notify_all();
  }

  Status Wait() override {
    std::unique_lock<std::mutex> lock(queue_mu_);
    done_cv_.wait(lock, [&] { return done_ == queued_; });
    Status s = std::move(first_error_);
    first_error_ = Status::Ok();
    return s;
  }

  Status Allreduce(void* data, size_t count, LoomDataType dtype, ReduceOp op) override {
    LOOM_SDK_RETURN_IF_ERROR(Wait());
    return RunAllreduce(data, count, dtype, op);
  }

 private:
  // The worker: runs the queued collectives in order, keeps the first error.
  void Work() {
    for (;;) {
      std::function<Status()> task;
      {
        std::unique_lock<std::mutex> lock(queue_mu_);
        queue_cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;
        task = std::move(queue_.front());
        queue_.pop_front();
      }
      Status s = task();
      {
        std::lock_guard<std::mutex> lock(queue_mu_);
        if (!s.ok() && first_error_.ok()) first_error_ = std::move(s);
        ++done_;
      }
      done_cv_.notify_all();
    }
  }

  Status RunAllreduce(void* data, size_t count, LoomDataType dtype, ReduceOp op) {
    if (dtype != LOOM_DTYPE_FLOAT && dtype != LOOM_DTYPE_DOUBLE) {
      return sdk::InvalidArgument(Where(spec_) + ": Allreduce takes float32 or float64; found " + sdk::DTypeName(dtype));
    }
    if (count == 0) return Status::Ok();
    std::lock_guard<std::mutex> lock(mu_);  // collectives of one context go one at a time, in program order
    return Guard("Allreduce", [&] {
      gloo::AllreduceOptions o(context_);
      o.setTimeout(spec_.timeout);
      o.setTag(next_tag_++);
      if (dtype == LOOM_DTYPE_FLOAT) {
        o.setOutput(static_cast<float*>(data), count);
        o.setReduceFunction(static_cast<void (*)(void*, const void*, const void*, size_t)>(&gloo::sum<float>));
      } else {
        o.setOutput(static_cast<double*>(data), count);
        o.setReduceFunction(static_cast<void (*)(void*, const void*, const void*, size_t)>(&gloo::sum<double>));
      }
      gloo::allreduce(o);
      if (op == ReduceOp::kMean) {
        if (dtype == LOOM_DTYPE_FLOAT) {
          float* p = static_cast<float*>(data);
          const float inv = 1.0f / static_cast<float>(spec_.size);
          for (size_t i = 0; i < count; ++i) p[i] *= inv;
        } else {
          double* p = static_cast<double*>(data);
          const double inv = 1.0 / spec_.size;
          for (size_t i = 0; i < count; ++i) p[i] *= inv;
        }
      }
    });
  }

  // Runs a Gloo call; an exception (a peer gone, a timeout) becomes
  // UNAVAILABLE naming this rank and the call.
  template <typename F>
  Status Guard(const char* what, F&& f);

 public:
  Status Broadcast(void* data, size_t bytes, int root) override {
    if (root < 0 || root >= spec_.size) return sdk::InvalidArgument(Where(spec_) + ": Broadcast root " + std::to_string(root));
    if (bytes == 0) return Status::Ok();
    LOOM_SDK_RETURN_IF_ERROR(Wait());
    std::lock_guard<std::mutex> lock(mu_);
    return Guard("Broadcast", [&] {
      gloo::BroadcastOptions o(context_);
      o.setTimeout(spec_.timeout);
      o.setTag(next_tag_++);
      o.setRoot(root);
      o.setOutput(static_cast<char*>(data), bytes);
      gloo::broadcast(o);
    });
  }

  Status Barrier() override {
    LOOM_SDK_RETURN_IF_ERROR(Wait());
    std::lock_guard<std::mutex> lock(mu_);
    return Guard("Barrier", [&] {
      gloo::BarrierOptions o(context_);
      o.setTimeout(spec_.timeout);
      o.setTag(next_tag_++);
      gloo::barrier(o);
    });
  }

 private:
  CommonWorldSpec spec_;
  std::shared_ptr<gloo::rendezvous::Context> context_;
  std::mutex mu_;  // one Gloo call at a time
  uint32_t next_tag_ = 1;
  // The asynchronous queue (AllreduceAsync, Wait).
  std::mutex queue_mu_;
  std::condition_variable queue_cv_, done_cv_;
  std::deque<std::function<Status()>> queue_;
  int64_t queued_ = 0, done_ = 0;
  Status first_error_;
  bool stop_ = false;
  std::thread worker_;
};

template <typename F>
Status GlooCommunicator::Guard(const char* what, F&& f) {
  try {
    f();
    return Status::Ok();
  } catch (const std::exception& e) {
    return Status(LOOM_UNAVAILABLE, Where(spec_) + ": " + what + " failed (a rank stopped, or did not answer within " +
                                        std::to_string(spec_.timeout.count()) + " ms): " + e.what());
  }
}

struct Table {
  std::mutex mu;
  std::map<std::tuple<std::string, std::string, int, int>, int64_t> by_spec;
  std::map<int64_t, std::shared_ptr<Communicator>> by_handle;
  int64_t next = 1;
};
// Gloo writes to its TCP pairs with plain write(2): once a peer has died,
// the next write raises SIGPIPE, whose default action kills this process
// before Gloo can turn EPIPE into an exception (and this file into a
// status): a dead rank took the other down by signal in about 1 run in 8
// of data_parallel_test's dead-rank case. As servers and Python do, SIGPIPE
// is ignored from the first connection on, unless the program installed a
// handler of its own.
void IgnoreSigpipe() {
  struct sigaction old = {};
  if (sigaction(SIGPIPE, nullptr, &old) == 0 && old.sa_handler == SIG_DFL) signal(SIGPIPE, SIG_IGN);
}

Table& Worlds() {
  static Table* t = new Table();
  return *t;
}

Status Connect(const CommonWorldSpec& spec, std::shared_ptr<Communicator>* out) {
  if (spec.size < 1 || spec.rank < 0 || spec.rank >= spec.size) {
    return sdk::InvalidArgument("CreateCommonWorld: rank " + std::to_string(spec.rank) + " must be in [0, size " +
                                std::to_string(spec.size) + ")");
  }
  if (spec.rendezvous.empty() || spec.run_id.empty() || spec.run_id.find('/') != std::string::npos) {
    return sdk::InvalidArgument("CreateCommonWorld: a rendezvous folder and a run id (no '/') are required; found '" +
                                spec.rendezvous + "', '" + spec.run_id + "'");
  }
  const std::string dir = spec.rendezvous + "/" + spec.run_id;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status(LOOM_UNAVAILABLE, Where(spec) + ": cannot create " + dir + ": " + ec.message());
  try {
    Store store(dir);
    if (store.Has(JoinKey(spec.rank))) {
      return sdk::FailedPrecondition(Where(spec) + ": " + dir + " already holds this rank's key, left by an earlier run "
                                     "with this run id: give a new run id (the launcher makes a fresh one) or remove " + dir);
    }
    // Everyone arrives first, within the timeout (Gloo's own rendezvous
    // waits 30 s whatever the context's timeout).
    store.set(JoinKey(spec.rank), std::vector<char>{'1'});
    std::vector<std::string> keys;
    for (int r = 0; r < spec.size; ++r) keys.push_back(JoinKey(r));
    try {
      store.wait(keys, spec.timeout);
    } catch (const std::exception&) {
      std::string missing;
      for (int r = 0; r < spec.size; ++r) {
        if (!store.Has(JoinKey(r))) missing += (missing.empty() ? "" : ", ") + std::to_string(r);
      }
      return Status(LOOM_DEADLINE_EXCEEDED, Where(spec) + ": rank(s) " + missing + " did not arrive within " +
                                                std::to_string(spec.timeout.count()) + " ms");
    }
    IgnoreSigpipe();
    gloo::transport::tcp::attr attr;
    attr.hostname = spec.hostname;
    std::shared_ptr<gloo::transport::Device> device = gloo::transport::tcp::CreateDevice(attr);
    auto context = std::make_shared<gloo::rendezvous::Context>(spec.rank, spec.size);
    context->setTimeout(spec.timeout);
    context->connectFullMesh(store, device);
    auto comm = std::make_shared<GlooCommunicator>(spec, context);
    // Every rank is connected: the run's keys can go (so the folder does not
    // hold a stale run), rank 0 removes them after a barrier.
    if (Status s = comm->Barrier(); !s.ok()) return s;
    if (spec.rank == 0) std::filesystem::remove_all(dir, ec);
    *out = std::move(comm);
    return Status::Ok();
  } catch (const std::exception& e) {
    return Status(LOOM_UNAVAILABLE, Where(spec) + ": connecting failed: " + e.what());
  }
}

}  // namespace

Status GlooCommonWorld(const CommonWorldSpec& spec, int64_t* handle) {
  Table& t = Worlds();
  const auto key = std::make_tuple(spec.rendezvous, spec.run_id, spec.rank, spec.size);
  {
    std::lock_guard<std::mutex> lock(t.mu);
    auto it = t.by_spec.find(key);
    if (it != t.by_spec.end()) {
      *handle = it->second;
      return Status::Ok();
    }
  }
  std::shared_ptr<Communicator> comm;
  LOOM_SDK_RETURN_IF_ERROR(Connect(spec, &comm));
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.by_spec.find(key);  // another thread may have connected meanwhile: keep the first
  if (it != t.by_spec.end()) {
    *handle = it->second;
    return Status::Ok();
  }
  *handle = t.next++;
  t.by_spec[key] = *handle;
  t.by_handle[*handle] = std::move(comm);
  return Status::Ok();
}

std::shared_ptr<Communicator> CommonWorld(int64_t handle) {
  Table& t = Worlds();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.by_handle.find(handle);
  return it == t.by_handle.end() ? nullptr : it->second;
}

}  // namespace collectives
}  // namespace loom
