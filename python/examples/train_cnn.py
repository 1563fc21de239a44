"""A CNN trained from Python from an exported ONNX model with its loss
inside, as PyTorch exports one for training: one model serves training
(imported with only the gradient-safe rewrites) and evaluation (its
inference form, loom.inference_net).

    python3 tools/train/cnn_onnx.py --out /tmp/cnn.onnx --data /tmp/digits32.npz --bn
    python3 train_cnn.py --model /tmp/cnn.onnx --data /tmp/digits32.npz --epochs 2

The model: inputs x float32 [N, 3, 32, 32] and y int64 [N], outputs
logits [N, 10] and loss (tools/train/cnn_onnx.py). SGD with momentum,
batches in a shuffled order per epoch, the last --test_fraction held out
for the accuracy printed after each epoch.
"""
import argparse

import numpy as np

import loom


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, help="ONNX model with its loss (inputs x, y; outputs logits, loss)")
    p.add_argument("--data", required=True, help=".npz with x and y")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--test_fraction", type=float, default=0.2)
    p.add_argument("--num_threads", type=int, default=0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--smoke", action="store_true", help="10 steps on 320 examples")
    args = p.parse_args(argv)
    data = np.load(args.data)
    x, y = data["x"], data["y"]
    if args.smoke:
        x, y, args.epochs = x[:400], y[:400], 1
    n_test = int(round(len(y) * args.test_fraction))
    cut = len(y) - n_test
    x_train, y_train, x_test, y_test = x[:cut], y[:cut], x[cut:], y[cut:]

    net = loom.NetBuilder.load(args.model, training=True)
    evaluation = loom.inference_net(net)
    grads = loom.add_backward(net, ["loss"])
    loom.add_optimizer(net, grads, "Momentum", alpha=args.momentum)
    ws = loom.Workspace()
    train_name = ws.create_net(net, num_threads=args.num_threads)
    eval_name = ws.create_net(evaluation, num_threads=args.num_threads)
    rng = np.random.default_rng(args.seed)
    per_epoch = len(y_train) // args.batch
    step = 0
    for epoch in range(args.epochs):
        order = rng.permutation(len(y_train))
        for k in range(per_epoch):
            idx = order[k * args.batch:(k + 1) * args.batch]
            (loss,) = ws.run(train_name, {"x": x_train[idx], "y": y_train[idx], "learning_rate": np.float32(args.lr),
                                          "step": np.int64(step)}, ["loss"])
            step += 1
        correct = 0
        if not n_test:
            print("epoch %d: training loss %.4f" % (epoch + 1, loss), flush=True)
            continue
        for k in range(0, len(y_test), args.batch):
            (logits,) = ws.run(eval_name, {"x": x_test[k:k + args.batch], "y": y_test[k:k + args.batch]}, ["logits"])
            correct += int((logits.argmax(axis=1) == y_test[k:k + args.batch]).sum())
        print("epoch %d: training loss %.4f, held-out accuracy %.2f%% (%d of %d)" %
              (epoch + 1, loss, 100.0 * correct / len(y_test), correct, len(y_test)), flush=True)
    return correct / len(y_test) if n_test else None


if __name__ == "__main__":
    main()
