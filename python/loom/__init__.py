"""Loom from Python: run a model on numpy arrays, list the registry.

    import numpy as np, loom
    s = loom.Session("model.onnx", threads=2)
    print(s.inputs)               # [TensorInfo(name='x', dtype=dtype('float32'), shape=['batch', 3, 224, 224])]
    (y,) = s.run(None, {"x": np.zeros((1, 3, 224, 224), np.float32)})

Session(model, *, threads=0, device="", plugins=(), optimization_level=1,
plan_memory=True) is loom::Session (session/session.h): `model` is an ONNX
file (*.onnx), ONNX bytes, or a Loom NetDef file; the default plugins that
ship in this package are loaded first, then `plugins` (paths). run(output_names,
feed) follows ONNX Runtime's InferenceSession.run: `output_names` None means
every output, in `outputs` order; it returns a list of numpy arrays. Inputs
that are C-contiguous, aligned and in native byte order are read in place;
Run releases the GIL, so threads may share a session. Errors raise
loom.Error (a RuntimeError) whose text starts with the status code and names
the op, input or option.
"""
import glob as _glob
import os as _os

from . import _loom
from ._loom import Error, TensorInfo

__all__ = ["Session", "TensorInfo", "Error", "ops", "plugins", "default_plugins"]


def default_plugins():
    """Paths of the plugins that ship in this package (loom_plugins/), sorted."""
    return sorted(_glob.glob(_os.path.join(_os.path.dirname(__file__), "loom_plugins", "*.so")))


class Session(_loom.Session):
    __doc__ = __doc__

    def __init__(self, model, *, threads=0, device="", plugins=(), optimization_level=1, plan_memory=True):
        super().__init__(_os.fspath(model) if not isinstance(model, bytes) else model,
                         threads=threads, device=device, plugins=default_plugins() + list(plugins),
                         optimization_level=optimization_level, plan_memory=plan_memory)


def ops(plugins=()):
    """Every registered op: dicts with op_type, domain, since_version, plugin,
    differentiable and kernels (dicts with device, engine, priority, plugin),
    with the default plugins and `plugins` loaded. Session.ops() lists what a
    session loaded."""
    return _loom._ops(default_plugins() + list(plugins))


def plugins(plugins=()):
    """The loaded plugins: dicts with name, version, abi_version, path,
    schemas and kernels (counts) and devices, for the default plugins and
    `plugins`. Session.plugins() lists what a session loaded."""
    return _loom._plugins(default_plugins() + list(plugins))
