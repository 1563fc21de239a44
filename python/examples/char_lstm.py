"""A character-level LSTM language model trained from Python (Caffe2's
char_rnn.py, Karpathy's char-rnn), written with loom.rnn.recurrent_net:
the model and the training loop of `loom_train --text`
(tools/train/char_lm.h), so the same settings and seed (the initial
weights are drawn as loom_train draws them) reach the same held-out loss.

    bible -f Gen1:1-Rev22:21 > /tmp/kjv.txt
    python3 char_lstm.py --text /tmp/kjv.txt --hidden 100 --seq_len 25 --batch 1 --steps 20000 \
        --optimizer Momentum --momentum 0 --lr 2.5 --lr_gamma 0.9999 --max_grad_norm 5 --threaded=false

Model: tokens int64 [T, N] -> Gather(E [V, embed]) -> a stacked LSTM (one
RecurrentNetwork op; per layer l, W_l [in, 4H], R_l [H, 4H], B_l [4H], gate
order i, f, o, g) -> Flatten -> Gemm(Wo [H, V], bo [V]) -> logits [T*N, V]
-> SoftmaxCrossEntropyLoss with targets int64 [T*N] (the next characters):
the mean loss. Truncated backpropagation through time: each batch of N
streams x T characters starts from the previous batch's final states.
The held-out text is the last --test_fraction (at most --eval_chars
characters); it prints the held-out loss and the characters/s after the
first step (which plans the nets). --smoke: a few steps on a small model.
"""
import argparse
import math
import os
import subprocess
import sys
import time

import numpy as np

import loom


def read_text(path):
    if path:
        with open(path, "rb") as f:
            return f.read()
    try:  # Debian's bible-kjv (scripts/setup.sh installs it): Genesis
        return subprocess.run(["bible", "-f", "Gen1:1-Gen50:26"], check=True, capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit("char_lstm: no --text and no `bible` command (%s)" % e)


def char_batches(ids, T, N):
    """loom_train's CharBatches (PyTorch's batchify): stream n reads ids
    [n L, (n + 1) L); batch k is T characters of every stream and the next
    ones as targets. Returns (count, get(k) -> (tokens [T, N], targets [T*N]))."""
    L = len(ids) // N
    streams = ids[:N * L].reshape(N, L)
    count = (L - 1) // T if L > T else 0

    def get(k):
        start = (k % count if count else 0) * T
        tokens = np.ascontiguousarray(streams[:, start:start + T].T)
        targets = np.ascontiguousarray(streams[:, start + 1:start + T + 1].T).reshape(-1)
        return tokens, targets

    return count, get


def parameter_shapes(vocab, embed, hidden, layers):
    shapes = {"E": (vocab, embed)}
    for l in range(layers):
        shapes["W_%d" % l] = (embed if l == 0 else hidden, 4 * hidden)
        shapes["R_%d" % l] = (hidden, 4 * hidden)
        shapes["B_%d" % l] = (4 * hidden,)
    shapes["Wo"] = (hidden, vocab)
    shapes["bo"] = (vocab,)
    return shapes


class CppRandom:
    """std::mt19937(seed) with libstdc++'s generate_canonical<double, 53>,
    uniform_real_distribution<double> and normal_distribution<double>
    (Marsaglia's polar method), in numpy: the draws loom_train makes
    (tools/train/char_lm.cc AddCharLmParameters), bit for bit. numpy's
    legacy RandomState is the same Mersenne Twister seeded the same way."""

    def __init__(self, seed):
        self._rs = np.random.RandomState(seed)
        self._buf, self._at = np.empty(0, np.uint32), 0

    def _raw(self, n):
        if self._at + n > len(self._buf):
            fresh = self._rs.randint(0, 2 ** 32, size=max(n, 1 << 16), dtype=np.uint32)
            self._buf, self._at = np.concatenate([self._buf[self._at:], fresh]), 0
        out = self._buf[self._at:self._at + n]
        self._at += n
        return out

    def canonical(self, n):
        """n doubles in [0, 1): (a + b 2^32) / 2^64 from two draws each."""
        raw = self._raw(2 * n).astype(np.float64)
        u = (raw[0::2] + raw[1::2] * 4294967296.0) / 18446744073709551616.0
        return np.where(u >= 1.0, np.nextafter(1.0, 0.0), u)

    def uniform(self, lo, hi, n):
        return self.canonical(n) * (hi - lo) + lo

    def normal(self, n):
        out = np.empty(n)
        for i in range(0, n, 2):
            while True:
                x, y = self.canonical(2) * 2.0 - 1.0
                r2 = x * x + y * y
                if 0.0 < r2 <= 1.0:
                    break
            mult = math.sqrt(-2.0 * math.log(r2) / r2)
            out[i] = y * mult  # returned first; x * mult is saved for the next
            if i + 1 < n:
                out[i + 1] = x * mult
        return out


def initial_parameters(shapes, hidden, seed, init_from):
    """The initial weights loom_train draws for the same --seed (PyTorch's
    initialization: nn.Embedding N(0, 1), nn.LSTM and nn.Linear
    U(-1/sqrt(H), 1/sqrt(H)); in loom_train's order with its generator,
    CppRandom), or the float32 files <name>.bin of `loom_train
    --export_initial DIR`."""
    if init_from:
        return {n: np.fromfile(os.path.join(init_from, n + ".bin"), dtype="<f4").reshape(s) for n, s in shapes.items()}
    rng = CppRandom(seed)
    k = 1.0 / math.sqrt(hidden)
    out = {}
    for name, shape in shapes.items():  # E, W_0, R_0, B_0, ..., Wo, bo: loom_train's order
        n = int(np.prod(shape))
        values = rng.normal(n) if name == "E" else rng.uniform(-k, k, n)
        out[name] = values.astype(np.float32).reshape(shape)
    return out


def char_lm(args, vocab, params, forward_only):
    """The model as a NetBuilder (parameters as initializers, or as external
    inputs when `params` is None); returns (net, names of the LSTM's final
    states per layer: [(h_last, c_last)])."""
    net = loom.NetBuilder("char_lm_eval" if forward_only else "char_lm")
    for name in ("tokens", "targets"):
        net.add_input(name)
    for name, value in (params or {}).items():
        net.add_initializer(name, value)
    if params is None:
        for name in parameter_shapes(vocab, args.embed, args.hidden, args.layers):
            net.add_input(name)
    net.Gather(["E", "tokens"], "x")
    cell = loom.NetBuilder("lstm_cell")
    initial, links = [], {}
    for l in range(args.layers):
        net.add_input("h0_%d" % l)
        net.add_input("c0_%d" % l)
        below = "x_t" if l == 0 else "h%d_next" % (l - 1)
        loom.rnn.lstm_cell(cell, below, "h%d_prev" % l, "c%d_prev" % l, ("W_%d" % l, "R_%d" % l, "B_%d" % l),
                           "h%d_next" % l, "c%d_next" % l, prefix="l%d_" % l)
        initial += [("h%d_prev" % l, "h0_%d" % l), ("c%d_prev" % l, "c0_%d" % l)]
        links.update({"h%d_prev" % l: "h%d_next" % l, "c%d_prev" % l: "c%d_next" % l})
    # Outputs per state: (all, last); the top layer's h "all" feeds the
    # classifier, the "last" ones carry the states to the next batch.
    top = 4 * (args.layers - 1)
    outputs = loom.rnn.recurrent_net(net, cell, inputs=[("x_t", "x")], initial_cell_inputs=initial, links=links,
                                     scope="lstm", outputs_with_grads=(top,), forward_only=forward_only,
                                     threaded=args.threaded, num_threads=args.rnn_threads)
    flat = net.Flatten(outputs[top], "flat", axis=3)
    net.Gemm([flat, "Wo", "bo"], "logits")
    net.SoftmaxCrossEntropyLoss(["logits", "targets"], "loss")
    net.add_output("loss")
    net.add_output("logits")
    finals = [(outputs[4 * l + 1], outputs[4 * l + 3]) for l in range(args.layers)]
    for h, c in finals:
        net.add_output(h)
        net.add_output(c)
    return net, finals


def zero_states(ws, args, n):
    for l in range(args.layers):
        for s in ("h0_%d", "c0_%d"):
            ws.feed_blob(s % l, np.zeros((1, n, args.hidden), np.float32))


def carry_states(ws, finals, n, hidden):
    """The next batch starts from this one's final states (their values)."""
    for l, (h, c) in enumerate(finals):
        ws.feed_blob("h0_%d" % l, ws.fetch_blob(h).reshape(1, n, hidden))
        ws.feed_blob("c0_%d" % l, ws.fetch_blob(c).reshape(1, n, hidden))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--text", default="", help="the text (default: Genesis from `bible`)")
    p.add_argument("--hidden", type=int, default=100)
    p.add_argument("--layers", type=int, default=1)
    p.add_argument("--embed", type=int, default=0, help="embedding width (0: --hidden)")
    p.add_argument("--seq_len", type=int, default=25)
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--steps", type=int, default=1000)
    p.add_argument("--optimizer", default="Momentum", choices=["Momentum", "Adam", "Adagrad"])
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--lr_gamma", type=float, default=1.0)
    p.add_argument("--lr_step_size", type=int, default=1)
    p.add_argument("--max_grad_norm", type=float, default=0.0)
    p.add_argument("--threaded", nargs="?", const=True, default="true", type=lambda v: v.lower() in ("1", "true"),
                   help="the threaded timestep executor (--threaded=false: timesteps in order), as loom_train's flag")
    p.add_argument("--rnn_threads", type=int, default=2)
    p.add_argument("--num_threads", type=int, default=0)
    p.add_argument("--test_fraction", type=float, default=0.2)
    p.add_argument("--eval_chars", type=int, default=50000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--init_from", default="", help="initial weights from loom_train --export_initial's folder "
                   "(default: drawn from --seed exactly as loom_train draws them)")
    p.add_argument("--log_every", type=int, default=100)
    p.add_argument("--smoke", action="store_true", help="20 steps of a 32-wide LSTM on 20,000 characters")
    args = p.parse_args(argv)
    text = read_text(args.text)
    if args.smoke:
        text, args.steps, args.hidden, args.eval_chars, args.test_fraction = text[:20000], 20, 32, 2000, 0.1
    args.embed = args.embed or args.hidden

    chars = sorted(set(text))
    index = np.full(256, -1, np.int64)
    index[chars] = np.arange(len(chars))
    ids = index[np.frombuffer(text, np.uint8)]
    held = int(len(ids) * args.test_fraction)
    train, test = ids[:len(ids) - held], ids[len(ids) - held:]
    if args.eval_chars > 0:
        test = test[:args.eval_chars]
    vocab = len(chars)
    count, batch = char_batches(train, args.seq_len, args.batch)
    test_count, test_batch = char_batches(test, args.seq_len, args.batch)
    if count == 0 or test_count == 0:
        sys.exit("char_lstm: the training or held-out text is shorter than one batch")

    params = initial_parameters(parameter_shapes(vocab, args.embed, args.hidden, args.layers), args.hidden, args.seed,
                                args.init_from)
    training, finals = char_lm(args, vocab, params, forward_only=False)
    grads = loom.add_backward(training, ["loss"])
    attributes = {"alpha": args.momentum, "norm_coefficient": 0.0} if args.optimizer == "Momentum" else {}
    loom.add_optimizer(training, grads, args.optimizer, max_gradient_norm=args.max_grad_norm, **attributes)
    evaluation, eval_finals = char_lm(args, vocab, None, forward_only=True)
    schedule = loom.LearningRateSchedule("step", args.lr, args.lr_gamma, args.lr_step_size)

    ws = loom.Workspace()
    ws.create_net(training, num_threads=args.num_threads)
    print("char_lstm: %d characters (%d held out), vocabulary %d; LSTM %d x %d, embedding %d; %d steps of %d x %d "
          "characters, %s" % (len(ids), held, vocab, args.layers, args.hidden, args.embed, args.steps, args.seq_len,
                              args.batch, args.optimizer), flush=True)
    zero_states(ws, args, args.batch)
    start = time.perf_counter()
    first = start
    window, window_loss = start, 0.0
    per_step = args.seq_len * args.batch
    for step in range(args.steps):
        if step % count == 0:
            zero_states(ws, args, args.batch)  # a new pass over the text
        tokens, targets = batch(step)
        ws.feed_blob("tokens", tokens)
        ws.feed_blob("targets", targets)
        ws.feed_blob("learning_rate", np.float32(schedule.at(step)))
        # Momentum's first step (0) takes the gradient as it is; Adam
        # bias-corrects from step 1 (PyTorch's Adam corrects its first).
        ws.feed_blob("step", np.int64(step + 1 if args.optimizer == "Adam" else step))
        ws.run_net("char_lm")
        loss = float(ws.fetch_blob("loss"))
        carry_states(ws, finals, args.batch, args.hidden)
        if step == 0:
            first = time.perf_counter()
        window_loss += loss
        if (step + 1) % args.log_every == 0 or step + 1 == args.steps:
            now = time.perf_counter()
            steps = (step % args.log_every) + 1
            print("step %d/%d loss %.4f  %.0f characters/s" %
                  (step + 1, args.steps, window_loss / steps, steps * per_step / max(now - window, 1e-9)), flush=True)
            window, window_loss = now, 0.0
    end = time.perf_counter()

    ws.create_net(evaluation, num_threads=args.num_threads)
    zero_states(ws, args, args.batch)
    total = 0.0
    for k in range(test_count):
        tokens, targets = test_batch(k)
        ws.feed_blob("tokens", tokens)
        ws.feed_blob("targets", targets)
        ws.run_net("char_lm_eval")
        total += float(ws.fetch_blob("loss"))
        carry_states(ws, eval_finals, args.batch, args.hidden)
    held_out = total / test_count
    warm = end - first
    print("char_lstm: held-out loss %.4f (perplexity %.3f) on %d characters after %d steps, %.1f s "
          "(%.0f characters/s after the first step)" %
          (held_out, math.exp(held_out), len(test), args.steps, end - start,
           (args.steps - 1) * per_step / warm if warm > 0 else 0.0), flush=True)
    return held_out


if __name__ == "__main__":
    main()
