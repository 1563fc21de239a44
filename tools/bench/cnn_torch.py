"""PyTorch's half of tools/bench/cnn_vs_pytorch.sh: CNN training side by side.

  export  writes a model as ONNX with its loss, exported for training
          (torch.onnx.export(..., training=TrainingMode.TRAINING,
          opset_version=13)): inputs x [N, 3, H, W] float32 and y [N] int64,
          outputs loss (mean cross-entropy) and logits [N, 10]. Models:
            cnn     four 3x3 convolutions (32, 32, 64, 64 channels) with
                    ReLU, a max-pool after each pair, a fully connected
                    layer: the small CNN of issue 30;
            cnn_bn  the same with BatchNormalization after each convolution;
            resnet18  torchvision's ResNet-18 (10 classes).
          With --data, also writes the data set as .npz (x, y): scikit-learn's
          handwritten digits (8x8, 0..16) scaled to [0, 1], upsampled to
          32x32 (bilinear) and repeated over 3 channels, or for --size other
          than 32 random images (seed 0).
  train   trains the ONNX model's PyTorch twin from the ONNX file's own
          initial weights on the .npz in file order, batches of --batch,
          SGD with --lr and --momentum, for --steps steps on --threads
          threads, and prints one JSON line: each step's loss, images per
          second (after one untimed warm-up step), the running statistics
          after the last step (name -> list), the CPU capability and the
          peak RSS (MiB). --float64 runs the same steps in float64: the
          reference both float32 runs are held to (a max-pool window whose
          values are within rounding of each other sends its gradient to
          whichever element each runtime's rounding makes largest, so two
          float32 runs part ways by more than either does from float64).
          --round_weights (with --float64) rounds the parameters to
          float32 after every update and computes in float64: how far
          that run's losses get from plain float64's is what storing the
          weights in float32 alone costs, the closest any float32 run can
          be expected to stay to float64 (with BatchNormalization, storage
          rounding after one step is amplified to about 1e-4 of the loss
          within four more).

Debian's python3-torch 1.13 (oneDNN 2.6.3 inside), python3-torchvision
0.14, python3-onnx for reading the initial weights.
"""
import argparse
import json
import resource
import time

import numpy as np
import torch
import torch.nn as nn


class SmallCnn(nn.Module):
    def __init__(self, bn):
        super().__init__()
        layers = []
        c_in = 3
        for i, c in enumerate([32, 32, 64, 64]):
            layers.append(nn.Conv2d(c_in, c, 3, padding=1, bias=not bn))
            if bn:
                layers.append(nn.BatchNorm2d(c))
            layers.append(nn.ReLU())
            if i % 2 == 1:
                layers.append(nn.MaxPool2d(2))
            c_in = c
        self.features = nn.Sequential(*layers)
        self.fc = nn.Linear(64 * 8 * 8, 10)

    def forward(self, x):
        return self.fc(torch.flatten(self.features(x), 1))


class WithLoss(nn.Module):
    """The model with its loss: (x, y) -> (loss, logits), what loom_train reads."""

    def __init__(self, model):
        super().__init__()
        self.model = model
        self.loss = nn.CrossEntropyLoss()

    def forward(self, x, y):
        logits = self.model(x)
        return self.loss(logits, y), logits


def make_model(name):
    if name == "cnn":
        return SmallCnn(bn=False)
    if name == "cnn_bn":
        return SmallCnn(bn=True)
    if name == "resnet18":
        import torchvision
        return torchvision.models.resnet18(num_classes=10)
    raise SystemExit(f"unknown model {name}")


def digits(size):
    """The digits data set as cnn_onnx.py writes it (bilinear upsampling)."""
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "train"))
    import cnn_onnx
    return cnn_onnx.digits(size)


def export(a):
    torch.manual_seed(a.seed)
    model = WithLoss(make_model(a.model))
    model.train()
    x = torch.zeros(a.batch, 3, a.size, a.size)
    y = torch.zeros(a.batch, dtype=torch.int64)
    torch.onnx.export(model, (x, y), a.out, training=torch.onnx.TrainingMode.TRAINING, opset_version=13,
                      do_constant_folding=False, input_names=["x", "y"], output_names=["loss", "logits"],
                      dynamic_axes={"x": {0: "N"}, "y": {0: "N"}, "logits": {0: "N"}})
    if a.data:
        if a.size == 32:
            xs, ys = digits(32)
        else:
            rng = np.random.default_rng(0)
            xs = rng.standard_normal((a.examples, 3, a.size, a.size), dtype=np.float32)
            ys = rng.integers(0, 10, a.examples).astype(np.int64)
        np.savez(a.data, x=xs, y=ys)


def load_onnx_weights(model, path):
    """Copies the ONNX file's initializers into `model` by name (the export keeps PyTorch's state_dict names)."""
    import onnx
    from onnx import numpy_helper
    inits = {t.name: numpy_helper.to_array(t) for t in onnx.load(path).graph.initializer}
    state = model.state_dict()
    loaded = 0
    for name, v in state.items():
        if name in inits and tuple(inits[name].shape) == tuple(v.shape):
            state[name] = torch.from_numpy(inits[name].copy())
            loaded += 1
    model.load_state_dict(state)
    return loaded


def train(a):
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    model = WithLoss(make_model(a.model))
    loaded = load_onnx_weights(model, a.onnx)
    model.train()
    d = np.load(a.data)
    x, y = torch.from_numpy(d["x"]), torch.from_numpy(d["y"])
    if a.float64:  # the reference run: the same model and steps in float64
        model.double()
        x = x.double()
    opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=a.lr, momentum=a.momentum)
    per_epoch = x.shape[0] // a.batch

    def step(s):
        k = s % per_epoch
        xb, yb = x[k * a.batch:(k + 1) * a.batch], y[k * a.batch:(k + 1) * a.batch]
        opt.zero_grad()
        loss, _ = model(xb, yb)
        loss.backward()
        opt.step()
        if a.round_weights:
            with torch.no_grad():
                for p in model.parameters():
                    p.copy_(p.float().to(p.dtype))
        return loss.item()

    losses = [step(0)]
    start = time.perf_counter()
    for s in range(1, a.steps):
        losses.append(step(s))
    seconds = time.perf_counter() - start
    stats = {k: v.flatten().tolist() for k, v in model.state_dict().items()
             if k.endswith("running_mean") or k.endswith("running_var")}
    cap = (torch.backends.cpu.get_cpu_capability() if hasattr(torch.backends, "cpu") and
           hasattr(torch.backends.cpu, "get_cpu_capability") else
           [l.split(":")[1].strip() for l in torch.__config__.show().splitlines() if "CPU capability" in l][0])
    print(json.dumps({"losses": losses, "images_per_s": (a.steps - 1) * a.batch / seconds if seconds > 0 else 0,
                      "running": stats, "loaded": loaded, "cpu_capability": cap,
                      "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0}))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["export", "train"])
    p.add_argument("--model", default="cnn")
    p.add_argument("--out", help="export: the ONNX file")
    p.add_argument("--onnx", help="train: the exported ONNX file (its initial weights)")
    p.add_argument("--data", help="export: write the .npz here; train: read it")
    p.add_argument("--size", type=int, default=32)
    p.add_argument("--examples", type=int, default=64, help="random images when --size is not 32")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--float64", action="store_true", help="train: in float64 (the reference run)")
    p.add_argument("--round_weights", action="store_true",
                   help="train: round the parameters to float32 after each update (with --float64)")
    a = p.parse_args()
    export(a) if a.mode == "export" else train(a)


if __name__ == "__main__":
    main()
