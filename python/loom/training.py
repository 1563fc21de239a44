"""Training from Python: the backward pass, the optimizer update, learning-
rate schedules and the evaluation net (core/autodiff/, Caffe2's
AddGradientOperators and optimizer helpers).

    grads = loom.add_backward(net, ["loss"])            # {param: its gradient blob}
    loom.add_optimizer(net, grads, "Momentum", alpha=0.9)
    ws.create_net(net)
    for step in range(steps):
        ws.run(net.name, {"x": xb, "y": yb, "learning_rate": np.float32(lr), "step": np.int64(step)})
"""
from . import _loom
from .net_builder import NetBuilder
from .protos import as_names, make_argument

__all__ = ["add_backward", "add_optimizer", "inference_net", "LearningRateSchedule", "OPTIMIZERS"]

# The optimizers add_optimizer knows: ONNX ai.onnx.preview.training ops,
# SGD and Nesterov being Momentum's settings.
OPTIMIZERS = ("SGD", "Momentum", "Nesterov", "Adam", "Adagrad")


def add_backward(net, losses, wrt=None, stop_gradients=(), output_gradients=None, accumulate=False):
    """Appends to `net` (a NetBuilder, changed in place) the ops computing
    the gradients of `losses` (blob names, any shape: each is seeded with
    ones, the gradient of its sum) and returns {blob: its gradient's blob}
    for every `wrt` blob a loss depends on; those gradients become external
    outputs.

    `wrt`: blobs to differentiate (default: the net's initializers, its
    parameters). `stop_gradients`: blobs no gradient flows through
    (PyTorch's detach), joined with net.stop_gradients. `output_gradients`:
    {loss: blob} for a loss whose gradient is given instead of ones.
    `accumulate`: each gradient is added into `<wrt>_grad_accum` (MXNet's
    grad_req='add'); remove those blobs before the first micro-batch.

    Semantics: core/autodiff/backward.h (the net must be SSA). loom.Error:
    INVALID_ARGUMENT for an unknown loss or wrt blob or a blob written
    twice, UNIMPLEMENTED naming an op on the path that has no gradient."""
    stops = set(as_names(stop_gradients)) | set(net.stop_gradients)
    data, gradients, _, _ = _loom._add_backward(net.registry, net.serialize(), as_names(losses), as_names(wrt),
                                                stops, dict(output_gradients or {}), accumulate)
    net.proto.ParseFromString(data)
    return dict(gradients)


def add_optimizer(net, gradients, optimizer="Momentum", *, learning_rate="learning_rate", step="step",
                  max_gradient_norm=0.0, write_back_running_statistics=True, **attributes):
    """Appends the parameter update for `gradients` ({param: gradient blob},
    add_backward's result) to `net` (changed in place): one optimizer op
    over every parameter, updating it and its states in place; the states
    are new zero initializers named `<param>_momentum` (Momentum),
    `<param>_adam_v` and `<param>_adam_h` (Adam), `<param>_adagrad_h`
    (Adagrad), saved by checkpoints like the parameters.

    `optimizer`: "SGD" (Momentum with alpha 0), "Momentum" (PyTorch's SGD
    momentum: alpha, default 0.9), "Nesterov" (mode nesterov), "Adam"
    (alpha, beta, epsilon), "Adagrad" (decay_factor, epsilon); every one
    takes norm_coefficient (weight decay). `attributes` are the ONNX op's
    (ai.onnx.preview.training, opset 1), checked against its schema.
    Before each run feed `learning_rate` (float32 scalar) and `step` (int64
    scalar: updates so far; Momentum's first step, 0, takes the gradient as
    it is, and Adam bias-corrects only from 1: feed step + 1 for Adam).
    `max_gradient_norm` > 0 clips every gradient by the global norm first
    (PyTorch's clip_grad_norm_). `write_back_running_statistics`: training-
    mode BatchNormalization's updated statistics are copied back after the
    update, as loom_train does. loom.Error: INVALID_ARGUMENT for a parameter
    that is not a float initializer of `net` or a taken state name;
    ValueError for an unknown optimizer, TypeError for an attribute the
    optimizer's schema lacks or a value of the wrong type."""
    if optimizer not in OPTIMIZERS:
        raise ValueError("loom: optimizer must be one of %s; found %r" % (", ".join(OPTIMIZERS), optimizer))
    op_type = {"SGD": "Momentum", "Nesterov": "Momentum"}.get(optimizer, optimizer)
    if optimizer == "SGD":
        attributes.setdefault("alpha", 0.0)
    if optimizer == "Nesterov":
        attributes["mode"] = "nesterov"
    if op_type == "Momentum":
        attributes.setdefault("alpha", 0.9)
        attributes.setdefault("beta", 1.0)
        attributes.setdefault("norm_coefficient", 0.0)
    schema = net.registry.cached_schema(op_type, "ai.onnx.preview.training")
    args = []
    for key in sorted(attributes):
        spec = schema["attributes"].get(key)
        if spec is None:
            raise TypeError("loom: %s has no attribute '%s' (it has: %s)" %
                            (op_type, key, ", ".join(sorted(schema["attributes"]))))
        args.append(make_argument(key, attributes[key], spec["type"], op_type).SerializeToString())
    net.proto.ParseFromString(_loom._add_optimizer(net.serialize(), dict(gradients), op_type, args, learning_rate,
                                                   step, float(max_gradient_norm), write_back_running_statistics))


def inference_net(net, name=None):
    """The evaluation form of a training forward net (before add_backward):
    training-mode ops switched to inference (BatchNormalization normalizes
    with its running statistics, Dropout is the identity) and the
    initializers left out and read as external inputs, so it runs on the
    parameters a training net in the same workspace updates."""
    proto = net.proto.__class__()
    proto.CopyFrom(net.proto)
    del proto.initializer[:]
    proto.ParseFromString(_loom._for_inference(proto.SerializeToString()))
    for t in net.proto.initializer:
        if t.name not in proto.external_input:
            proto.external_input.append(t.name)
    b = NetBuilder.from_proto(proto, net.registry)
    b.proto.name = name or net.proto.name + "_eval"
    return b


class LearningRateSchedule:
    """LearningRateSchedule(kind, base, gamma=0.1, step_size=1): PyTorch's
    schedulers as data; at(step) is the rate for update `step` (from 0):
    "constant" base, "step" base * gamma ** (step // step_size) (StepLR),
    "exponential" base * gamma ** step (ExponentialLR)."""

    _KINDS = {"constant": _loom.LearningRateSchedule.Kind.constant,
              "step": _loom.LearningRateSchedule.Kind.step,
              "exponential": _loom.LearningRateSchedule.Kind.exponential}

    def __init__(self, kind, base, gamma=0.1, step_size=1):
        if kind not in self._KINDS:
            raise ValueError("loom: schedule kind must be constant, step or exponential; found %r" % (kind,))
        if step_size < 1:
            raise ValueError("loom: step_size must be >= 1; found %r" % (step_size,))
        self.kind = kind
        self._s = _loom.LearningRateSchedule(self._KINDS[kind], float(base), float(gamma), int(step_size))

    def at(self, step):
        return self._s.at(int(step))
