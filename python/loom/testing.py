"""loom.testing.gradient_check: the gradients Loom's backward builder makes
for one op, against central finite differences (the Python twin of
testing/gradient_check.h, for ops built or written in Python, custom-op
plugins included)."""
import numpy as _np

from .net_builder import NetBuilder
from .training import add_backward
from .workspace import Workspace

__all__ = ["gradient_check"]

_FLOATS = (_np.dtype(_np.float32), _np.dtype(_np.float64))


def gradient_check(op, inputs, *, registry=None, check=None, eps=0.0, tolerance=0.0, seed=7):
    """Checks the gradient of `op` (a loom_pb2.OperatorDef, e.g. from
    loom.make_op or the RecurrentNetwork op recurrent_net added) at
    `inputs` (numpy arrays in op.input order; None for an absent input).

    The loss is L = sum_k sum(float64(Y_k) * R_k) over the op's float
    outputs Y_k, with fixed random weights R_k in [-1, 1] drawn from
    `seed`; for every element x of every checked input,
    numeric = (L(x + eps) - L(x - eps)) / (2 eps) (the steps rounded to
    the input's dtype) is compared with the analytic gradient:
    |analytic - numeric| <= tolerance * max(1, |numeric|).

    `check`: input indices to check (default: every float64 input, or
    every float32 one where none is float64; all must share a dtype).
    `eps`, `tolerance`: 0 picks 1e-6 and 1e-6 for float64, 1e-2 and 1e-2
    for float32. Returns the worst relative error; raises AssertionError
    naming the input, element, analytic and numeric values of the worst
    mismatch, and loom.Error when a net cannot be built or run (an op
    without a gradient: UNIMPLEMENTED naming it)."""
    inputs = [None if x is None else _np.asarray(x) for x in inputs]
    if len(inputs) != len(op.input):
        raise ValueError("loom: gradient_check: %d inputs for an op with %d" % (len(inputs), len(op.input)))
    if check is None:
        for dtype in (_np.float64, _np.float32):
            check = [i for i, x in enumerate(inputs) if x is not None and op.input[i] and x.dtype == dtype]
            if check:
                break
    if not check:
        raise ValueError("loom: gradient_check: the op has no float32 or float64 input to check")
    dtype = inputs[check[0]].dtype
    if dtype not in _FLOATS or any(inputs[i].dtype != dtype for i in check):
        raise ValueError("loom: gradient_check: checked inputs must all be float64 or all float32")
    f32 = dtype == _np.float32
    eps = eps or (1e-2 if f32 else 1e-6)
    tolerance = tolerance or (1e-2 if f32 else 1e-6)

    ws = Workspace(registry)
    # The outputs' shapes and dtypes, from one plain run.
    plain = NetBuilder("gradient_check_plain", ws.registry)
    names = [n for n in op.input if n]
    for name, x in zip(op.input, inputs):
        if name:
            plain.add_input(name)
            ws.feed_blob(name, x)
    plain.add_op(op)
    for o in op.output:
        if o:
            plain.add_output(o)
    ws.run_net_once(plain, num_threads=1)
    outputs = [ws.fetch_blob(o) if o else None for o in op.output]

    net = NetBuilder("gradient_check", ws.registry)
    for name in names:
        net.add_input(name)
    net.add_op(op)
    rng = _np.random.default_rng(seed)
    sums = []
    for k, (name, y) in enumerate(zip(op.output, outputs)):
        if not name or y.dtype not in _FLOATS:
            continue
        if y.dtype == _np.float32:
            name = net.Cast(name, "__y%d_f64" % k, to=11)
        r = net.add_initializer("__R%d" % k, rng.uniform(-1.0, 1.0, size=y.shape))
        sums.append(net.ReduceSum(net.Mul([name, r], "__p%d" % k), "__s%d" % k, keepdims=0))
    if not sums:
        raise ValueError("loom: gradient_check: the op has no float32 or float64 output")
    net.Sum(sums, "__loss")
    net.add_output("__loss")
    grads = add_backward(net, "__loss", wrt=[op.input[i] for i in check])
    ws.create_net(net, num_threads=1)

    def loss():
        ws.run_net("gradient_check")
        return float(ws.fetch_blob("__loss"))

    loss()
    worst, worst_what = 0.0, ""
    for i in check:
        name = op.input[i]
        if name not in grads:
            raise AssertionError("loom: no gradient was built for input %d '%s'" % (i, name))
        loss()
        analytic = ws.fetch_blob(grads[name]).astype(_np.float64)
        if analytic.shape != inputs[i].shape:
            raise AssertionError("loom: gradient of '%s' has shape %s; the input %s" %
                                 (name, analytic.shape, inputs[i].shape))
        x = inputs[i].copy()
        flat = x.reshape(-1)
        for e in range(flat.size):
            saved = flat[e]
            up, down = dtype.type(float(saved) + eps), dtype.type(float(saved) - eps)
            flat[e] = up
            ws.feed_blob(name, x)
            plus = loss()
            flat[e] = down
            ws.feed_blob(name, x)
            minus = loss()
            flat[e] = saved
            numeric = (plus - minus) / (float(up) - float(down))
            a = float(analytic.reshape(-1)[e])
            err = abs(a - numeric) / max(1.0, abs(numeric))
            if err > worst:
                worst = err
                worst_what = "input %d '%s' element %d: analytic %.9g, numeric %.9g" % (i, name, e, a, numeric)
        ws.feed_blob(name, x)
    if worst > tolerance:
        raise AssertionError("loom: relative error %.3g > %.3g at %s" % (worst, tolerance, worst_what))
    return worst
