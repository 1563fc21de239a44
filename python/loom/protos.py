"""numpy arrays and Python values as Loom protos (loom_pb2, generated from
core/proto/loom.proto): tensors, operator arguments, nets."""
import numpy as _np

from . import loom_pb2

__all__ = ["tensor_proto", "to_array", "make_argument", "argument_value", "as_netdef", "as_names"]

# ONNX TensorProto.DataType codes (loom.proto's data_type) <-> numpy.
_CODES = {
    _np.dtype(_np.float32): 1, _np.dtype(_np.uint8): 2, _np.dtype(_np.int8): 3, _np.dtype(_np.uint16): 4,
    _np.dtype(_np.int16): 5, _np.dtype(_np.int32): 6, _np.dtype(_np.int64): 7, _np.dtype(_np.bool_): 9,
    _np.dtype(_np.float16): 10, _np.dtype(_np.float64): 11, _np.dtype(_np.uint32): 12, _np.dtype(_np.uint64): 13,
}
_DTYPES = {code: dtype for dtype, code in _CODES.items()}


def tensor_proto(array, name=""):
    """A loom_pb2.TensorProto holding `array`'s values (raw little-endian
    bytes, row-major) and dims; TypeError for a dtype Loom does not hold."""
    a = _np.asarray(array)
    if a.dtype not in _CODES:
        raise TypeError("loom: tensor %r has numpy dtype %s, which Loom does not hold" % (name, a.dtype))
    t = loom_pb2.TensorProto(name=name, dims=list(a.shape), data_type=_CODES[a.dtype])
    t.raw_data = _np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<")).tobytes()
    return t


def to_array(t):
    """The values of a loom_pb2.TensorProto as a numpy array (raw_data or the
    typed fields)."""
    if t.data_type not in _DTYPES:
        raise TypeError("loom: tensor %r has data_type %d, which numpy does not hold" % (t.name, t.data_type))
    dtype = _DTYPES[t.data_type]
    shape = tuple(t.dims)
    if t.raw_data:
        return _np.frombuffer(t.raw_data, dtype=dtype.newbyteorder("<")).astype(dtype).reshape(shape)
    if t.float_data:
        values = t.float_data
    elif t.double_data:
        values = t.double_data
    elif t.int64_data:
        values = t.int64_data
    elif dtype == _np.float16:
        return _np.array(t.int32_data, dtype=_np.uint16).view(_np.float16).reshape(shape)
    else:
        values = t.int32_data
    return _np.array(values, dtype=dtype).reshape(shape)


def as_names(v):
    """`v` as a list of names: a str is one name (not its characters)."""
    if v is None:
        return []
    return [v] if isinstance(v, (str, bytes)) else list(v)


def as_netdef(net):
    """A loom_pb2.NetDef from a NetDef, a NetBuilder (its proto) or bytes."""
    if isinstance(net, loom_pb2.NetDef):
        return net
    if isinstance(net, (bytes, bytearray)):
        n = loom_pb2.NetDef()
        n.ParseFromString(bytes(net))
        return n
    proto = getattr(net, "proto", None)
    if isinstance(proto, loom_pb2.NetDef):
        return proto
    raise TypeError("loom: expected a NetDef, a NetBuilder or bytes; found %s" % type(net).__name__)


def _infer_type(value):
    if isinstance(value, (bool, int, _np.integer)):
        return "int"
    if isinstance(value, (float, _np.floating)):
        return "float"
    if isinstance(value, (str, bytes)):
        return "string"
    if isinstance(value, _np.ndarray):
        return "tensor"
    if isinstance(value, loom_pb2.NetDef) or isinstance(getattr(value, "proto", None), loom_pb2.NetDef):
        return "net"
    if isinstance(value, (list, tuple)):
        if not value:
            return "ints"
        return {"int": "ints", "float": "floats", "string": "strings", "net": "nets"}.get(_infer_type(value[0]), "?")
    return "?"


def make_argument(name, value, attr_type=None, where="an operator"):
    """A loom_pb2.Argument `name` = `value`, of the schema's `attr_type`
    (float, int, string, tensor, net, floats, ints, strings, nets; None:
    from the value: bool and int -> int, float -> float, str/bytes ->
    string, numpy array -> tensor, NetDef/NetBuilder -> net, lists of
    those -> the list types). An int is taken for a float. TypeError names
    `where`, the attribute, the expected and the found type."""
    t = attr_type or _infer_type(value)
    a = loom_pb2.Argument(name=name)

    def bad():
        return TypeError("loom: %s: attribute '%s' takes %s; found %s %r" %
                         (where, name, t, type(value).__name__, value))

    try:
        if t == "float":
            if isinstance(value, (str, bytes, list, tuple)) or isinstance(value, _np.ndarray):
                raise bad()
            a.f = float(value)
        elif t == "int":
            if isinstance(value, (float, _np.floating)) and not float(value).is_integer():
                raise bad()
            if isinstance(value, (str, bytes, list, tuple)) or isinstance(value, _np.ndarray):
                raise bad()
            a.i = int(value)
        elif t == "string":
            if not isinstance(value, (str, bytes)):
                raise bad()
            a.s = value.encode() if isinstance(value, str) else value
        elif t == "tensor":
            a.t.CopyFrom(tensor_proto(_np.asarray(value), name))
        elif t == "net":
            a.n.CopyFrom(as_netdef(value))
        elif t == "floats":
            a.floats.extend(float(v) for v in value)
        elif t == "ints":
            for v in value:
                if isinstance(v, (float, _np.floating)) and not float(v).is_integer():
                    raise bad()
            a.ints.extend(int(v) for v in value)
        elif t == "strings":
            a.strings.extend(v.encode() if isinstance(v, str) else bytes(v) for v in as_names(value))
        elif t == "nets":
            for v in value:
                a.nets.add().CopyFrom(as_netdef(v))
        else:
            raise bad()
    except (TypeError, ValueError) as e:
        if isinstance(e, TypeError) and str(e).startswith("loom:"):
            raise
        raise bad() from e
    return a


def argument_value(a):
    """The Python value of a loom_pb2.Argument (the field that is set)."""
    for field in ("f", "i", "s", "t", "n"):
        if a.HasField(field):
            v = getattr(a, field)
            return to_array(v) if field == "t" else v
    for field in ("floats", "ints", "strings", "nets"):
        v = getattr(a, field)
        if len(v):
            return list(v)
    return []
