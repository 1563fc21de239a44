"""Does an int8 ResNet-18 with trained weights pick the class its float32
model picks, on real images?

No Debian or npm package on these machines ships pretrained ResNet-18
weights, so this script makes them: torchvision's ResNet-18 (10 classes),
exported for training with its loss by cnn_torch.py, is trained by Loom's
own loom_train on real handwritten digits: scikit-learn's digits (the UCI
"Optical Recognition of Handwritten Digits" set, 1797 8x8 scans, shipped by
Debian's python3-sklearn), upsampled bilinearly to 3x--size x--size as
cnn_onnx.py does. The images are split once (seed 0): --test held out,
the rest trained on. The trained state (loom_train --export_final) is
loaded into torchvision's ResNet-18 and exported for inference (ONNX opset
13, BatchNormalization in eval mode), quantized by loom_quantize on
--samples training images, and both models run with Loom on every held-out
image, one image per run. Prints the top-1 agreement of int8 with float32,
how often each is right, and the largest difference between Loom's float32
logits and PyTorch's (the check that the export carried the trained state).
With --bf16 the second model is the float32 one run with fpmath_mode bf16.

    bazel build --config=cuda //tools:loom_train //python:package
    PYTHONPATH=bazel-bin/python/pkg /usr/bin/python3 tools/bench/resnet18_int8_agreement.py

Needs python3-torch, python3-torchvision, python3-onnx and python3-sklearn.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

import loom
from loom import quantize

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "train"))
import cnn_onnx  # noqa: E402
import cnn_torch  # noqa: E402


def split(size, test):
    """The digits at [n, 3, size, size] in [0, 1], shuffled (seed 0): (train x, train y, test x, test y)."""
    x, y = cnn_onnx.digits(size)
    order = np.random.default_rng(0).permutation(len(y))
    x, y = x[order], y[order]
    n = len(y) - test
    return x[:n], y[:n], x[n:], y[n:]


def inference_model(state_dir, size, out):
    """torchvision's ResNet-18 with loom_train's exported state (<name>.bin, the training model's names
    under "model."), written as an inference ONNX model: x [N, 3, size, size] -> logits [N, 10]."""
    import torch
    model = cnn_torch.make_model("resnet18")
    state = model.state_dict()
    for name, value in state.items():
        if name.endswith("num_batches_tracked"):
            continue  # PyTorch's counter; eval mode does not read it
        path = os.path.join(state_dir, "model." + name + ".bin")
        state[name] = torch.from_numpy(np.fromfile(path, dtype=np.float32).reshape(value.shape))
    model.load_state_dict(state)
    model.eval()
    torch.onnx.export(model, torch.zeros(1, 3, size, size), out, opset_version=13, input_names=["x"],
                      output_names=["logits"], dynamic_axes={"x": {0: "N"}, "logits": {0: "N"}})
    return model


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--loom_train", default="bazel-bin/tools/loom_train")
    p.add_argument("--size", type=int, default=64, help="image height and width")
    p.add_argument("--test", type=int, default=360, help="held-out images")
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--samples", type=int, default=32, help="training images loom_quantize calibrates on")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--method", choices=["minmax", "percentile"], default="minmax", help="loom_quantize's calibration")
    p.add_argument("--bf16", action="store_true", help="compare fpmath_mode bf16 instead of an int8 model")
    p.add_argument("--workdir", help="keep the data, models and trained state here (default: a temporary folder)")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        d = args.workdir or tmp
        os.makedirs(d, exist_ok=True)
        train_x, train_y, test_x, test_y = split(args.size, args.test)
        np.savez(os.path.join(d, "train.npz"), x=train_x, y=train_y)
        training = os.path.join(d, "resnet18_train.onnx")
        cnn_torch.export(argparse.Namespace(seed=0, model="resnet18", batch=32, size=args.size, out=training,
                                            data=None))
        state = os.path.join(d, "trained")
        # SGD with momentum, the learning rate times 0.3 every 120 steps; 10% of the training images
        # held out by loom_train itself for its per-epoch accuracy.
        subprocess.run([args.loom_train, "--model", training, "--data", os.path.join(d, "train.npz"),
                        "--input", "x", "--label", "y", "--loss", "loss", "--logits", "logits", "--batch", "32",
                        "--lr", "0.02", "--momentum", "0.9", "--lr_gamma", "0.3", "--lr_step_size", "120",
                        "--epochs", str(args.epochs), "--num_threads", str(args.threads), "--test_fraction",
                        "0.1", "--log_every", "1000", "--export_final", state], check=True)
        f32_path = os.path.join(d, "resnet18_digits.onnx")
        torch_model = inference_model(state, args.size, f32_path)
        f32 = loom.Session(f32_path, threads=args.threads)
        if args.bf16:
            print("fpmath_mode bf16; CPU bf16 arithmetic: %s" % ("yes" if quantize.cpu_has_bf16() else "no"))
            other_model = loom.Session(f32_path, threads=args.threads, fpmath_mode="bf16")
        else:
            samples = os.path.join(d, "samples")
            os.makedirs(samples, exist_ok=True)
            for i in range(args.samples):
                np.save(os.path.join(samples, "s%d.npy" % i), train_x[i:i + 1])
            int8 = os.path.join(d, "resnet18_digits_int8.onnx")
            quantize.main(["--model", f32_path, "--samples", samples, "--out", int8, "--method", args.method])
            other_model = loom.Session(int8, threads=args.threads)
        other = "bf16" if args.bf16 else "int8"
        import torch
        with torch.no_grad():
            torch_logits = torch_model(torch.from_numpy(test_x)).numpy()
        same = right_f32 = right_other = 0
        vs_torch = 0.0
        for i, label in enumerate(test_y):
            x = test_x[i:i + 1]
            a = f32.run(None, {"x": x})[0]
            b = other_model.run(None, {"x": x})[0]
            vs_torch = max(vs_torch, float(np.abs(a[0] - torch_logits[i]).max()))
            same += a.argmax() == b.argmax()
            right_f32 += a.argmax() == label
            right_other += b.argmax() == label
            if a.argmax() != b.argmax():
                print("differs: image %d (digit %d): float32 %d, %s %d" % (i, label, a.argmax(), other, b.argmax()))
        n = len(test_y)
        print("%d held-out digits: %s top-1 = float32 top-1 on %d (%.1f%%); right: float32 %d, %s %d; "
              "max |Loom float32 - PyTorch| logit %.2g" %
              (n, other, same, 100.0 * same / n, right_f32, other, right_other, vs_torch))
    return 0


if __name__ == "__main__":
    sys.exit(main())
