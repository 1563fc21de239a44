"""PyTorch's half of tools/bench/char_lm_vs_pytorch.sh.

Trains the character-level LSTM language model that loom_train --text
trains (tools/train/char_lm.h): nn.Embedding, nn.LSTM, nn.Linear and the
mean cross-entropy, from the same initial weights (loom_train
--export_initial: Loom's W [in, 4H] with gates i, f, o, g becomes
weight_ih [4H, in] with gates i, f, g, o; its one bias B is bias_ih,
bias_hh is 0 and frozen), on the same batches (the text's bytes numbered in byte
order, the last --test_fraction held out, N streams of T characters,
states carried between batches and zeroed at each pass), with SGD
(torch.optim) or Adam (ONNX's arithmetic, written out) and the same
clipping. Prints one JSON line: the per-step losses,
characters per second (after one untimed warm-up step) and the held-out
loss. Debian's python3-torch 1.13 with libopenblas0-openmp.
"""
import argparse
import json
import time

import numpy as np
import torch


def gates_to_torch(m, h):
    """Loom's gate blocks i, f, o, g (rows of m) to PyTorch's i, f, g, o."""
    i, f, o, g = (m[k * h:(k + 1) * h] for k in range(4))
    return np.concatenate([i, f, g, o])


def batches(ids, t, n):
    per = len(ids) // n
    count = (per - 1) // t
    streams = ids[:per * n].reshape(n, per)
    return streams, count


def get(streams, count, k, t):
    start = (k % count) * t
    x = streams[:, start:start + t].T  # [T, N]
    y = streams[:, start + 1:start + t + 1].T
    return torch.from_numpy(np.ascontiguousarray(x)), torch.from_numpy(np.ascontiguousarray(y).reshape(-1))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--text", required=True)
    p.add_argument("--weights", required=True)
    p.add_argument("--hidden", type=int, default=100)
    p.add_argument("--layers", type=int, default=1)
    p.add_argument("--embed", type=int, default=0)
    p.add_argument("--seq_len", type=int, default=25)
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--optimizer", default="Momentum")
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--momentum", type=float, default=0.0)
    p.add_argument("--max_grad_norm", type=float, default=0.0)
    p.add_argument("--test_fraction", type=float, default=0.05)
    p.add_argument("--eval_chars", type=int, default=50000)
    p.add_argument("--threads", type=int, default=1)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    data = np.frombuffer(open(a.text, "rb").read(), dtype=np.uint8)
    chars = np.unique(data)
    lookup = np.zeros(256, dtype=np.int64)
    lookup[chars] = np.arange(len(chars))
    ids = lookup[data]
    held = int(len(ids) * a.test_fraction)
    train, test = ids[:len(ids) - held], ids[len(ids) - held:]
    if a.eval_chars > 0:
        test = test[:a.eval_chars]
    v, h, e, layers = len(chars), a.hidden, a.embed or a.hidden, a.layers
    w = lambda name, *shape: np.fromfile(f"{a.weights}/{name}.bin", dtype="<f4").reshape(*shape)
    emb = torch.nn.Embedding(v, e)
    lstm = torch.nn.LSTM(e, h, layers)
    lin = torch.nn.Linear(h, v)
    with torch.no_grad():
        emb.weight.copy_(torch.from_numpy(w("E", v, e)))
        for l in range(layers):
            inp = e if l == 0 else h
            getattr(lstm, f"weight_ih_l{l}").copy_(torch.from_numpy(gates_to_torch(w(f"W_{l}", inp, 4 * h).T, h)))
            getattr(lstm, f"weight_hh_l{l}").copy_(torch.from_numpy(gates_to_torch(w(f"R_{l}", h, 4 * h).T, h)))
            getattr(lstm, f"bias_ih_l{l}").copy_(torch.from_numpy(gates_to_torch(w(f"B_{l}", 4 * h), h)))
            getattr(lstm, f"bias_hh_l{l}").zero_()
            getattr(lstm, f"bias_hh_l{l}").requires_grad_(False)  # Loom has one bias: only b_ih trains
        lin.weight.copy_(torch.from_numpy(w("Wo", h, v).T.copy()))
        lin.bias.copy_(torch.from_numpy(w("bo", v)))
    params = [q for q in list(emb.parameters()) + list(lstm.parameters()) + list(lin.parameters()) if q.requires_grad]
    if a.optimizer == "Adam":
        # ONNX's Adam (ai.onnx.preview.training), which Loom implements: it
        # adds epsilon to sqrt(H) before the bias correction, torch.optim.Adam
        # after it; the same arithmetic here keeps the two runs comparable.
        moments = [(torch.zeros_like(q), torch.zeros_like(q)) for q in params]
        opt = torch.optim.SGD(params, lr=a.lr)  # for zero_grad only

        def adam_step(t, alpha=0.9, beta=0.999, eps=1e-6):
            r = a.lr * (1 - beta ** t) ** 0.5 / (1 - alpha ** t)
            with torch.no_grad():
                for q, (v, hh) in zip(params, moments):
                    v.mul_(alpha).add_(q.grad, alpha=1 - alpha)
                    hh.mul_(beta).addcmul_(q.grad, q.grad, value=1 - beta)
                    q.addcdiv_(v, hh.sqrt().add_(eps), value=-r)
    else:
        opt = torch.optim.SGD(params, lr=a.lr, momentum=a.momentum)
        adam_step = None
    loss_fn = torch.nn.CrossEntropyLoss()

    def forward(x, state):
        y, state = lstm(emb(x), state)
        return lin(y.reshape(-1, h)), state

    streams, count = batches(train, a.seq_len, a.batch)
    zeros = lambda n: (torch.zeros(layers, n, h), torch.zeros(layers, n, h))
    state = zeros(a.batch)

    def step(k):
        nonlocal state
        if k % count == 0:
            state = zeros(a.batch)
        x, y = get(streams, count, k, a.seq_len)
        opt.zero_grad()
        logits, new_state = forward(x, state)
        loss = loss_fn(logits, y)
        loss.backward()
        if a.max_grad_norm > 0:
            torch.nn.utils.clip_grad_norm_(params, a.max_grad_norm)
        if adam_step is not None:
            adam_step(k + 1)  # Loom feeds T = step + 1 (the first update bias-corrected)
        else:
            opt.step()
        state = tuple(s.detach() for s in new_state)
        return loss.item()

    losses = [step(0)]
    start = time.perf_counter()
    for k in range(1, a.steps):
        losses.append(step(k))
    seconds = time.perf_counter() - start
    with torch.no_grad():
        ts, tc = batches(test, a.seq_len, a.batch)
        s, total = zeros(a.batch), 0.0
        for k in range(tc):
            x, y = get(ts, tc, k, a.seq_len)
            logits, s = forward(x, s)
            total += loss_fn(logits, y).item()
    cap = [l.split(":")[1].strip() for l in torch.__config__.show().splitlines() if "CPU capability" in l]
    print(json.dumps({"losses": losses, "chars_per_s": (a.steps - 1) * a.seq_len * a.batch / seconds,
                      "test_loss": total / tc, "cpu_capability": cap[0] if cap else "unknown"}))


if __name__ == "__main__":
    main()
