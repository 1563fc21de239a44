"""loom.NetBuilder: nets built op by op from Python (Caffe2's core.Net),
each op checked against its schema as it is added."""
import functools as _functools
import os as _os

from google.protobuf import text_format as _text_format

from . import _loom
from . import loom_pb2
from .protos import as_netdef, make_argument, tensor_proto
from .registry import default_registry

__all__ = ["NetBuilder", "make_op"]


def _names(blobs, what):
    if blobs is None:
        return []
    if isinstance(blobs, str):
        return [blobs]
    out = []
    for b in blobs:
        if b is None:
            out.append("")  # an absent optional input
        elif isinstance(b, str):
            out.append(b)
        else:
            raise TypeError("loom: %s must be blob names (str); found %s %r" % (what, type(b).__name__, b))
    return out


def make_op(op_type, inputs, outputs, *, domain="", name="", device=None, engine="", registry=None, **attributes):
    """A loom_pb2.OperatorDef of `op_type` (an ONNX or Caffe2 name) reading
    `inputs` and writing `outputs` (blob names; None in inputs: an absent
    optional input), its `attributes` converted by the schema's attribute
    types (protos.make_argument). `device`: "CPU", "CUDA" or "CUDA:1".
    Raises loom.Error (NOT_FOUND) for an op the registry lacks and TypeError
    for an attribute value of the wrong type; the op is not otherwise
    checked (NetBuilder.op checks it)."""
    registry = registry or default_registry()
    schema = registry.cached_schema(op_type, domain)
    where = "op '%s' (%s)" % (name, op_type) if name else "op %s" % op_type
    op = loom_pb2.OperatorDef(type=op_type, domain=domain, name=name, engine=engine)
    op.input.extend(_names(inputs, where + " inputs"))
    op.output.extend(_names(outputs, where + " outputs"))
    for key in sorted(attributes):
        spec = schema["attributes"].get(key)
        op.arg.append(make_argument(key, attributes[key], spec["type"] if spec else None, where))
    if device:
        kind, _, index = device.partition(":")
        op.device_option.device_type = kind
        op.device_option.device_id = int(index or 0)
    return op


class NetBuilder:
    """NetBuilder(name="net", registry=None): a loom_pb2.NetDef (`proto`)
    built op by op.

        net = loom.NetBuilder("mlp")
        x = net.add_input("x")                        # float32 [N, 64]
        net.add_initializer("W", np.zeros((64, 10), np.float32))
        y = net.MatMul([x, "W"])                      # returns the output's name
        loss = net.ReduceMean(y, "loss", keepdims=0)
        net.add_output(loss)

    net.<OpType>(inputs, outputs=None, **attributes) is op(<OpType>, ...).
    Every op is checked against the registry's schema when it is added
    (input and output counts, attribute names and types, a kernel for its
    device): loom.Error names the op, the attribute, the expected and the
    found. `stop_gradients` collects blobs no gradient may flow through
    (recurrent_net's outputs not in outputs_with_grads); add_backward adds
    them to its own.
    """

    def __init__(self, name="net", registry=None):
        self.proto = loom_pb2.NetDef(name=name)
        self.registry = registry or default_registry()
        self.stop_gradients = set()
        self._next = 0

    # -- construction ---------------------------------------------------
    @classmethod
    def from_proto(cls, netdef, registry=None):
        """A builder over a copy of `netdef` (a NetDef, NetBuilder or bytes)."""
        b = cls(registry=registry)
        b.proto.CopyFrom(as_netdef(netdef))
        return b

    @classmethod
    def load(cls, path, registry=None, *, training=False, optimization_level=1):
        """A builder over the net in `path`: an ONNX model (*.onnx; imported,
        then optimized as a Session does, or with only the gradient-safe
        passes when `training`, as loom_train does), a text NetDef
        (*.pbtxt) or a binary NetDef (anything else). loom.Error names the
        file or the node that does not import."""
        path = _os.fspath(path)
        b = cls(registry=registry)
        b.proto.Clear()
        if path.endswith(".onnx"):
            b.proto.ParseFromString(_loom._import_onnx(path, training, optimization_level))
        elif path.endswith(".pbtxt"):
            with open(path) as f:
                _text_format.Parse(f.read(), b.proto)
        else:
            with open(path, "rb") as f:
                b.proto.ParseFromString(f.read())
        return b

    def clone(self, name=None):
        """A copy (ops, initializers, inputs and outputs, stop_gradients)."""
        b = NetBuilder.from_proto(self.proto, self.registry)
        b.stop_gradients = set(self.stop_gradients)
        if name is not None:
            b.proto.name = name
        return b

    @property
    def name(self):
        return self.proto.name

    # -- blobs ------------------------------------------------------------
    def add_input(self, name):
        """Declares `name` an external input (fed before each run); returns it."""
        if name not in self.proto.external_input:
            self.proto.external_input.append(name)
        return name

    def add_output(self, name):
        """Declares `name` an external output (kept after each run); returns it."""
        if name not in self.proto.external_output:
            self.proto.external_output.append(name)
        return name

    def add_initializer(self, name, value):
        """An initializer (a parameter or constant, its values in the net)
        from a numpy array; replaces one of that name. Returns `name`."""
        for i, t in enumerate(self.proto.initializer):
            if t.name == name:
                del self.proto.initializer[i]
                break
        self.proto.initializer.append(tensor_proto(value, name))
        return name

    def initializer_names(self):
        """The initializers' names, in order (the parameters AddBackward
        differentiates by default)."""
        return [t.name for t in self.proto.initializer]

    def _unique(self, op_type):
        taken = set(self.proto.external_input) | {t.name for t in self.proto.initializer}
        for op in self.proto.op:
            taken.update(op.output)
        while True:
            self._next += 1
            candidate = "%s_%d" % (op_type.lower(), self._next)
            if candidate not in taken:
                return candidate

    # -- ops ----------------------------------------------------------------
    def op(self, op_type, inputs, outputs=None, *, domain="", name="", device=None, engine="", **attributes):
        """Appends an op and returns its output name (one output) or a tuple
        of names. `outputs`: names, or None (one output) or an int (that
        many), named "<op_type>_<k>". Checked as the class says."""
        if outputs is None:
            outputs = 1
        if isinstance(outputs, int):
            outputs = [self._unique(op_type) for _ in range(outputs)]
        op = make_op(op_type, inputs, outputs, domain=domain, name=name, device=device, engine=engine,
                     registry=self.registry, **attributes)
        self.registry.check_op(op.SerializeToString())
        self.proto.op.append(op)
        out = list(op.output)
        return out[0] if len(out) == 1 else tuple(out)

    def add_op(self, op):
        """Appends a loom_pb2.OperatorDef as it is, checked; returns its outputs."""
        self.registry.check_op(op.SerializeToString())
        self.proto.op.append(op)
        return list(op.output)

    def __getattr__(self, op_type):
        if op_type[:1].isupper():
            return _functools.partial(self.op, op_type)
        raise AttributeError(op_type)

    # -- output -------------------------------------------------------------
    def serialize(self):
        """The NetDef's bytes."""
        return self.proto.SerializeToString()

    def save(self, path):
        """Writes the NetDef: text format for *.pbtxt, binary otherwise."""
        path = _os.fspath(path)
        if path.endswith(".pbtxt"):
            with open(path, "w") as f:
                f.write(_text_format.MessageToString(self.proto))
        else:
            with open(path, "wb") as f:
                f.write(self.serialize())

    def __str__(self):
        return _text_format.MessageToString(self.proto)
