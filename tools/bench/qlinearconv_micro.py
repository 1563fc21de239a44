"""One 3x3 convolution (64 -> 64 channels on 56x56, pads 1, batch 1) in
Loom as float32 Conv and as QLinearConv (u8 X, s8 W) on its two paths:
oneDNN's int8 convolution (W zero point 0) and the int32 loops (W zero
point 1, which oneDNN cannot take). Prints the median ms of --runs runs
after one warm-up each, on --threads threads, with the ISA oneDNN reports.

    PYTHONPATH=bazel-bin/python/pkg /usr/bin/python3 tools/bench/qlinearconv_micro.py [--threads 1] [--runs 10]
"""
import argparse
import os
import subprocess
import sys
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import loom

C = M = 64
H = W = 56


def model(kind, w_zero_point=0):
    rng = np.random.default_rng(0)
    if kind == "float":
        inits = [numpy_helper.from_array(rng.standard_normal((M, C, 3, 3)).astype(np.float32), "W")]
        nodes = [helper.make_node("Conv", ["x", "W"], ["y"], pads=[1, 1, 1, 1])]
        dtype = TensorProto.FLOAT
    else:
        inits = [numpy_helper.from_array(rng.integers(-100, 100, (M, C, 3, 3)).astype(np.int8), "W"),
                 numpy_helper.from_array(np.array(0.02, np.float32), "xs"),
                 numpy_helper.from_array(np.array(128, np.uint8), "xz"),
                 numpy_helper.from_array(np.full(M, 0.01, np.float32), "ws"),
                 numpy_helper.from_array(np.full(M, w_zero_point, np.int8), "wz"),
                 numpy_helper.from_array(np.array(0.5, np.float32), "ys"),
                 numpy_helper.from_array(np.array(10, np.uint8), "yz")]
        nodes = [helper.make_node("QLinearConv", ["x", "xs", "xz", "W", "ws", "wz", "ys", "yz"], ["y"],
                                  pads=[1, 1, 1, 1])]
        dtype = TensorProto.UINT8
    graph = helper.make_graph(nodes, "conv", [helper.make_tensor_value_info("x", dtype, [1, C, H, W])],
                              [helper.make_tensor_value_info("y", dtype, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--isa", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    rng = np.random.default_rng(1)
    cases = [("float32 Conv", model("float"), rng.random((1, C, H, W), dtype=np.float32), args.runs),
             ("QLinearConv, oneDNN int8", model("q"), rng.integers(0, 255, (1, C, H, W)).astype(np.uint8), args.runs),
             ("QLinearConv, int32 loops", model("q", 1), rng.integers(0, 255, (1, C, H, W)).astype(np.uint8), 3)]
    if args.isa:  # a child run with ONEDNN_VERBOSE: one int8 run
        s = loom.Session(cases[1][1], threads=args.threads)
        s.run(None, {"x": cases[1][2]})
        return
    env = dict(os.environ, ONEDNN_VERBOSE="1")
    verbose = subprocess.run([sys.executable, __file__, "--isa", "--threads", str(args.threads)], env=env,
                             capture_output=True, text=True).stdout
    isa = next((l.split("isa:", 1)[1] for l in verbose.splitlines() if l.startswith("onednn_verbose,info,cpu,isa:")),
               "unknown")
    print("oneDNN ISA: %s; %d thread(s); median of the runs after one warm-up" % (isa, args.threads))
    for name, m, x, runs in cases:
        s = loom.Session(m, threads=args.threads)
        s.run(None, {"x": x})
        times = []
        for _ in range(runs):
            t = time.perf_counter()
            s.run(None, {"x": x})
            times.append((time.perf_counter() - t) * 1e3)
        print("%-26s %9.2f ms  (%d runs)" % (name, float(np.median(times)), runs))


if __name__ == "__main__":
    main()
