"""Quantizes a float32 ONNX model for bench.sh's int8 rows with loom_quantize
(loom.quantize: min-max calibration, uint8 activations, int8 per-channel
weights, QDQ format) on sample inputs made here, so that Loom and ONNX
Runtime time the same QDQ file.

    quantize_for_bench.py --model M.onnx --out M_int8.onnx --input NAME
        (--random D0,D1,... [--count N] | --bin PREFIX [--bin PREFIX ...])

--random: N draws (default 4, seeds 1..N) uniform in [-1, 1) of that shape,
as tools/bench/make_bench_models draws the generated models' input; --bin:
to_tensor's PREFIX.bin with its PREFIX.json (dtype, dims), one sample each
(real images rendered by ImageMagick). Prints loom_quantize's lines.
"""
import argparse
import json
import os
import sys
import tempfile

import numpy as np

from loom import quantize


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--input", required=True, help="the model input the samples feed")
    p.add_argument("--random", help="sample shape, comma-separated")
    p.add_argument("--count", type=int, default=4)
    p.add_argument("--bin", action="append", default=[], help="a to_tensor PREFIX (PREFIX.bin, PREFIX.json)")
    args = p.parse_args(argv)
    if bool(args.random) == bool(args.bin):
        p.error("give --random or --bin")
    with tempfile.TemporaryDirectory() as d:
        if args.random:
            shape = [int(v) for v in args.random.split(",")]
            for i in range(args.count):
                x = np.random.default_rng(i + 1).uniform(-1, 1, shape).astype(np.float32)
                np.savez(os.path.join(d, "s%02d.npz" % i), **{args.input: x})
        for i, prefix in enumerate(args.bin):
            with open(prefix + ".json") as f:
                meta = json.load(f)
            x = np.fromfile(prefix + ".bin", dtype=np.dtype(meta["dtype"])).reshape(meta["dims"])
            np.savez(os.path.join(d, "b%02d.npz" % i), **{args.input: x})
        return quantize.main(["--model", args.model, "--samples", d, "--out", args.out])


if __name__ == "__main__":
    sys.exit(main())
