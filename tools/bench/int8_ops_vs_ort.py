"""Loom's int8 results against ONNX Runtime 1.30's (onnxruntime-node, all
graph optimizations), on the same QDQ files and inputs.

Patterns: each int8 pattern Loom's QDQ rewrites run (transforms/fuse_qdq.h,
int8_channels_last.h), in a QDQ model of its own, on a random input: prints,
per pattern, the largest |Loom - ONNX Runtime| of the output in units of its
quantization step (the output is DequantizeLinear(QuantizeLinear(...)), so
every difference is a whole number of steps).

Models (--models, default: the int8 files bench.sh writes, resnet18,
mobilenet, ocr_det and ocr_rec in ~/.cache/loom-bench/int8, on bench.sh's
inputs): every QuantizeLinear output of the model (each int8 tensor) is
made a graph output too, and each is compared in steps (how many tensors
differ at all, the largest difference), then each float output of the
model by its largest |difference|. Loom rounds as ONNX Runtime's kernels
do (float32 multipliers, rounding before the zero point, QLinearAdd's
fused multiply-adds), so a difference in an int8 tensor can only come from
float ops between them (a float GlobalAveragePool's summation order before
a gate), and one step of difference early on would move later layers by
more.

    PYTHONPATH=bazel-bin/python/pkg /usr/bin/python3 tools/bench/int8_ops_vs_ort.py [--ort ~/.cache/loom-ort] \\
        [--models resnet18,mobilenet,ocr_det,ocr_rec | --models '']
Exits 1 when an int8 tensor differs by more than one step.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

import loom

C, M, H, W = 8, 16, 12, 12


def q_dq(nodes, inits, name, scale, zp, dtype=np.uint8):
    """QuantizeLinear -> DequantizeLinear of tensor `name`: the dequantized name."""
    from onnx import helper, numpy_helper
    inits += [numpy_helper.from_array(np.array(scale, np.float32), name + "_s"),
              numpy_helper.from_array(np.array(zp, dtype), name + "_z")]
    nodes += [helper.make_node("QuantizeLinear", [name, name + "_s", name + "_z"], [name + "_q"]),
              helper.make_node("DequantizeLinear", [name + "_q", name + "_s", name + "_z"], [name + "_dq"])]
    return name + "_dq"


def conv(nodes, inits, x, name, cin, cout, rng, x_scale, k=3):
    """A Conv of dequantized x with int8 per-channel W and an int32 bias."""
    from onnx import helper, numpy_helper
    w = rng.integers(-127, 128, (cout, cin, k, k)).astype(np.int8)
    ws = (0.002 + 0.001 * rng.random(cout)).astype(np.float32)
    b = rng.integers(-2000, 2000, cout).astype(np.int32)
    inits += [numpy_helper.from_array(w, name + "_wq"), numpy_helper.from_array(ws, name + "_ws"),
              numpy_helper.from_array(np.zeros(cout, np.int8), name + "_wz"),
              numpy_helper.from_array(b, name + "_bq"), numpy_helper.from_array(ws * x_scale, name + "_bs")]
    nodes += [helper.make_node("DequantizeLinear", [name + "_wq", name + "_ws", name + "_wz"], [name + "_w"], axis=0),
              helper.make_node("DequantizeLinear", [name + "_bq", name + "_bs"], [name + "_b"], axis=0),
              helper.make_node("Conv", [x, name + "_w", name + "_b"], [name], pads=[k // 2] * 4)]
    return name


def case(kind, rng):
    """(model, output scale) of one pattern."""
    import onnx
    from onnx import helper, numpy_helper, TensorProto
    nodes, inits = [], []
    x = q_dq(nodes, inits, "x", 0.02, 128)
    if kind == "conv+relu":
        c = conv(nodes, inits, x, "c", C, M, rng, 0.02)
        nodes.append(helper.make_node("Relu", [c], ["r"]))
        y, s = "r", 0.05
    elif kind == "add":
        a = q_dq(nodes, inits, conv(nodes, inits, x, "c", C, C, rng, 0.02), 0.05, 120)
        nodes.append(helper.make_node("Add", [a, x], ["sum"]))
        y, s = "sum", 0.06
    elif kind == "maxpool":
        nodes.append(helper.make_node("MaxPool", [x], ["p"], kernel_shape=[2, 2], strides=[2, 2]))
        y, s = "p", 0.02
    elif kind == "hardswish chain (table)":
        c = q_dq(nodes, inits, conv(nodes, inits, x, "c", C, M, rng, 0.02), 0.05, 128)
        inits += [numpy_helper.from_array(np.array([0.7], np.float32), "k"),
                  numpy_helper.from_array(np.array([0.1], np.float32), "b")]
        nodes += [helper.make_node("HardSwish", [c], ["h"]), helper.make_node("Mul", ["h", "k"], ["hk"]),
                  helper.make_node("Add", ["hk", "b"], ["hb"])]
        y, s = "hb", 0.03
    elif kind == "sigmoid (table)":
        nodes.append(helper.make_node("Sigmoid", [x], ["g"]))
        y, s = "g", 1.0 / 255
    elif kind == "global average pool":
        c = q_dq(nodes, inits, conv(nodes, inits, x, "c", C, M, rng, 0.02), 0.05, 128)
        nodes.append(helper.make_node("GlobalAveragePool", [c], ["gap"]))
        y, s = "gap", 0.01
    elif kind == "squeeze-excite gate":
        c = q_dq(nodes, inits, conv(nodes, inits, x, "c", C, M, rng, 0.02), 0.05, 128)
        nodes += [helper.make_node("GlobalAveragePool", [c], ["gap"]),
                  helper.make_node("HardSigmoid", ["gap"], ["gate"]), helper.make_node("Mul", [c, "gate"], ["se"])]
        y, s = "se", 0.04
    elif kind == "resize nearest + concat":
        c = q_dq(nodes, inits, conv(nodes, inits, x, "c", C, M, rng, 0.02), 0.05, 128)
        inits.append(numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scales"))
        nodes += [helper.make_node("Resize", [c, "", "scales"], ["up"]),
                  helper.make_node("Resize", [x, "", "scales"], ["upx"])]
        up = q_dq(nodes, inits, "up", 0.05, 128)
        nodes.append(helper.make_node("Concat", [up, "upx"], ["cat"], axis=1))
        y, s = "cat", 0.06
    elif kind == "conv transpose":
        c = q_dq(nodes, inits, conv(nodes, inits, x, "c", C, M, rng, 0.02), 0.05, 128)
        w = rng.integers(-127, 128, (M, C, 2, 2)).astype(np.int8)
        ws = (0.002 + 0.001 * rng.random(C)).astype(np.float32)
        b = rng.integers(-2000, 2000, C).astype(np.int32)
        inits += [numpy_helper.from_array(w, "t_wq"), numpy_helper.from_array(ws, "t_ws"),
                  numpy_helper.from_array(np.zeros(C, np.int8), "t_wz"), numpy_helper.from_array(b, "t_bq"),
                  numpy_helper.from_array(ws * np.float32(0.05), "t_bs")]
        nodes += [helper.make_node("DequantizeLinear", ["t_wq", "t_ws", "t_wz"], ["t_w"], axis=1),
                  helper.make_node("DequantizeLinear", ["t_bq", "t_bs"], ["t_b"], axis=0),
                  helper.make_node("ConvTranspose", [c, "t_w", "t_b"], ["t"], strides=[2, 2])]
        y, s = "t", 0.05
    else:
        raise ValueError(kind)
    out = q_dq(nodes, inits, y, s, 100)
    nodes.append(helper.make_node("Identity", [out], ["y"]))
    g = helper.make_graph(nodes, kind, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, C, H, W])],
                          [helper.make_empty_tensor_value_info("y")], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)])
    m.ir_version = 7
    return m, s


def model_input(bench, name):
    """The bench.sh input of int8 model `name`: (path of the raw float32 file, dims)."""
    import json
    if name in ("resnet18", "mobilenet"):
        return os.path.join(bench, name + ".X.bin"), [1, 3, 224, 224]
    stem = os.path.join(bench, "real", name.split("_")[1] + "_x")  # ocr_det -> det_x
    with open(stem + ".json") as f:
        return stem + ".bin", json.load(f)["dims"]


def compare_model(ort_dir, runner, bench, name, d):
    """Runs int8 model `name` with every int8 tensor an output in both runtimes; prints the comparison and
    returns the largest difference of an int8 tensor in steps."""
    import onnx
    from onnx import helper
    model = onnx.load(os.path.join(bench, "int8", name + ".onnx"))
    constants = {t.name for t in model.graph.initializer}
    outputs = {o.name for o in model.graph.output}
    int8 = [n.output[0] for n in model.graph.node
            if n.op_type == "QuantizeLinear" and n.input[0] not in constants and n.output[0] not in outputs]
    for t in int8:
        model.graph.output.append(helper.make_empty_tensor_value_info(t))
    path = os.path.join(d, name + ".onnx")
    onnx.save(model, path)
    x_file, dims = model_input(bench, name)
    session = loom.Session(path, threads=2)
    x_name = session.inputs[0].name
    ours = session.run(None, {x_name: np.fromfile(x_file, np.float32).reshape(dims)})
    out = os.path.join(d, name)
    os.mkdir(out)
    subprocess.run(["node", runner, ort_dir, path, "2", "0", "1", out, "-",
                    "%s=%s:%s:float32" % (x_name, x_file, ",".join(map(str, dims)))], check=True, capture_output=True)
    worst, differ, floats = 0, 0, []
    for info, y in zip(session.outputs, ours):
        theirs = np.fromfile(os.path.join(out, info.name + ".bin"), y.dtype).reshape(y.shape)
        if info.name in int8:
            steps = int(np.max(np.abs(y.astype(np.int32) - theirs.astype(np.int32))))
            worst = max(worst, steps)
            differ += steps > 0
        else:
            floats.append("%s max |Loom - ORT| %.3g (max |y| %.3g)" %
                          (info.name, float(np.max(np.abs(y - theirs))), float(np.max(np.abs(y)))))
    print("%-10s %d int8 tensors: %d differ, largest difference %d steps; %s" %
          (name, len(int8), differ, worst, "; ".join(floats)))
    return worst


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ort", default=os.path.expanduser(os.environ.get("LOOM_ORT_DIR", "~/.cache/loom-ort")),
                   help="where onnxruntime-node is installed (scripts/fetch_models.sh)")
    p.add_argument("--models", default="resnet18,mobilenet,ocr_det,ocr_rec",
                   help="bench.sh's int8 models to compare whole (comma-separated; empty: none)")
    p.add_argument("--bench", default=os.path.expanduser("~/.cache/loom-bench"), help="bench.sh's folder")
    args = p.parse_args(argv)
    import onnx
    runner = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ort_run.js")
    kinds = ["conv+relu", "add", "maxpool", "hardswish chain (table)", "sigmoid (table)", "global average pool",
             "squeeze-excite gate", "resize nearest + concat", "conv transpose"]
    worst = 0.0
    with tempfile.TemporaryDirectory() as d:
        for i, kind in enumerate(kinds):
            rng = np.random.default_rng(i + 1)
            model, step = case(kind, rng)
            path = os.path.join(d, "m%d.onnx" % i)
            onnx.save(model, path)
            x = rng.uniform(-2.5, 2.5, (1, C, H, W)).astype(np.float32)
            x.tofile(os.path.join(d, "x.bin"))
            ours = loom.Session(path, threads=2).run(None, {"x": x})[0]
            out = os.path.join(d, "ort%d" % i)
            os.mkdir(out)
            subprocess.run(["node", runner, args.ort, path, "2", "0", "1", out, "-",
                            "x=%s:%s:float32" % (os.path.join(d, "x.bin"), ",".join(map(str, x.shape)))],
                           check=True, capture_output=True)
            theirs = np.fromfile(os.path.join(out, "y.bin"), np.float32).reshape(ours.shape)
            steps = float(np.max(np.abs(ours.astype(np.float64) - theirs))) / step
            same = float(np.mean(ours == theirs))
            worst = max(worst, steps)
            print("%-26s output %-18s max |Loom - ORT| %.2f steps, %.1f%% equal" %
                  (kind, str(list(ours.shape)), steps, 100 * same))
        for name in filter(None, args.models.split(",")):
            worst = max(worst, compare_model(args.ort, runner, args.bench, name, d))
    print("largest difference: %.2f quantization steps" % worst)
    return 0 if worst <= 1.0 + 1e-6 else 1


if __name__ == "__main__":
    sys.exit(main())
