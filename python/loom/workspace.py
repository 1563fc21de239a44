"""loom.Workspace: Caffe2's workspace verbs (feed, fetch, create and run
nets) over loom::Workspace and loom::Net; loom.Trace."""
import os as _os

from . import _loom
from .protos import as_names, as_netdef
from .registry import Registry, default_registry

__all__ = ["Workspace", "Trace"]


def _options(num_threads=0, plan_memory=True, static_shape=False, enable_profiling=False, max_cached_plans=64,
             max_tensor_bytes=16 << 30, max_nesting_depth=64, max_loop_iterations=10_000_000, fpmath_mode="strict"):
    return _loom.NetOptions(num_threads=num_threads, plan_memory=plan_memory, static_shape=static_shape,
                            enable_profiling=enable_profiling, max_cached_plans=max_cached_plans,
                            max_tensor_bytes=max_tensor_bytes, max_nesting_depth=max_nesting_depth,
                            max_loop_iterations=max_loop_iterations, fpmath_mode=fpmath_mode)


class Workspace:
    """Workspace(registry=None, plugins=()): named blobs and the nets that
    run on them (Caffe2's Workspace). `registry`: a loom.Registry; default
    the process's default_registry(), or Registry(plugins) when `plugins`
    are given.

    Blobs are numpy arrays on the way in and out, copied both ways (the
    workspace owns its tensors; a fetched array stays valid after later
    runs). dtypes: bool, int8..int64, uint8..uint64, float16/32/64.

    Nets are created once and run many times (each input signature is
    planned once, then cached: core/net.h). A run releases the GIL; the
    workspace's calls are serialized, so a feed from another thread waits
    for the run. Errors raise loom.Error naming the net, the op, the blob.
    """

    def __init__(self, registry=None, plugins=()):
        if registry is not None and plugins:
            raise ValueError("loom: Workspace takes a registry or plugins, not both (Registry(plugins) makes one)")
        if registry is None:
            registry = Registry(plugins) if plugins else default_registry()
        self.registry = registry
        self._ws = _loom.Workspace(registry)

    # -- blobs ------------------------------------------------------------
    def feed_blob(self, name, value):
        """Sets blob `name` to a copy of `value` (anything numpy.asarray
        takes; a Python float becomes float64, an int int64, as numpy makes
        them: pass np.float32(...) for a float32 scalar; an array of str, a
        string tensor)."""
        self._ws.feed_blob(name, value)

    def fetch_blob(self, name):
        """A copy of blob `name` as a numpy array (strings: an object array
        of str; a sequence a list, an optional None or its value). loom.Error: NOT_FOUND for
        a blob the workspace lacks, FAILED_PRECONDITION for one not yet
        written."""
        return self._ws.fetch_blob(name)

    def has_blob(self, name):
        return self._ws.has_blob(name)

    def blobs(self):
        """The blob names, sorted."""
        return self._ws.blobs()

    def remove_blob(self, name):
        """Removes blob `name`; False if there was none."""
        return self._ws.remove_blob(name)

    # -- nets ---------------------------------------------------------------
    def create_net(self, net, name=None, *, overwrite=False, executor="", num_threads=0, plan_memory=True,
                   static_shape=False, enable_profiling=False, max_cached_plans=64, max_tensor_bytes=16 << 30,
                   max_nesting_depth=64, max_loop_iterations=10_000_000, fpmath_mode="strict"):
        """Makes `net` (a NetBuilder, NetDef or bytes) runnable here under
        `name` (default: the net's name) and returns the name. Its
        initializers become blobs (unless the workspace has them), then it
        is checked against the registry.

        NetOptions (core/net.h): `num_threads` per kernel (0: every core);
        `executor` "" or "sequential" (ops in order) or "multi_stream"
        (CUDA streams); `plan_memory` (intermediates share one arena by
        liveness); `static_shape` (only the first signature or the
        plan_buckets ones run; packed weights are then held once);
        `enable_profiling` (per-op times, net_profile); `max_cached_plans`;
        limits against hostile models: `max_tensor_bytes`,
        `max_nesting_depth`, `max_loop_iterations` (<= 0: none);
        `fpmath_mode` "strict" or "bf16" (float32 convolutions and matmuls
        on bfloat16 inputs where the CPU has AVX-512 BF16 or AMX).
        ALREADY_EXISTS for a taken name unless `overwrite`."""
        proto = as_netdef(net)
        return self._ws.create_net(proto.SerializeToString(), name or "",
                                   _options(num_threads, plan_memory, static_shape, enable_profiling,
                                            max_cached_plans, max_tensor_bytes, max_nesting_depth,
                                            max_loop_iterations, fpmath_mode),
                                   executor, overwrite)

    def run_net(self, name, num_iter=1):
        """Runs net `name` `num_iter` times on the blobs as they are."""
        self._ws.run_net(name, num_iter)

    def run_net_once(self, net, executor="", **options):
        """Creates `net`, runs it once and lets it go (Caffe2's RunNetOnce);
        `executor` and the NetOptions keywords as create_net's."""
        proto = as_netdef(net)
        if executor:
            proto = proto.__class__.FromString(proto.SerializeToString())
            proto.type = executor
        self._ws.run_net_once(proto.SerializeToString(), _options(**options))

    def run(self, name, feeds=None, fetches=()):
        """Feeds `feeds` ({blob: array}), runs net `name` once and returns
        the `fetches` blobs as a list of arrays: a training loop's step."""
        for k, v in (feeds or {}).items():
            self._ws.feed_blob(k, v)
        self._ws.run_net(name, 1)
        return [self._ws.fetch_blob(f) for f in as_names(fetches)]

    def plan_buckets(self, name, buckets):
        """Plans net `name` for these input signatures up front (MXNet's
        BucketingModule): `buckets` is a list of {input: shape}; each input
        keeps the dtype it has in the workspace (feed it first). The arena
        is allocated once, at the largest bucket."""
        self._ws.plan_buckets(name, [{k: list(v) for k, v in b.items()} for b in buckets])

    def net_stats(self, name):
        """Net `name`'s plans and memory: plans_built, cached_plans,
        arena_bytes, arena_allocations, released_constants,
        released_constant_bytes (static_shape), pool_in_use_bytes,
        pool_high_water_bytes, pool_free_bytes, pool_device_allocations.
        Sizes in bytes."""
        return self._ws.net_stats(name)

    def net_profile(self, name, reset=False):
        """Net `name`'s per-op profile (enable_profiling or set_profiling):
        runs, total_ms, ops (label, op_type, kernel, total_ms, runs,
        output_bytes), by_type ({op_type: (total_ms, calls)}) and table (the
        text loom_run --profile prints). Times in ms, summed over runs."""
        return self._ws.net_profile(name, reset)

    def set_profiling(self, name, on=True):
        self._ws.set_profiling(name, on)

    def nets(self):
        return self._ws.nets()

    def delete_net(self, name):
        self._ws.delete_net(name)

    # -- checkpoints ------------------------------------------------------
    def save_checkpoint(self, names, directory):
        """Writes blobs `names` to folder `directory` (core/autodiff/
        checkpoint.h: one TensorProto file per blob, values exact; an
        interrupted save leaves the previous checkpoint whole)."""
        self._ws.save_checkpoint(list(names), _os.fspath(directory))

    def load_checkpoint(self, directory):
        """Sets every blob saved in `directory`; returns their names.
        NOT_FOUND when there is no checkpoint."""
        return self._ws.load_checkpoint(_os.fspath(directory))


class Trace:
    """A Chrome/Perfetto trace of every op run while it is active (core/
    trace.h; loom_run --trace): one event per op, one track per thread.

        with loom.Trace("run.json"):
            ws.run_net("train", 10)
    """

    def __init__(self, path=None):
        self.path = path
        self._recorder = _loom.TraceRecorder()

    def start(self):
        self._recorder.start()

    def stop(self):
        self._recorder.stop()

    def write_json(self, path):
        self._recorder.write_json(_os.fspath(path))

    def __len__(self):
        return len(self._recorder)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        if self.path is not None:
            self.write_json(self.path)
        return False
