"""An MLP trained from Python on scikit-learn's handwritten digits (1,797
8x8 scans, Debian's python3-sklearn): the net built op by op with
loom.NetBuilder, the training loop of `loom_train` (tools/loom_train.cc),
and data parallelism across processes (--world_size: this script starts
the ranks itself; the collectives plugin's Gloo allreduce averages the
gradients, so two ranks of half a batch each take the steps one process
takes on the whole batch).

    python3 mlp_digits.py --steps 200                 # one process
    python3 mlp_digits.py --steps 200 --world_size 2  # two processes, the same result

Model: x float32 [N, 64] (pixels / 16) -> Gemm(W0 [64, H], b0) -> Relu ->
Gemm(W1 [H, 10], b1) -> logits; SoftmaxCrossEntropyLoss with y int64 [N]
-> loss (the mean). SGD with momentum 0.9, learning rate 0.1, batches of
--batch examples in file order. --out FILE.npz writes the trained
parameters; --model FILE.pb starts from a NetDef instead (make_mlp's).
"""
import argparse
import gzip
import os
import subprocess
import sys
import tempfile
import uuid

import numpy as np

import loom

DIGITS = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"


def digits():
    with gzip.open(DIGITS, "rt") as f:
        rows = np.loadtxt(f, delimiter=",")
    return rows[:, :-1].astype(np.float32) * np.float32(0.0625), rows[:, -1].astype(np.int64)


def mlp(hidden, seed):
    """The MLP op by op, weights as PyTorch's nn.Linear draws them."""
    rng = np.random.default_rng(seed)
    net = loom.NetBuilder("mlp")
    h = net.add_input("x")
    net.add_input("y")
    sizes = [64, hidden, 10]
    for l in range(2):
        k = 1.0 / np.sqrt(sizes[l])
        w = net.add_initializer("W%d" % l, rng.uniform(-k, k, (sizes[l], sizes[l + 1])).astype(np.float32))
        b = net.add_initializer("b%d" % l, rng.uniform(-k, k, sizes[l + 1]).astype(np.float32))
        h = net.Gemm([h, w, b], "logits" if l == 1 else "a%d" % l)
        if l == 0:
            h = net.Relu(h, "h0")
    net.SoftmaxCrossEntropyLoss(["logits", "y"], "loss")
    net.add_output("loss")
    net.add_output("logits")
    return net


def train(args):
    x, y = digits()
    net = loom.NetBuilder.load(args.model) if args.model else mlp(args.hidden, args.seed)
    params = net.initializer_names()
    grads = loom.add_backward(net, ["loss"])
    parallel = None
    if args.world_size > 1:
        parallel = loom.DataParallelOptions(world_size=args.world_size, rank=args.rank, rendezvous=args.rendezvous,
                                            run_id=args.run_id)
        grads = loom.add_allreduce(net, grads, parallel)
    loom.add_optimizer(net, grads, "Momentum", alpha=0.9)
    ws = loom.Workspace()
    name = ws.create_net(net, num_threads=args.num_threads)
    if parallel is not None:  # every rank starts from rank 0's parameters
        ws.run_net_once(loom.broadcast_net(params, parallel))
    local = args.batch // args.world_size
    per_epoch = len(y) // args.batch
    losses = []
    for step in range(args.steps):
        begin = (step % per_epoch) * args.batch + args.rank * local
        (loss,) = ws.run(name, {"x": x[begin:begin + local], "y": y[begin:begin + local],
                                 "learning_rate": np.float32(args.lr), "step": np.int64(step)}, ["loss"])
        losses.append(float(loss))
        if (step + 1) % args.log_every == 0:
            print("rank %d step %d loss %.4f" % (args.rank, step + 1, loss), flush=True)
    if args.out and args.rank == 0:
        np.savez(args.out, losses=np.array(losses), **{p: ws.fetch_blob(p) for p in params})
    return losses


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--hidden", type=int, default=32)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--num_threads", type=int, default=1)
    p.add_argument("--model", default="", help="a NetDef to train instead (inputs x, y; output loss)")
    p.add_argument("--world_size", type=int, default=1)
    p.add_argument("--rank", type=int, default=-1, help="(set by the launcher)")
    p.add_argument("--rendezvous", default="")
    p.add_argument("--run_id", default="")
    p.add_argument("--out", default="", help="write the losses and trained parameters here (.npz)")
    p.add_argument("--log_every", type=int, default=50)
    p.add_argument("--smoke", action="store_true", help="20 steps")
    args = p.parse_args(argv)
    if args.smoke:
        args.steps = 20
    if args.batch % args.world_size:
        sys.exit("mlp_digits: --world_size must divide --batch")
    if args.world_size > 1 and args.rank < 0:
        # The launcher: one process per rank, a fresh rendezvous folder.
        with tempfile.TemporaryDirectory() as rdv:
            run_id = uuid.uuid4().hex
            procs = [subprocess.Popen([sys.executable, os.path.abspath(__file__)] + (argv or sys.argv[1:]) +
                                      ["--rank", str(r), "--rendezvous", rdv, "--run_id", run_id])
                     for r in range(args.world_size)]
            codes = [proc.wait() for proc in procs]
        if any(codes):
            sys.exit("mlp_digits: a rank failed (exit codes %s)" % codes)
        return None
    args.rank = max(args.rank, 0)
    losses = train(args)
    if args.rank == 0:
        print("mlp_digits: loss %.4f after %d steps (%d process%s)" %
              (losses[-1], args.steps, args.world_size, "" if args.world_size == 1 else "es"), flush=True)
    return losses


if __name__ == "__main__":
    main()
