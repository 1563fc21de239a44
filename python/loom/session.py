"""loom.Session: run a model (ONNX or NetDef) on numpy arrays, as ONNX
Runtime's InferenceSession does."""
import os as _os

from . import _loom
from .registry import default_plugins, plugin_paths

__all__ = ["Session"]


class Session(_loom.Session):
    """Session(model, *, threads=0, device="", plugins=(), optimization_level=1,
    plan_memory=True, max_tensor_bytes=16 GiB, fpmath_mode="strict",
    external_data_dir="") is
    loom::Session (session/session.h).

    `model` is an ONNX file (*.onnx), ONNX bytes, or a Loom NetDef file; the
    default plugins that ship in this package are loaded first, then
    `plugins` (paths). run(output_names, feed) follows ONNX Runtime's
    InferenceSession.run: `output_names` None means every output, in
    `outputs` order; `feed` maps input names to values; it returns a list of
    numpy arrays. As ONNX Runtime, it takes numpy arrays of str objects (or
    of kind 'U'/'S') for string inputs, lists for sequence inputs (items of
    one dtype) and None or the value for optional inputs, by each input's
    declared type (python/README.md). Numeric inputs that are C-contiguous,
    aligned and in native byte order are read in place; run releases the GIL, so threads may share a
    session. `inputs`/`outputs` list TensorInfo (name, dtype, shape);
    ops()/plugins() list what the session loaded. Errors raise loom.Error (a
    RuntimeError) whose text starts with the status code and names the op,
    input or option. fpmath_mode="bf16" runs float32 convolutions and
    matmuls on bfloat16 inputs where the CPU has AVX-512 BF16 or AMX
    (core/fpmath_mode.h; `loom_quantize --bf16` prints its error on a
    model). A model with external data reads it from its file's folder;
    given as bytes, from `external_data_dir` (refused without one).
    """

    def __init__(self, model, *, threads=0, device="", plugins=(), optimization_level=1, plan_memory=True,
                 max_tensor_bytes=16 << 30, fpmath_mode="strict", external_data_dir=""):
        super().__init__(_os.fspath(model) if not isinstance(model, bytes) else model,
                         threads=threads, device=device, plugins=default_plugins() + plugin_paths(plugins),
                         optimization_level=optimization_level, plan_memory=plan_memory,
                         max_tensor_bytes=max_tensor_bytes, fpmath_mode=fpmath_mode,
                         external_data_dir=_os.fspath(external_data_dir))
