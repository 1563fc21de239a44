"""loom_quantize: static int8 quantization of a float32 ONNX model into the
standard QDQ form (QuantizeLinear/DequantizeLinear pairs around the
quantized ops' inputs, as ONNX Runtime's quantize_static writes it), with
activation ranges calibrated by running the model on sample inputs with
Loom, and the error against float32 printed per output.

    loom_quantize --model model.onnx --samples samples/ --out model_int8.onnx [--method percentile]
    loom_quantize --model model.onnx --samples samples/ --bf16

With --bf16 nothing is quantized or written: the same comparison prints what
fpmath_mode bf16 (Session(fpmath_mode="bf16"): float32 convolutions and
matmuls on bfloat16 inputs, core/fpmath_mode.h) does to the model's outputs.

First, as ONNX Runtime's quantization pre-processing does (preprocess):
Constant nodes become initializers, and BatchNormalization, and Mul or Add by
a per-channel constant, after a Conv (or a ConvTranspose of one group) fold
into its weights, so that the op and its weights quantize as one op.

What is quantized (--ops; ONNX Runtime's QDQ format, so that a runtime
fuses each DequantizeLinear -> op -> QuantizeLinear into one int8 op and
tensors stay int8 from one such op to the next): the float inputs and the
output of Conv, ConvTranspose, Add (of two activations; an Add of a
constant stays float) and MaxPool by default, the ops Loom runs as int8;
MatMul and Gemm on request (--ops Conv,ConvTranspose,Add,MaxPool,MatMul,Gemm). A Relu or Clip that alone
reads such an op's output is removed and the op's output takes the
activation's name and range (ONNX Runtime's removable activations): the
QuantizeLinear's range starts at the activation's lower bound, so it clips
as the activation did. MaxPool's output keeps its input's parameters (max
commutes with quantization). Net outputs stay float32.
- Activations: uint8, asymmetric, per tensor: the calibrated range
  [lo, hi] widened to include 0, scale = (hi - lo) / 255, zero point =
  round(-lo / scale). --method minmax takes each tensor's min and max over
  all samples; percentile the --percentile-th and (100 - p)-th percentiles
  of each sample's values, averaged over the samples (outliers clipped).
- Weights (initializers): int8, symmetric (zero point 0), scale =
  max|w| / 127, per output channel (Conv's W axis 0, ConvTranspose's axis 1
  with one group, MatMul's and Gemm's B along N) where the model's opset is
  13 or later (per-axis DequantizeLinear), else per tensor.
- Biases of Conv, ConvTranspose and Gemm: int32 with scale input_scale * weight_scale and
  zero point 0, as ONNX Runtime quantizes them.
The graph keeps float32 between the pairs, so any runtime that loads QDQ
models runs it (Loom's fuse_qdq pass and ONNX Runtime's QDQ transformers run
the quantized ops as int8 kernels).

A model of opset 9 or older is first converted to opset 13, or 11 where
that fails (onnx.version_converter; upgrade_opset): QuantizeLinear and
DequantizeLinear need opset 10.

Samples: a folder of .npz files (arrays named after the model's inputs) or,
for a one-input model, .npy files; each file is one run.
"""
import argparse
import glob
import os
import sys
import tempfile

import numpy as np

from .net_builder import NetBuilder
from .session import Session
from .workspace import Workspace

__all__ = ["load_samples", "calibrate", "activation_params", "weight_params", "upgrade_opset", "preprocess",
           "constants_to_initializers", "remove_activations", "quantized_tensors", "quantize_model", "quantize_dynamic_model", "compare",
           "cpu_has_bf16", "main", "QUANTIZABLE", "DEFAULT_OPS", "DYNAMIC_OPS"]

QUANTIZABLE = ("Conv", "ConvTranspose", "MatMul", "Gemm", "Add", "MaxPool")
# What --ops quantizes by default: the ops Loom runs as int8 (fuse_qdq).
# MatMul and Gemm quantize on request: Loom runs them in float32 between
# their pairs, and the PP-OCRv4 recognizer's attention MatMuls, quantized,
# made 2 of 20 rendered lines read differently (tools/bench/ocr_int8_lines.py).
DEFAULT_OPS = ("Conv", "ConvTranspose", "Add", "MaxPool")
_WEIGHTED = ("Conv", "ConvTranspose", "MatMul", "Gemm")
_BIASED = ("Conv", "ConvTranspose", "Gemm")
_ACTIVATIONS = ("Relu", "Clip")


def load_samples(folder, input_names):
    """The sample runs in `folder`: a list of {input name: array}, files in
    name order. ValueError when there are none or a file lacks an input."""
    files = sorted(glob.glob(os.path.join(folder, "*.npz")) + glob.glob(os.path.join(folder, "*.npy")))
    if not files:
        raise ValueError("loom_quantize: no .npz or .npy samples in %s" % folder)
    runs = []
    for f in files:
        if f.endswith(".npy"):
            if len(input_names) != 1:
                raise ValueError("loom_quantize: %s is one array; the model has inputs %s (use .npz)" % (f, input_names))
            runs.append({input_names[0]: np.load(f)})
            continue
        with np.load(f) as z:
            missing = [n for n in input_names if n not in z.files]
            if missing:
                raise ValueError("loom_quantize: %s lacks inputs %s (it has %s)" % (f, missing, z.files))
            runs.append({n: z[n] for n in input_names})
    return runs


def _model_inputs(model):
    inits = {t.name for t in model.graph.initializer}
    return [i.name for i in model.graph.input if i.name not in inits]


def _float_inputs(node, inits):
    """The activation inputs of `node` that get quantized (not initializers;
    Gemm's C and Conv's B are biases)."""
    if node.op_type in ("Conv", "ConvTranspose", "Gemm"):
        names = list(node.input[:1])
    elif node.op_type == "MatMul":
        names = list(node.input[:2])
    elif node.op_type == "Add":
        names = list(node.input[:2])
    else:
        names = list(node.input[:1])
    return [n for n in names if n and n not in inits]


def _quantized(node, ops, inits):
    """Whether `node`'s inputs and output get quantized: an op of `ops`,
    and for Add one of two activations (an Add of a constant, a bias, runs
    float: no int8 Add takes it, and an activation after it stays)."""
    if node.op_type not in ops:
        return False
    return node.op_type != "Add" or len(_float_inputs(node, inits)) == 2


def upgrade_opset(model, sample=None, minimum=10):
    """`model` itself when it imports ONNX opset `minimum` or later
    (QuantizeLinear and DequantizeLinear exist from 10,
    DynamicQuantizeLinear from 11); else converted by
    onnx.version_converter, which rewrites the ops whose form changed: to
    opset 13 (per-channel weights), or to 11 (ONNX Runtime's quantizer's
    choice) where an adapter to 13 fails. The Softmax 12 -> 13 adapter needs
    its input's rank, which ONNX's shape inference may not find in a
    dynamic model: with `sample` ({input: array}), Loom runs the model once
    and the ranks it finds are given to the converter."""
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 0)
    if opset >= minimum:
        return model
    from onnx import helper, shape_inference, version_converter
    model = shape_inference.infer_shapes(model)
    try:
        return version_converter.convert_version(model, 13)
    except RuntimeError:
        if sample is None:
            return version_converter.convert_version(model, 11)
    ranked = {v.name for v in model.graph.value_info if v.type.tensor_type.HasField("shape")}
    wanted = [n.input[0] for n in model.graph.node
              if n.op_type in ("Softmax", "LogSoftmax", "Hardmax") and n.input[0] not in ranked]
    kept = [v for v in model.graph.value_info if v.name not in wanted]
    del model.graph.value_info[:]
    model.graph.value_info.extend(kept)
    import onnx
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "model.onnx")
        onnx.save(model, path)
        values = next(_runs(path, [sample], wanted))
    for t in wanted:
        model.graph.value_info.append(helper.make_tensor_value_info(
            t, 1, ["%s_d%d" % (t, i) for i in range(values[t].ndim)]))
    try:
        return version_converter.convert_version(model, 13)
    except RuntimeError:
        return version_converter.convert_version(model, 11)


def constants_to_initializers(model):
    """Constant nodes (a `value` tensor) of `model` become initializers, in
    place: weights given as Constant nodes are weights too."""
    g = model.graph
    for n in [n for n in g.node if n.op_type == "Constant" and len(n.attribute) == 1 and n.attribute[0].name == "value"]:
        g.initializer.append(_tensor_copy(n.attribute[0].t, n.output[0]))
        g.node.remove(n)


def preprocess(model):
    """ONNX Runtime's quantization pre-processing, the parts that decide what
    can be quantized, on `model` in place: Constant nodes become
    initializers (weights given as Constant nodes are weights too), and a
    BatchNormalization, or a Mul or Add by a constant scalar or per-channel
    tensor ([C], [C, 1, 1], [1, C, 1, 1]), that alone reads a Conv's output
    (or a ConvTranspose's of one group) folds into its W and B (it then
    writes the folded op's output). Returns how many ops were folded."""
    from onnx import numpy_helper

    g = model.graph
    constants_to_initializers(model)
    inits = {t.name: t for t in g.initializer}
    outputs = {o.name for o in g.output}
    folded = 0
    changed = True
    while changed:
        changed = False
        readers = {}
        for n in g.node:
            for i in n.input:
                readers.setdefault(i, []).append(n)
        for conv in g.node:
            if conv.op_type not in ("Conv", "ConvTranspose") or len(conv.input) < 2 or conv.input[1] not in inits:
                continue
            # ConvTranspose's W is [C, M / group, k...]: one group only, whose
            # output channels are W's axis 1.
            axis = 0 if conv.op_type == "Conv" else 1
            if axis == 1 and _group(conv) != 1:
                continue
            if conv.output[0] in outputs or len(readers.get(conv.output[0], [])) != 1:
                continue
            nxt = readers[conv.output[0]][0]
            w = numpy_helper.to_array(inits[conv.input[1]]).astype(np.float64)
            m = w.shape[axis]
            b = (numpy_helper.to_array(inits[conv.input[2]]).astype(np.float64) if len(conv.input) > 2 and
                 conv.input[2] in inits else np.zeros(m))
            scale = shift = None
            if nxt.op_type == "BatchNormalization" and all(i in inits for i in nxt.input[1:5]) and len(nxt.output) == 1:
                gamma, beta, mean, var = (numpy_helper.to_array(inits[i]).astype(np.float64) for i in nxt.input[1:5])
                eps = next((a.f for a in nxt.attribute if a.name == "epsilon"), 1e-5)
                scale = gamma / np.sqrt(var + eps)
                shift = beta - mean * scale
            elif nxt.op_type in ("Mul", "Add") and len(nxt.input) == 2:
                other = nxt.input[1] if nxt.input[0] == conv.output[0] else nxt.input[0]
                c = _channel_constant(inits.get(other), m, w.ndim)
                if c is not None:
                    scale, shift = (c, np.zeros(m)) if nxt.op_type == "Mul" else (np.ones(m), c)
            if scale is None:
                continue
            w = w * scale.reshape((1,) * axis + (m,) + (1,) * (w.ndim - 1 - axis))
            b = b * scale + shift
            wn, bn = conv.name + "_folded_W%d" % folded, conv.name + "_folded_B%d" % folded
            g.initializer.extend([numpy_helper.from_array(w.astype(np.float32), wn),
                                  numpy_helper.from_array(b.astype(np.float32), bn)])
            inits[wn], inits[bn] = g.initializer[-2], g.initializer[-1]
            conv.input[1] = wn
            if len(conv.input) > 2:
                conv.input[2] = bn
            else:
                conv.input.append(bn)
            conv.output[0] = nxt.output[0]
            g.node.remove(nxt)
            folded += 1
            changed = True
            break
    used = {i for n in g.node for i in n.input} | outputs
    kept = [t for t in g.initializer if t.name in used]
    del g.initializer[:]
    g.initializer.extend(kept)
    return folded


def _group(node):
    return next((a.i for a in node.attribute if a.name == "group"), 1)


def _tensor_copy(t, name):
    from onnx import TensorProto
    c = TensorProto()
    c.CopyFrom(t)
    c.name = name
    return c


def _channel_constant(init, m, rank):
    """A constant that broadcasts onto a Conv output [N, m, D...] of `rank`
    dims along the channel axis alone (numpy rules: a scalar of at most
    `rank` dims, or m values whose dims, aligned right, are 1 except at
    axis 1, e.g. [m, 1, 1] for rank 4; a 1-D [m] would align with the last
    axis) as m float64 values; None otherwise."""
    if init is None:
        return None
    from onnx import numpy_helper
    v = numpy_helper.to_array(init).astype(np.float64)
    if v.ndim > rank:
        return None
    if v.size == 1:
        return np.full(m, float(v.reshape(-1)[0]))
    dims = (1,) * (rank - v.ndim) + v.shape
    if dims[1] == m and all(d == 1 for i, d in enumerate(dims) if i != 1):
        return v.reshape(-1)
    return None


def remove_activations(model, ops):
    """Removes each Relu / Clip that alone reads the output of an op in
    `ops` (not a net output), the op writing the activation's output
    instead; `model` is changed in place. Returns how many were removed."""
    g = model.graph
    outputs = {o.name for o in g.output}
    inits = {t.name for t in g.initializer}
    readers = {}
    for n in g.node:
        for i in n.input:
            readers.setdefault(i, []).append(n)
    drop = []
    for n in g.node:
        if not _quantized(n, ops, inits) or len(n.output) != 1 or n.output[0] in outputs:
            continue
        r = readers.get(n.output[0], [])
        # The activation's output must get quantized (no net output), or
        # nothing would clamp in its place.
        if (len(r) == 1 and r[0].op_type in _ACTIVATIONS and r[0].input[0] == n.output[0] and
                len(r[0].output) == 1 and r[0].output[0] not in outputs):
            n.output[0] = r[0].output[0]
            drop.append(r[0])
    for a in drop:
        g.node.remove(a)
    return len(drop)


def quantized_tensors(model, ops):
    """The float activation tensors `ops` read or write, in graph order
    (net outputs excluded), and {MaxPool output: its input} for those that
    take their input's parameters."""
    inits = {t.name for t in model.graph.initializer}
    outputs = {o.name for o in model.graph.output}
    names, same_as = [], {}
    for node in model.graph.node:
        if not _quantized(node, ops, inits):
            continue
        for name in _float_inputs(node, inits) + [node.output[0]]:
            if name and name not in outputs and name not in names:
                names.append(name)
        if node.op_type == "MaxPool" and node.input[0] not in inits:
            same_as[node.output[0]] = node.input[0]
    return names, same_as


def _runs(model_path, samples, tensors):
    """For each sample run, {tensor: its value}: the model run by Loom as
    written (optimization level 0, every tensor kept)."""
    net = NetBuilder.load(model_path, optimization_level=0)
    for t in tensors:
        net.add_output(t)
    ws = Workspace()
    ws.create_net(net, name="calibrate", plan_memory=False)
    for run in samples:
        for k, v in run.items():
            ws.feed_blob(k, v)
        ws.run_net("calibrate")
        yield {t: ws.fetch_blob(t) for t in tensors}


def calibrate(model_path, samples, tensors, method="minmax", percentile=99.999):
    """{tensor: (lo, hi)} over the sample runs, the model run by Loom as
    written (optimization level 0, every tensor kept)."""
    ranges = {}
    for values in _runs(model_path, samples, tensors):
        for t in tensors:
            v = values[t].astype(np.float64).ravel()
            if v.size == 0:
                continue
            if method == "minmax":
                lo, hi = float(v.min()), float(v.max())
                old = ranges.get(t)
                ranges[t] = (min(lo, old[0]), max(hi, old[1])) if old else (lo, hi)
            else:
                ranges.setdefault(t, []).append((float(np.percentile(v, 100.0 - percentile)),
                                                 float(np.percentile(v, percentile))))
    if method != "minmax":
        ranges = {t: (float(np.mean([r[0] for r in rs])), float(np.mean([r[1] for r in rs]))) for t, rs in ranges.items()}
    return ranges


def activation_params(lo, hi):
    """uint8 asymmetric (scale, zero point) for the range [lo, hi]."""
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = np.float32((hi - lo) / 255.0)
    if scale == 0:
        return np.float32(1.0), np.uint8(0)
    return scale, np.uint8(np.clip(np.round(-lo / float(scale)), 0, 255))


def weight_params(w, axis, min_scale=None):
    """int8 symmetric: (quantized w, scales) per slice along `axis` (None:
    per tensor), each scale at least `min_scale` (one value, or one per
    slice) when given."""
    if axis is None:
        m = np.abs(w).max() if w.size else 0.0
        scale = max(m / 127.0 if m > 0 else 1.0, float(np.max(min_scale)) if min_scale is not None else 0.0)
        scale = np.array(scale, np.float32)
        return np.clip(np.round(w / scale), -127, 127).astype(np.int8), scale
    moved = np.moveaxis(w, axis, 0).reshape(w.shape[axis], -1)
    m = np.abs(moved).max(axis=1) if moved.size else np.zeros(w.shape[axis])
    scale = np.where(m > 0, m / 127.0, 1.0)
    if min_scale is not None:
        scale = np.maximum(scale, min_scale)
    scale = scale.astype(np.float32)
    shape = [1] * w.ndim
    shape[axis] = -1
    return np.clip(np.round(w / scale.reshape(shape)), -127, 127).astype(np.int8), scale


def quantize_model(model, ranges, ops=QUANTIZABLE):
    """A QDQ copy of `model` (an onnx.ModelProto, its activations already
    removed by remove_activations) given activation `ranges` ({tensor: (lo,
    hi)}, from calibrate); returns (model, {op_type: count of nodes
    quantized})."""
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.ModelProto.FromString(model.SerializeToString())
    g = model.graph
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 0)
    per_channel = opset >= 13
    inits = {t.name: t for t in g.initializer}
    tensors, same_as = quantized_tensors(model, ops)
    ranges = dict(ranges)
    for out, inp in same_as.items():
        if inp in ranges:
            ranges[out] = ranges[inp]
    tensors = [t for t in tensors if t in ranges]
    new_inits = []
    act_scale, weight_scale = {}, {}

    def qdq_activation(name):
        """The QuantizeLinear -> DequantizeLinear pair of `name`."""
        scale, zp = activation_params(*ranges[name])
        s_, z = name + "_scale", name + "_zero_point"
        new_inits.extend([numpy_helper.from_array(np.array(scale, np.float32), s_),
                          numpy_helper.from_array(np.array(zp, np.uint8), z)])
        act_scale[name] = float(scale)
        return [helper.make_node("QuantizeLinear", [name, s_, z], [name + "_quantized"], name=name + "_QuantizeLinear"),
                helper.make_node("DequantizeLinear", [name + "_quantized", s_, z], [name + "_dequantized"],
                                 name=name + "_DequantizeLinear")]

    def dq_weight(name, axis, min_scale=None):
        w = numpy_helper.to_array(inits[name]).astype(np.float32)
        q, scale = weight_params(w, axis if per_channel and w.ndim >= 2 else None, min_scale)
        s_, z = name + "_scale", name + "_zero_point"
        new_inits.extend([numpy_helper.from_array(q, name + "_quantized"), numpy_helper.from_array(scale, s_),
                          numpy_helper.from_array(np.zeros(scale.shape, np.int8), z)])
        attrs = {"axis": axis} if scale.ndim == 1 else {}
        weight_scale[name] = scale
        return helper.make_node("DequantizeLinear", [name + "_quantized", s_, z], [name + "_dequantized"],
                                name=name + "_DequantizeLinear", **attrs)

    def dq_bias(name, x, w):
        b = numpy_helper.to_array(inits[name]).astype(np.float32)
        scale = (act_scale[x] * weight_scale[w]).astype(np.float32)
        if scale.ndim == 1 and (b.ndim != 1 or b.shape[0] != scale.shape[0]):
            return None
        scale = np.where(scale > 0, scale, 1.0).astype(np.float32)
        q = np.clip(np.round(b / scale), -2 ** 31, 2 ** 31 - 1).astype(np.int32)
        s_, z = name + "_scale", name + "_zero_point"
        new_inits.extend([numpy_helper.from_array(q, name + "_quantized"), numpy_helper.from_array(scale, s_),
                          numpy_helper.from_array(np.zeros(scale.shape, np.int32), z)])
        attrs = {"axis": 0} if scale.ndim == 1 else {}
        return helper.make_node("DequantizeLinear", [name + "_quantized", s_, z], [name + "_dequantized"],
                                name=name + "_DequantizeLinear", **attrs)

    # Q/DQ pairs: for net inputs first, then right after each tensor's
    # producer, so that the order stays topological.
    produced = {o for n in g.node for o in n.output}
    head, after = [], {}
    for t in tensors:
        pair = qdq_activation(t)
        if t in produced:
            after.setdefault(t, []).extend(pair)
        else:
            head.extend(pair)
    dequantized = {t: t + "_dequantized" for t in tensors}
    counts = {}
    body = []
    for node in g.node:
        weight_nodes = []
        x = node.input[0] if node.input else ""
        if node.op_type in ops and x in dequantized:
            counts[node.op_type] = counts.get(node.op_type, 0) + 1
            w = node.input[1] if len(node.input) > 1 else ""
            if node.op_type in _WEIGHTED and w in inits and inits[w].data_type == 1:
                axis = 0
                if node.op_type == "Gemm":
                    axis = 0 if next((a.i for a in node.attribute if a.name == "transB"), 0) else 1
                elif node.op_type == "MatMul":
                    axis = 1
                elif node.op_type == "ConvTranspose":
                    axis = 1 if _group(node) == 1 else None  # W [C, M / group, k...]: per tensor when grouped
                b = node.input[2] if len(node.input) > 2 else ""
                # The int32 bias b / (x_scale * w_scale) must fit: a channel
                # of tiny weights and a large bias (a folded
                # BatchNormalization's shift) gets a larger weight scale,
                # as ONNX Runtime's quantizer does.
                min_scale = None
                if node.op_type in _BIASED and b in inits and inits[b].data_type == 1:
                    bias_values = np.abs(numpy_helper.to_array(inits[b]).astype(np.float64)).reshape(-1)
                    min_scale = bias_values / (act_scale[x] * 2.0 ** 30) if act_scale[x] > 0 else None
                if w not in weight_scale:  # a weight shared by several nodes is quantized once
                    weight_nodes.append(dq_weight(w, axis, min_scale))
                node.input[1] = w + "_dequantized"
                if node.op_type in _BIASED and b in inits and inits[b].data_type == 1:
                    bias = dq_bias(b, x, w)
                    if bias is not None:
                        weight_nodes.append(bias)
                        node.input[2] = b + "_dequantized"
        for i, name in enumerate(node.input):
            if name in dequantized:
                node.input[i] = dequantized[name]
        body.extend(weight_nodes)
        body.append(node)
        for o in node.output:
            body.extend(after.get(o, []))
    del g.node[:]
    g.node.extend(head + body)
    used = {i for n in g.node for i in n.input}
    kept = [t for t in g.initializer if t.name in used]
    del g.initializer[:]
    g.initializer.extend(kept + new_inits)
    # Inputs listed for initializers that are gone (IR < 4 models list them).
    names = {t.name for t in g.initializer}
    graph_inputs = [i for i in g.input if i.name in used or i.name not in inits or i.name in names]
    del g.input[:]
    g.input.extend(graph_inputs)
    onnx.checker.check_model(model)
    return model, counts


DYNAMIC_OPS = ("MatMul", "Gemm", "LSTM", "GRU")
_DEFAULT_ACTIVATIONS = {"LSTM": ("Sigmoid", "Tanh", "Tanh"), "GRU": ("Sigmoid", "Tanh")}


def _recurrent_quantizable(node, inits):
    """An LSTM or GRU whose W and R are float32 initializers, layout 0,
    ONNX's default activations, no clip, no input_forget: what Loom's
    DynamicQuantizeLSTM and DynamicQuantizeGRU run."""
    from onnx import helper, numpy_helper
    if len(node.input) < 3 or node.input[1] not in inits or node.input[2] not in inits:
        return False
    if any(numpy_helper.to_array(inits[n]).dtype != np.float32 for n in node.input[1:3]):
        return False
    a = {x.name: helper.get_attribute_value(x) for x in node.attribute}
    acts = [v.decode() if isinstance(v, bytes) else v for v in a.get("activations", [])]
    return (a.get("layout", 0) == 0 and "clip" not in a and not a.get("input_forget", 0) and
            all(x.lower() == d.lower() for x, d in zip(acts, _DEFAULT_ACTIVATIONS[node.op_type] * 2)))


def quantize_dynamic_model(model, ops=DYNAMIC_OPS):
    """A dynamically quantized copy of `model` (an onnx.ModelProto of opset
    11 or later), as ONNX Runtime's quantize_dynamic writes it: each MatMul
    (and Gemm: alpha 1, transA 0, beta 1 or no C) whose B is a 2-D float32
    initializer becomes DynamicQuantizeLinear(A) -> MatMulInteger(A_q,
    B_q, a_zero_point, b_zero_point) -> Cast(float) -> Mul(Mul(a_scale,
    b_scale)) [-> Add(C) for a Gemm], B int8 symmetric per column (scale
    max|B[:, n]| / 127, zero points 0), A quantized at run time (uint8, its
    own range each run). Each LSTM that Loom's DynamicQuantizeLSTM runs
    (_recurrent_quantizable) becomes com.microsoft's DynamicQuantizeLSTM, W
    and R transposed to [D, I, 4H] / [D, H, 4H] and quantized per column
    (scales [D, 4H]); each such GRU Loom's DynamicQuantizeGRU (domain
    "loom": ONNX Runtime has no quantized GRU, so only Loom runs that
    model), the same with 3H. Each A is quantized once for every op that reads
    it; Constant nodes become initializers first. Returns (model, {op_type:
    count})."""
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.ModelProto.FromString(model.SerializeToString())
    constants_to_initializers(model)
    g = model.graph
    inits = {t.name: t for t in g.initializer}
    counts, quantized_a, weights, nodes = {}, {}, {}, []

    def b_matrix(node):
        """B as a [K, N] float32 array when `node` qualifies, else None."""
        if node.op_type not in ops or len(node.input) < 2 or node.input[1] not in inits:
            return None
        b = numpy_helper.to_array(inits[node.input[1]])
        if b.dtype != np.float32 or b.ndim != 2:
            return None
        if node.op_type == "MatMul":
            return b
        a = {x.name: helper.get_attribute_value(x) for x in node.attribute}
        if a.get("transA", 0) or a.get("alpha", 1.0) != 1.0 or (len(node.input) > 2 and node.input[2] and
                                                               a.get("beta", 1.0) != 1.0):
            return None
        return b.T if a.get("transB", 0) else b

    for node in g.node:
        if node.op_type in ("LSTM", "GRU") and node.op_type in ops and _recurrent_quantizable(node, inits):
            nodes.append(_dynamic_recurrent(node, inits, g))
            counts[node.op_type] = counts.get(node.op_type, 0) + 1
            continue
        b = b_matrix(node)
        if b is None:
            nodes.append(node)
            continue
        a, out = node.input[0], node.output[0]
        if a not in quantized_a:
            quantized_a[a] = (a + "_quantized", a + "_scale", a + "_zero_point")
            nodes.append(helper.make_node("DynamicQuantizeLinear", [a], list(quantized_a[a]), name=a + "_QuantizeLinear"))
        a_q, a_scale, a_zp = quantized_a[a]
        key = (node.input[1], node.op_type == "Gemm" and any(x.name == "transB" and x.i for x in node.attribute))
        if key not in weights:
            w_q, scales = weight_params(b, 1)
            base = node.input[1] + ("_T" if key[1] else "")
            g.initializer.extend([numpy_helper.from_array(w_q, base + "_quantized"),
                                  numpy_helper.from_array(scales, base + "_scale"),
                                  numpy_helper.from_array(np.zeros(scales.shape, np.int8), base + "_zero_point")])
            weights[key] = (base + "_quantized", base + "_scale", base + "_zero_point")
        w_q, w_scale, w_zp = weights[key]
        prefix = node.name or out
        has_c = node.op_type == "Gemm" and len(node.input) > 2 and node.input[2]
        product = out + "_product" if has_c else out
        nodes += [helper.make_node("MatMulInteger", [a_q, w_q, a_zp, w_zp], [out + "_int32"], name=prefix + "_quant"),
                  helper.make_node("Cast", [out + "_int32"], [out + "_cast"], to=1, name=prefix + "_cast"),
                  helper.make_node("Mul", [a_scale, w_scale], [out + "_scales"], name=prefix + "_scales_mul"),
                  helper.make_node("Mul", [out + "_cast", out + "_scales"], [product], name=prefix + "_output_mul")]
        if has_c:
            nodes.append(helper.make_node("Add", [product, node.input[2]], [out], name=prefix + "_bias_add"))
        counts[node.op_type] = counts.get(node.op_type, 0) + 1
    del g.node[:]
    g.node.extend(nodes)
    for op, domain in (("LSTM", "com.microsoft"), ("GRU", "loom")):
        if counts.get(op) and not any(o.domain == domain for o in model.opset_import):
            model.opset_import.append(helper.make_opsetid(domain, 1))
    used = {i for n in g.node for i in n.input} | {o.name for o in g.output}
    kept = [t for t in g.initializer if t.name in used]
    del g.initializer[:]
    g.initializer.extend(kept)
    onnx.checker.check_model(model)
    return model, counts


def _dynamic_recurrent(node, inits, g):
    """The DynamicQuantizeLSTM (com.microsoft) for LSTM `node`, or Loom's
    DynamicQuantizeGRU (domain loom; ONNX Runtime has none) for GRU `node`;
    their quantized weights go into graph `g`."""
    from onnx import helper, numpy_helper
    extra = []
    for name in node.input[1:3]:
        m = numpy_helper.to_array(inits[name]).transpose(0, 2, 1)  # [D, G*H, K] -> [D, K, G*H]
        q, scales = zip(*(weight_params(m[d], 1) for d in range(m.shape[0])))
        q, scales = np.stack(q), np.stack(scales)
        g.initializer.extend([numpy_helper.from_array(q, name + "_quantized"),
                              numpy_helper.from_array(scales, name + "_scale"),
                              numpy_helper.from_array(np.zeros(scales.shape, np.int8), name + "_zero_point")])
        extra.append(name)
    lstm = node.op_type == "LSTM"
    inputs = [node.input[0], extra[0] + "_quantized", extra[1] + "_quantized"]
    inputs += [node.input[i] if len(node.input) > i else "" for i in range(3, 8 if lstm else 6)]
    inputs += [extra[0] + "_scale", extra[0] + "_zero_point", extra[1] + "_scale", extra[1] + "_zero_point"]
    out = helper.make_node("DynamicQuantize" + node.op_type, inputs, list(node.output), name=node.name,
                           domain="com.microsoft" if lstm else "loom")
    out.attribute.extend(a for a in node.attribute if a.name != "layout")
    return out


def compare(float_model, qdq_model, samples, threads=0, fpmath_mode="strict"):
    """Per output: (max |qdq - float|, that over max |float|) over the
    samples, both models run by Loom; the second with `fpmath_mode` ("bf16":
    float32 convolutions and matmuls on bfloat16 inputs)."""
    a, b = Session(float_model, threads=threads), Session(qdq_model, threads=threads, fpmath_mode=fpmath_mode)
    errors = {}
    for run in samples:
        for o, fa, fb in zip([i.name for i in a.outputs], a.run(None, run), b.run(None, run)):
            err = float(np.max(np.abs(fa.astype(np.float64) - fb))) if fa.size else 0.0
            ref = float(np.max(np.abs(fa))) if fa.size else 0.0
            old = errors.get(o, (0.0, 0.0))
            errors[o] = (max(old[0], err), max(old[1], err / ref if ref > 0 else 0.0))
    return errors


def cpu_has_bf16():
    """Whether this CPU has bf16 arithmetic (AVX-512 BF16 or AMX), as
    /proc/cpuinfo lists it; without it fpmath_mode bf16 runs float32."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = set(next((l for l in f if l.startswith("flags")), "").split())
    except OSError:
        return False
    return bool(flags & {"avx512_bf16", "amx_bf16"})


def _quantize_dynamic(args, p):
    import onnx
    ops = tuple(o for o in (args.ops or ",".join(DYNAMIC_OPS)).split(",") if o)
    unknown = [o for o in ops if o not in DYNAMIC_OPS]
    if unknown:
        p.error("unknown --ops %s for --dynamic (known: %s)" % (unknown, ", ".join(DYNAMIC_OPS)))
    model = onnx.load(args.model)
    samples = load_samples(args.samples, _model_inputs(model)) if args.samples else []
    model = upgrade_opset(model, samples[0] if samples else None, minimum=11)
    quantized, counts = quantize_dynamic_model(model, ops)
    onnx.save(quantized, args.out)
    print("loom_quantize --dynamic: %s quantized (int8 weights per column, activations at run time); wrote %s" %
          (", ".join("%d %s" % (n, t) for t, n in sorted(counts.items())) or "nothing", args.out))
    for o, (err, rel) in (compare(args.model, args.out, samples).items() if samples else ()):
        print("loom_quantize --dynamic: output %s: max |int8 - float32| %.4g (%.3g of max |float32|)" % (o, err, rel))
    return 0


def _compare_bf16(model_path, samples_dir):
    import onnx
    samples = load_samples(samples_dir, _model_inputs(onnx.load(model_path)))
    print("loom_quantize --bf16: %s, %d samples; CPU bf16 arithmetic: %s" %
          (model_path, len(samples), "yes" if cpu_has_bf16() else "no (bf16 mode runs float32 here)"))
    for o, (err, rel) in compare(model_path, model_path, samples, fpmath_mode="bf16").items():
        print("loom_quantize --bf16: output %s: max |bf16 - float32| %.4g (%.3g of max |float32|)" % (o, err, rel))
    return 0


def main(argv=None):
    import onnx
    p = argparse.ArgumentParser(prog="loom_quantize", description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, help="the float32 ONNX model")
    p.add_argument("--samples", help="a folder of .npz (or .npy) sample inputs (optional with --dynamic)")
    p.add_argument("--out", help="where to write the quantized model")
    p.add_argument("--dynamic", action="store_true",
                   help="dynamic quantization (ONNX Runtime's quantize_dynamic): int8 weights of MatMul, Gemm, LSTM "
                        "and GRU (--ops, default all four), activations quantized at run time; --samples optional "
                        "(for the error printed)")
    p.add_argument("--bf16", action="store_true",
                   help="quantize nothing: print what fpmath_mode bf16 (float32 convolutions and matmuls on bfloat16 "
                        "inputs) does to the model's outputs on the samples, against float32")
    p.add_argument("--method", choices=["minmax", "percentile"], default="minmax")
    p.add_argument("--percentile", type=float, default=99.999)
    p.add_argument("--ops", help="op types to quantize (of %s; default %s; with --dynamic of and by default %s)" %
                   (", ".join(QUANTIZABLE), ", ".join(DEFAULT_OPS), ", ".join(DYNAMIC_OPS)))
    args = p.parse_args(argv)
    if not args.samples and not args.dynamic:
        p.error("--samples is required (unless --dynamic)")
    if args.bf16:
        return _compare_bf16(args.model, args.samples)
    if not args.out:
        p.error("--out is required (unless --bf16)")
    if args.dynamic:
        return _quantize_dynamic(args, p)
    ops = tuple(o for o in (args.ops or ",".join(DEFAULT_OPS)).split(",") if o)
    unknown = [o for o in ops if o not in QUANTIZABLE]
    if unknown:
        p.error("unknown --ops %s (known: %s)" % (unknown, ", ".join(QUANTIZABLE)))
    model = onnx.load(args.model)
    samples = load_samples(args.samples, _model_inputs(model))
    model = upgrade_opset(model, samples[0])
    folded = preprocess(model)
    # Calibrated on the pre-processed model (the same function) with its
    # activations: their outputs keep their names when they are removed.
    with tempfile.TemporaryDirectory() as d:
        prepared = os.path.join(d, "prepared.onnx")
        onnx.save(model, prepared)
        removed = remove_activations(model, ops)
        ranges = calibrate(prepared, samples, quantized_tensors(model, ops)[0], args.method, args.percentile)
    qdq, counts = quantize_model(model, ranges, ops)
    onnx.save(qdq, args.out)
    print("loom_quantize: %s quantized (%s, %d samples; %d ops folded into Convs, %d activations absorbed); wrote %s" %
          (", ".join("%d %s" % (n, t) for t, n in sorted(counts.items())) or "nothing", args.method, len(samples),
           folded, removed, args.out))
    for o, (err, rel) in compare(args.model, args.out, samples).items():
        print("loom_quantize: output %s: max |int8 - float32| %.4g (%.3g of max |float32|)" % (o, err, rel))
    return 0


if __name__ == "__main__":
    sys.exit(main())
