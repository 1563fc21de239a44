"""PyTorch's half of tools/bench/train_vs_pytorch.sh.

Trains the MLP that make_mlp wrote (Gemm/Relu layers, mean cross-entropy)
with the same initial weights (loom_train --export_initial), the same data
(the CSV in file order, features times --scale) and batches, and SGD with
the same momentum and learning rate, for --steps steps on --threads
threads. Prints one JSON line: the per-step losses and steps per second
(timed after one untimed warm-up step).

Debian's python3-torch 1.13, with libopenblas0-openmp for its BLAS.
"""
import argparse
import gzip
import json
import time

import numpy as np
import torch


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", required=True)
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--weights", required=True, help="folder of <name>.bin from loom_train --export_initial")
    p.add_argument("--sizes", required=True, help="layer widths, as given to make_mlp")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--threads", type=int, default=1)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    opener = gzip.open if a.data.endswith(".gz") else open
    with opener(a.data, "rt") as f:
        rows = np.loadtxt(f, delimiter=",", dtype=np.float64)
    x = torch.tensor(rows[:, :-1] * a.scale, dtype=torch.float32)
    y = torch.tensor(rows[:, -1], dtype=torch.int64)
    sizes = [int(s) for s in a.sizes.split(",")]
    layers = []
    for l in range(len(sizes) - 1):
        lin = torch.nn.Linear(sizes[l], sizes[l + 1])
        w = np.fromfile(f"{a.weights}/W{l}.bin", dtype="<f4").reshape(sizes[l], sizes[l + 1])
        b = np.fromfile(f"{a.weights}/b{l}.bin", dtype="<f4")
        with torch.no_grad():
            lin.weight.copy_(torch.from_numpy(w.T.copy()))  # Gemm's W is [in, out]; Linear's is [out, in]
            lin.bias.copy_(torch.from_numpy(b))
        layers.append(lin)
        if l + 2 < len(sizes):
            layers.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*layers)
    opt = torch.optim.SGD(model.parameters(), lr=a.lr, momentum=a.momentum)
    loss_fn = torch.nn.CrossEntropyLoss()
    per_epoch = x.shape[0] // a.batch

    def step(s):
        k = s % per_epoch
        xb, yb = x[k * a.batch:(k + 1) * a.batch], y[k * a.batch:(k + 1) * a.batch]
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        return loss.item()

    losses = [step(0)]
    start = time.perf_counter()
    for s in range(1, a.steps):
        losses.append(step(s))
    seconds = time.perf_counter() - start
    print(json.dumps({"losses": losses, "steps_per_s": (a.steps - 1) / seconds,
                      "cpu_capability": torch.backends.cpu.get_cpu_capability()
                      if hasattr(torch.backends, "cpu") and hasattr(torch.backends.cpu, "get_cpu_capability") else
                      [l.split(":")[1].strip() for l in torch.__config__.show().splitlines() if "CPU capability" in l][0]}))


if __name__ == "__main__":
    main()
