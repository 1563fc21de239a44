"""Data-parallel training (core/autodiff/data_parallel.h; Caffe2's
data_parallel_model, PyTorch's DistributedDataParallel) with the
collectives plugin's Gloo ops: every rank runs the same net on its share of
the batch, the gradients are averaged across ranks before the update, and
rank 0's parameters are broadcast once before training.

    opts = loom.DataParallelOptions(world_size=2, rank=r, rendezvous="/tmp/rdv", run_id="run-1")
    grads = loom.add_backward(net, ["loss"])
    grads = loom.add_allreduce(net, grads, opts)
    loom.add_optimizer(net, grads, "Momentum")
    ws.run_net_once(loom.broadcast_net(net.initializer_names(), opts))
"""
from . import _loom
from .net_builder import NetBuilder
from .protos import as_names

__all__ = ["DataParallelOptions", "add_allreduce", "broadcast_net", "split_across_contexts"]

# DataParallelOptions(*, world_size=1, rank=0, rendezvous="", run_id="",
# timeout_ms=30000, hostname="127.0.0.1", bucket_bytes=1 MiB, overlap=True):
# `rendezvous` a folder every rank reaches, `run_id` unique per run and the
# same on every rank, `hostname` the address this rank listens on,
# `bucket_bytes` gradients packed per Allreduce, `overlap` reductions
# queued while the backward pass goes on.
DataParallelOptions = _loom.DataParallelOptions


def add_allreduce(net, gradients, options):
    """Inserts CreateCommonWorld first and the gradients' Allreduce ops
    (mean over the ranks, bucketed, in backward order) into `net`, after
    add_backward and before add_optimizer; returns the averaged gradients
    ({param: "<gradient>_allreduced"}) to give add_optimizer. loom.Error:
    INVALID_ARGUMENT for a gradient no op of `net` writes."""
    data, grads = _loom._add_allreduce(net.serialize(), dict(gradients), options)
    net.proto.ParseFromString(data)
    return dict(grads)


def broadcast_net(blobs, options, registry=None):
    """A net sending rank 0's `blobs` to every rank in place (run it once
    before training, every rank at once)."""
    return NetBuilder.from_proto(_loom._broadcast_net(as_names(blobs), options), registry)


def split_across_contexts(net, batch_inputs, loss, contexts):
    """Data parallelism inside one process: a new builder running `net`'s
    forward ops on `contexts` shards of `batch_inputs` (split on axis 0;
    the batch must divide), blobs of shard k prefixed "ctx<k>/", and `loss`
    the mean of the shards' losses. Then add_backward sums each parameter's
    gradient over the shards."""
    return NetBuilder.from_proto(_loom._split_across_contexts(net.serialize(), as_names(batch_inputs), loss, contexts),
                                 net.registry)
