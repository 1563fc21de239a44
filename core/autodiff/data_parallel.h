// Data-parallel training (Caffe2's data_parallel_model, MXNet's executor
// group, PyTorch's DistributedDataParallel): transforms of a training
// NetDef.
//
// Across processes (ranks; the collectives plugin's Gloo ops):
//   AddAllreduce  after the backward pass, each gradient is averaged over
//                 the ranks (Allreduce with reduce = mean: the gradient of
//                 the mean loss over the global batch, i.e. every rank's loss
//                 scaled by 1 / world size). Gradients are packed into
//                 buckets of about `bucket_bytes`, in the order the
//                 backward pass completes them (last layers first), and
//                 each bucket's Allreduce comes right after the op that
//                 writes its last gradient. With `overlap` (the default)
//                 the Allreduce ops only queue their reduction on the
//                 communicator's thread (async = 1), so the earlier
//                 buckets are reduced while the rest of the backward pass
//                 runs, and one AllreduceWait after the backward pass
//                 waits for them all before the update reads them.
//   BroadcastNet  a net that sends rank 0's parameters to every rank, run
//                 once before training so all start equal.
// Within one process (contexts; CPU here, CUDA devices where present):
//   SplitAcrossContexts  the batch inputs split on axis 0 into one shard
//                 per context, the forward ops replicated per shard
//                 (parameters shared), and the loss the mean of the
//                 shards' losses: the backward pass then sums each
//                 parameter's gradient over the contexts before the update.
#ifndef LOOM_CORE_AUTODIFF_DATA_PARALLEL_H_
#define LOOM_CORE_AUTODIFF_DATA_PARALLEL_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/autodiff/backward.h"
#include "core/proto/loom.pb.h"

namespace loom {

struct DataParallelOptions {
  int world_size = 1;
  int rank = 0;
  std::string rendezvous;  // a folder all ranks reach (CreateCommonWorld)
  std::string run_id;      // unique per run
  int timeout_ms = 30000;  // rendezvous and every collective
  std::string hostname = "127.0.0.1";  // where this rank listens
  size_t bucket_bytes = size_t{1} << 20;  // gradients packed per Allreduce (by their initializers' sizes)
  bool overlap = true;  // asynchronous Allreduce ops and one AllreduceWait (above)
};

// The CreateCommonWorld op of `options`, writing `comm`.
OperatorDef CommonWorldOp(const DataParallelOptions& options, const std::string& comm = "__comm");

// Inserts CreateCommonWorld first and the gradients' Allreduce ops (see
// above) into `net`, a forward net with AddBackward's ops appended; call it
// before AddOptimizer and pass it the result, whose gradients are the
// averaged blobs ("<gradient>_allreduced"). INVALID_ARGUMENT when a
// gradient of `backward` is written by no op of `net`.
absl::StatusOr<BackwardResult> AddAllreduce(const BackwardResult& backward, const DataParallelOptions& options,
                                            NetDef* net);

// CreateCommonWorld, then Broadcast of `blobs` from rank 0 in place (their
// external inputs and outputs).
NetDef BroadcastNet(const std::vector<std::string>& blobs, const DataParallelOptions& options);

// The forward net `forward` over `contexts` shards of its `batch_inputs`
// (each split on axis 0; the batch must divide), blobs of context k
// prefixed "ctx<k>/", and `loss` the mean of the contexts' losses. `devices`
// (empty: the ops' own) gives context k's device option. INVALID_ARGUMENT
// for contexts < 1, or a batch input or loss the net does not have.
absl::StatusOr<NetDef> SplitAcrossContexts(const NetDef& forward, const std::vector<std::string>& batch_inputs,
                                           const std::string& loss, int contexts,
                                           const std::vector<DeviceOption>& devices = {});

}  // namespace loom

#endif  // LOOM_CORE_AUTODIFF_DATA_PARALLEL_H_
