"""Loom from Python: run models, build nets, train them.

Inference (ONNX Runtime's InferenceSession):

    import numpy as np, loom
    s = loom.Session("model.onnx", threads=2)
    (y,) = s.run(None, {"x": np.zeros((1, 3, 224, 224), np.float32)})

Building and training nets (Caffe2's core.Net and workspace):

    net = loom.NetBuilder.load("mlp.pb")             # or op by op: net.Gemm([...])
    grads = loom.add_backward(net, ["loss"])
    loom.add_optimizer(net, grads, "Momentum", alpha=0.9)
    ws = loom.Workspace()
    ws.create_net(net)
    for step, (x, y) in enumerate(batches):
        (loss,) = ws.run(net.name, {"x": x, "y": y, "learning_rate": np.float32(0.1),
                                    "step": np.int64(step)}, ["loss"])

Modules: registry (Registry, ops, plugins), session (Session), net_builder
(NetBuilder, make_op), workspace (Workspace, Trace), training
(add_backward, add_optimizer, inference_net, LearningRateSchedule),
parallel (data parallelism), rnn (recurrent_net and cells), testing
(gradient_check), protos (numpy <-> TensorProto), loom_pb2 (the protos).
python/README.md documents every function. Errors raise loom.Error (a
RuntimeError) whose text starts with the status code and names the op,
input or attribute, the expected and the found.
"""
from . import loom_pb2
from . import rnn
from . import testing
from ._loom import Error, TensorInfo
from .net_builder import NetBuilder, make_op
from .parallel import DataParallelOptions, add_allreduce, broadcast_net, split_across_contexts
from .protos import tensor_proto, to_array
from .registry import Registry, default_plugins, default_registry, ops, plugins
from .session import Session
from .training import LearningRateSchedule, add_backward, add_optimizer, inference_net
from .workspace import Trace, Workspace

__all__ = [
    "Error", "TensorInfo", "Session", "Registry", "default_registry", "default_plugins", "ops", "plugins",
    "NetBuilder", "make_op", "Workspace", "Trace", "add_backward", "add_optimizer", "inference_net",
    "LearningRateSchedule", "DataParallelOptions", "add_allreduce", "broadcast_net", "split_across_contexts",
    "tensor_proto", "to_array", "rnn", "testing", "loom_pb2",
]
