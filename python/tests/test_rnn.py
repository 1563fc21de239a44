"""loom.rnn.recurrent_net (Caffe2's arguments) against numpy references
forward, finite differences backward, and the C++ builder's stacked LSTM;
the character LSTM example against loom_train --text."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import loom

EXAMPLES = os.environ.get("LOOM_EXAMPLES", os.path.join(os.path.dirname(__file__), "..", "examples"))
sys.path.insert(0, EXAMPLES)


def rnn_net(T, N, I, H, dtype, threaded=False):
    net = loom.NetBuilder("rnn")
    for name in ("x", "h0", "W", "R", "B"):
        net.add_input(name)
    cell = loom.NetBuilder("cell")
    loom.rnn.rnn_cell(cell, "x_t", "h_prev", ("W", "R", "B"), "h_next")
    outputs = loom.rnn.recurrent_net(net, cell, inputs=[("x_t", "x")], initial_cell_inputs=[("h_prev", "h0")],
                                     links={"h_prev": "h_next"}, scope="rnn", threaded=threaded)
    rng = np.random.default_rng(11)
    feeds = {"x": rng.standard_normal((T, N, I)), "h0": rng.standard_normal((1, N, H)),
             "W": 0.5 * rng.standard_normal((I, H)), "R": 0.5 * rng.standard_normal((H, H)),
             "B": 0.1 * rng.standard_normal(H)}
    return net, outputs, {k: v.astype(dtype) for k, v in feeds.items()}


@pytest.mark.parametrize("threaded", [False, True])
def test_recurrent_net_forward_matches_numpy(threaded):
    T, N, I, H = 5, 3, 4, 6
    net, outputs, feeds = rnn_net(T, N, I, H, np.float64, threaded)
    assert outputs == ("rnn/h_prev_all", "rnn/h_prev_last")
    for o in outputs:
        net.add_output(o)
    ws = loom.Workspace()
    ws.create_net(net)
    got_all, got_last = ws.run("rnn", feeds, list(outputs))
    h = feeds["h0"][0]
    expected = []
    for t in range(T):
        h = np.tanh(feeds["x"][t] @ feeds["W"] + h @ feeds["R"] + feeds["B"])
        expected.append(h)
    np.testing.assert_allclose(got_all.reshape(T, N, H), np.stack(expected), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got_last.reshape(N, H), expected[-1], rtol=1e-12, atol=1e-12)


def test_recurrent_net_gradients_match_finite_differences():
    net, _, feeds = rnn_net(T=4, N=2, I=3, H=3, dtype=np.float64)
    op = net.proto.op[-1]
    assert op.type == "RecurrentNetwork"
    worst = loom.testing.gradient_check(op, [feeds[name] for name in op.input])
    assert worst < 1e-6


def test_lstm_cell_forward_and_gradient():
    T, N, I, H = 4, 2, 3, 5
    rng = np.random.default_rng(2)
    net = loom.NetBuilder("lstm")
    cell = loom.NetBuilder("cell")
    loom.rnn.lstm_cell(cell, "x_t", "h_prev", "c_prev", ("W", "R", "B"), "h_next", "c_next", fused=False)
    outputs = loom.rnn.recurrent_net(net, cell, [("x_t", "x")], [("h_prev", "h0"), ("c_prev", "c0")],
                                     {"h_prev": "h_next", "c_prev": "c_next"}, scope="lstm",
                                     outputs_with_grads=(0,))
    assert outputs == ("lstm/h_prev_all", "lstm/h_prev_last", "lstm/c_prev_all", "lstm/c_prev_last")
    assert net.stop_gradients == {"lstm/h_prev_last", "lstm/c_prev_all", "lstm/c_prev_last"}
    f = {"x": rng.standard_normal((T, N, I)), "h0": rng.standard_normal((1, N, H)),
         "c0": rng.standard_normal((1, N, H)), "W": 0.4 * rng.standard_normal((I, 4 * H)),
         "R": 0.4 * rng.standard_normal((H, 4 * H)), "B": 0.1 * rng.standard_normal(4 * H)}
    for name in f:
        net.add_input(name)
    for o in outputs:
        net.add_output(o)
    ws = loom.Workspace()
    ws.create_net(net)
    (h_all,) = ws.run("lstm", f, [outputs[0]])
    sig = lambda v: 1 / (1 + np.exp(-v))
    h, c = f["h0"][0], f["c0"][0]
    for t in range(T):
        i, fg, o, g = np.split(f["x"][t] @ f["W"] + h @ f["R"] + f["B"], 4, axis=-1)
        c = sig(fg) * c + sig(i) * np.tanh(g)
        h = sig(o) * np.tanh(c)
        np.testing.assert_allclose(h_all.reshape(T, N, H)[t], h, rtol=1e-12, atol=1e-12)
    op = net.proto.op[-1]
    loom.testing.gradient_check(op, [f[name] for name in op.input])
    # The same gradients when the backward pass recomputes tanh(c) instead of
    # keeping it per timestep (Caffe2's recompute_blobs_on_backward).
    recomputing = loom.NetBuilder("lstm_recompute")
    loom.rnn.recurrent_net(recomputing, cell, [("x_t", "x")], [("h_prev", "h0"), ("c_prev", "c0")],
                           {"h_prev": "h_next", "c_prev": "c_next"}, scope="lstm", recompute_blobs_on_backward=["tc"])
    op = recomputing.proto.op[-1]
    assert [list(a.strings) for a in op.arg if a.name == "recompute_blobs_on_backward"] == [[b"tc"]]
    loom.testing.gradient_check(op, [f[name] for name in op.input])


def test_python_and_cpp_builders_give_the_same_lstm():
    T, N, I, H = 6, 2, 4, 8
    rng = np.random.default_rng(4)
    f = {"x": rng.standard_normal((T, N, I)).astype(np.float32),
         "h0": rng.standard_normal((1, N, H)).astype(np.float32),
         "c0": rng.standard_normal((1, N, H)).astype(np.float32),
         "W": (0.3 * rng.standard_normal((I, 4 * H))).astype(np.float32),
         "R": (0.3 * rng.standard_normal((H, 4 * H))).astype(np.float32),
         "B": (0.1 * rng.standard_normal(4 * H)).astype(np.float32)}
    py = loom.NetBuilder("py")
    cell = loom.NetBuilder("cell")
    loom.rnn.lstm_cell(cell, "x_t", "h0_prev", "c0_prev", ("W", "R", "B"), "h0_next", "c0_next", prefix="l0_")
    outputs = loom.rnn.recurrent_net(py, cell, [("x_t", "x")], [("h0_prev", "h0"), ("c0_prev", "c0")],
                                     {"h0_prev": "h0_next", "c0_prev": "c0_next"}, scope="lstm", forward_only=True)
    cpp = loom.NetBuilder("cpp")
    loom.rnn.stacked_lstm(cpp, "x", [("W", "R", "B")], ["h0"], ["c0"], "lstm", forward_only=True)
    assert [a.n.op for a in py.proto.op[0].arg if a.name == "step_net"] == \
        [a.n.op for a in cpp.proto.op[0].arg if a.name == "step_net"]
    results = []
    for net, out in ((py, outputs[0]), (cpp, "lstm_all")):
        for name in f:
            net.add_input(name)
        net.add_output(out)
        ws = loom.Workspace()
        ws.create_net(net)
        results.append(ws.run(net.name, f, [out])[0])
    np.testing.assert_array_equal(results[0], results[1])


def test_recurrent_net_errors_name_the_blob():
    net = loom.NetBuilder("bad")
    cell = loom.NetBuilder("cell")
    loom.rnn.rnn_cell(cell, "x_t", "h_prev", ("W", "R", "B"), "h_next")
    with pytest.raises(ValueError, match="state 'h_prev' has no link"):
        loom.rnn.recurrent_net(net, cell, [("x_t", "x")], [("h_prev", "h0")], {})
    with pytest.raises(loom.Error, match="'h_other'"):
        loom.rnn.recurrent_net(net, cell, [("x_t", "x")], [("h_prev", "h0")], {"h_prev": "h_other"})
    with pytest.raises(ValueError, match="outputs_with_grads index 5"):
        loom.rnn.recurrent_net(net, cell, [("x_t", "x")], [("h_prev", "h0")], {"h_prev": "h_next"},
                               outputs_with_grads=(5,))


def bible(tmp_path, books="Gen1:1-Gen50:26"):
    try:
        text = subprocess.run(["bible", "-f", books], check=True, capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("no bible command (scripts/setup.sh installs bible-kjv)")
    path = tmp_path / "text.txt"
    path.write_bytes(text)
    return path


def test_the_char_lstm_example_reaches_loom_trains_held_out_loss(tmp_path):
    import char_lstm
    text = bible(tmp_path)
    settings = ["--hidden", "32", "--layers", "2", "--seq_len", "20", "--batch", "4", "--optimizer", "Adam",
                "--lr", "0.01", "--max_grad_norm", "5", "--steps", "300", "--test_fraction", "0.1",
                "--eval_chars", "4000", "--num_threads", "1", "--log_every", "100"]
    # Same settings and --seed: the example draws loom_train's initial
    # weights itself (bit for bit), so no weights are handed over.
    settings += ["--seed", "3"]
    out = subprocess.run([os.environ["LOOM_TRAIN"], "--text", str(text), "--threaded=false", "--sample_chars", "0"] +
                         settings, check=True, capture_output=True, text=True)
    cpp = float(re.search(r"held-out loss ([0-9.]+)", out.stdout).group(1))
    py = char_lstm.main(["--text", str(text), "--threaded=false"] + settings)
    assert py < 2.9  # it learned (uniform over ~60 characters is 4.1)
    assert abs(py - cpp) < 1e-3, (py, cpp)
