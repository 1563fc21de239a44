"""The small CNN of tools/bench/cnn_torch.py, written with ONNX's own Python
package (no PyTorch), as PyTorch exports it for training (opset 13, loss
inside): x [N, 3, 32, 32] -> four 3x3 convolutions (32, 32, 64, 64
channels, pads 1) each followed by ReLU (with --bn, BatchNormalization in
training mode first, five outputs, as opsets 9-13 spell training mode), a
2x2 max-pool after each pair, Flatten, Gemm (transB = 1) to 10 classes ->
logits; SoftmaxCrossEntropyLoss with y [N] -> loss. Initial weights as
PyTorch's defaults (uniform in +-1/sqrt(fan_in), numpy seed --seed).

Also writes the data set as .npz (--data): scikit-learn's handwritten digits
(Debian python3-sklearn; 1,797 8x8 scans, 0..16) scaled to [0, 1],
upsampled bilinearly to 32x32 and repeated over 3 channels; x float32
[1797, 3, 32, 32], y int64 [1797].

    python3 tools/train/cnn_onnx.py --out cnn.onnx --data digits32.npz [--bn]
"""
import argparse
import gzip

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

DIGITS = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"


def digits(size=32):
    """The digits as float32 [n, 3, size, size] in [0, 1] and int64 labels."""
    with gzip.open(DIGITS, "rt") as f:
        rows = np.loadtxt(f, delimiter=",")
    x = (rows[:, :-1] / 16.0).reshape(-1, 8, 8)
    # Bilinear, not nearest: nearest-neighbour blocks make max-pool windows
    # of equal values, whose ties two runtimes' rounding breaks differently.
    pos = (np.arange(size) + 0.5) * 8 / size - 0.5
    lo = np.clip(np.floor(pos).astype(int), 0, 7)
    hi = np.clip(lo + 1, 0, 7)
    f = np.clip(pos - lo, 0, 1)
    x = x[:, lo, :] * (1 - f)[None, :, None] + x[:, hi, :] * f[None, :, None]
    x = x[:, :, lo] * (1 - f)[None, None, :] + x[:, :, hi] * f[None, None, :]
    x = np.repeat(x[:, None], 3, axis=1)
    return np.ascontiguousarray(x, dtype=np.float32), rows[:, -1].astype(np.int64)


def make_cnn(bn, seed=0):
    rng = np.random.default_rng(seed)
    inits, nodes = [], []

    def param(name, shape, fan_in):
        bound = 1.0 / np.sqrt(fan_in)
        inits.append(numpy_helper.from_array(rng.uniform(-bound, bound, shape).astype(np.float32), name))
        return name

    def const(name, value):
        inits.append(numpy_helper.from_array(np.asarray(value, dtype=np.float32), name))
        return name

    h, c_in = "x", 3
    for i, c in enumerate([32, 32, 64, 64]):
        w = param(f"conv{i}.weight", (c, c_in, 3, 3), c_in * 9)
        conv_in = [h, w] if bn else [h, w, param(f"conv{i}.bias", (c,), c_in * 9)]
        nodes.append(helper.make_node("Conv", conv_in, [f"c{i}"], pads=[1, 1, 1, 1], kernel_shape=[3, 3]))
        h = f"c{i}"
        if bn:
            stats = [const(f"bn{i}.weight", np.ones(c)), const(f"bn{i}.bias", np.zeros(c)),
                     const(f"bn{i}.running_mean", np.zeros(c)), const(f"bn{i}.running_var", np.ones(c))]
            nodes.append(helper.make_node("BatchNormalization", [h] + stats,
                                          [f"n{i}", f"n{i}_rm", f"n{i}_rv", f"n{i}_sm", f"n{i}_sv"],
                                          epsilon=1e-5, momentum=0.9))
            h = f"n{i}"
        nodes.append(helper.make_node("Relu", [h], [f"r{i}"]))
        h = f"r{i}"
        if i % 2 == 1:
            nodes.append(helper.make_node("MaxPool", [h], [f"p{i}"], kernel_shape=[2, 2], strides=[2, 2]))
            h = f"p{i}"
        c_in = c
    nodes.append(helper.make_node("Flatten", [h], ["flat"], axis=1))
    fw, fb = param("fc.weight", (10, 64 * 8 * 8), 64 * 8 * 8), param("fc.bias", (10,), 64 * 8 * 8)
    nodes.append(helper.make_node("Gemm", ["flat", fw, fb], ["logits"], transB=1))
    nodes.append(helper.make_node("SoftmaxCrossEntropyLoss", ["logits", "y"], ["loss"], reduction="mean"))
    graph = helper.make_graph(
        nodes, "cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 32, 32]),
                       helper.make_tensor_value_info("y", TensorProto.INT64, ["N"])],
        [helper.make_tensor_value_info("loss", TensorProto.FLOAT, []),
         helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="loom cnn_onnx.py")
    onnx.checker.check_model(model)
    return model


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--data")
    p.add_argument("--bn", action="store_true")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    onnx.save(make_cnn(a.bn, a.seed), a.out)
    if a.data:
        x, y = digits()
        np.savez(a.data, x=x, y=y)


if __name__ == "__main__":
    main()
