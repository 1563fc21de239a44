// Communicators: a group of processes (ranks 0..size-1) that reduce and
// broadcast tensors together, on an existing collective engine — Gloo over
// TCP for CPU tensors (gloo_communicator.cc), NCCL for CUDA tensors
// (nccl_communicator.cc, with --config=cuda). Caffe2's "common world".
//
// Every call has a deadline: a rank that died or never came makes the
// others fail with DEADLINE_EXCEEDED or UNAVAILABLE naming it, not hang.
#ifndef LOOM_PLUGINS_COLLECTIVES_COMMUNICATOR_H_
#define LOOM_PLUGINS_COLLECTIVES_COMMUNICATOR_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/api/loom_sdk.h"

namespace loom {
namespace collectives {

// Where the ranks meet and how long they wait.
struct CommonWorldSpec {
  int rank = 0;
  int size = 1;
  // A folder every rank can read and write (a shared file system across
  // machines); the run's keys go in <rendezvous>/<run_id>/ and are removed
  // once every rank has connected.
  std::string rendezvous;
  std::string run_id;  // unique per run (torchrun's rdzv_id); the launcher makes one
  std::chrono::milliseconds timeout{30000};  // of the rendezvous and of every collective
  std::string hostname = "127.0.0.1";  // the address this rank listens on
};

enum class ReduceOp { kSum, kMean };

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // In place over `count` elements of `dtype` (float32 or float64) at
  // `data`: every rank ends with the sum (or mean) of all ranks' values.
  virtual sdk::Status Allreduce(void* data, size_t count, LoomDataType dtype, ReduceOp op) = 0;
  // `bytes` at `data` from `root` to every rank.
  virtual sdk::Status Broadcast(void* data, size_t bytes, int root) = 0;
  virtual sdk::Status Barrier() = 0;
  // Queues an Allreduce of `count` elements at `data` (which must stay
  // valid until Wait returns), then `then` (when it succeeded), on the
  // communicator's own thread, and returns: the caller computes meanwhile
  // (the backward pass overlapping the reduction of earlier gradients).
  // Collectives keep program order: the synchronous calls above first wait
  // for the queue.
  virtual void AllreduceAsync(void* data, size_t count, LoomDataType dtype, ReduceOp op,
                              std::function<void()> then = nullptr) = 0;
  // Waits for everything queued so far; the first error of those.
  virtual sdk::Status Wait() = 0;
};

// The Gloo communicator of `spec` in this process, made (rendezvous, then a
// full TCP mesh) on first use and shared by every later call with the same
// rendezvous, run, rank and size; *handle gets an id for CommonWorld()
// (what CreateCommonWorld's output holds). Errors: INVALID_ARGUMENT for a
// bad spec; FAILED_PRECONDITION when this rank's key is already in the
// folder (left by an earlier run with this run id); DEADLINE_EXCEEDED
// naming the ranks that did not arrive in time; UNAVAILABLE when the mesh
// cannot be connected.
sdk::Status GlooCommonWorld(const CommonWorldSpec& spec, int64_t* handle);

// The communicator of a handle GlooCommonWorld gave; nullptr if none.
std::shared_ptr<Communicator> CommonWorld(int64_t handle);

}  // namespace collectives
}  // namespace loom

#endif  // LOOM_PLUGINS_COLLECTIVES_COMMUNICATOR_H_
