"""Training from Python against the C++ trainer's own losses (loom_train,
same model, data and optimizer), checkpoints, data parallelism across two
processes against one, and the gradient checker against finite
differences."""
import os
import subprocess
import sys

import numpy as np
import pytest

import loom

DIGITS = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"
EXAMPLES = os.environ.get("LOOM_EXAMPLES", os.path.join(os.path.dirname(__file__), "..", "examples"))
sys.path.insert(0, EXAMPLES)

needs_digits = pytest.mark.skipif(not os.path.exists(DIGITS), reason="no digits data (python3-sklearn)")


def digits():
    import mlp_digits
    return mlp_digits.digits()


def train_steps(ws, name, x, y, steps, batch, first_step=0, lr=0.1):
    losses = []
    for step in range(first_step, first_step + steps):
        begin = (step * batch) % (len(y) - len(y) % batch)
        (loss,) = ws.run(name, {"x": x[begin:begin + batch], "y": y[begin:begin + batch],
                                "learning_rate": np.float32(lr), "step": np.int64(step)}, ["loss"])
        losses.append(float(loss))
    return losses


@needs_digits
def test_an_mlp_trains_to_loom_trains_losses(tmp_path):
    mlp = tmp_path / "mlp.pb"
    subprocess.run([os.environ["LOOM_MAKE_MLP"], "--sizes", "64,32,10", "--out", str(mlp)], check=True)
    log = tmp_path / "losses.txt"
    subprocess.run([os.environ["LOOM_TRAIN"], "--model", str(mlp), "--data", DIGITS, "--scale", "0.0625",
                    "--test_fraction", "0", "--shuffle=false", "--batch", "32", "--max_steps", "60",
                    "--epochs", "2", "--num_threads", "1", "--lr", "0.1", "--momentum", "0.9",
                    "--loss_log", str(log)], check=True, capture_output=True)
    expected = np.loadtxt(log)
    assert len(expected) == 60

    net = loom.NetBuilder.load(mlp)
    grads = loom.add_backward(net, ["loss"])
    assert sorted(grads) == ["W0", "W1", "b0", "b1"]
    loom.add_optimizer(net, grads, "Momentum", alpha=0.9)
    ws = loom.Workspace()
    ws.create_net(net, num_threads=1)
    x, y = digits()
    losses = train_steps(ws, "mlp", x, y, 60, 32)
    np.testing.assert_allclose(losses, expected, rtol=0, atol=1e-6)
    assert losses[-1] < 0.5 * losses[0]  # it learns


@needs_digits
def test_the_same_mlp_built_op_by_op_trains_the_same(tmp_path):
    mlp = tmp_path / "mlp.pb"
    subprocess.run([os.environ["LOOM_MAKE_MLP"], "--sizes", "64,32,10", "--out", str(mlp)], check=True)
    loaded = loom.NetBuilder.load(mlp)
    built = loom.NetBuilder("mlp")
    built.add_input("x")
    built.add_input("y")
    for t in loaded.proto.initializer:
        built.add_initializer(t.name, loom.to_array(t))
    built.Relu(built.Gemm(["x", "W0", "b0"], "a0"), "h0")
    built.Gemm(["h0", "W1", "b1"], "logits")
    built.SoftmaxCrossEntropyLoss(["logits", "y"], "loss")
    built.add_output("loss")
    x, y = digits()
    results = []
    for net in (loaded, built):
        loom.add_optimizer(net, loom.add_backward(net, "loss"), "Momentum", alpha=0.9)
        ws = loom.Workspace()
        ws.create_net(net, num_threads=1)
        results.append(train_steps(ws, "mlp", x, y, 20, 32))
    np.testing.assert_array_equal(results[0], results[1])


@needs_digits
def test_a_checkpoint_resumes_bitwise(tmp_path):
    import mlp_digits
    x, y = digits()

    def fresh():
        net = mlp_digits.mlp(16, seed=3)
        state = net.initializer_names()
        loom.add_optimizer(net, loom.add_backward(net, "loss"), "Adam", alpha=0.9, beta=0.999)
        ws = loom.Workspace()
        ws.create_net(net, num_threads=1)
        # Parameters and the optimizer's states (new initializers).
        return ws, [t.name for t in net.proto.initializer if t.name in state or "_adam_" in t.name]

    ws, state = fresh()
    assert any(s.endswith("_adam_v") for s in state)
    train_steps(ws, "mlp", x, y, 10, 32)
    ws.save_checkpoint(state, tmp_path / "ckpt")
    straight = train_steps(ws, "mlp", x, y, 10, 32, first_step=10)
    resumed_ws, _ = fresh()
    assert sorted(resumed_ws.load_checkpoint(tmp_path / "ckpt")) == sorted(state)
    resumed = train_steps(resumed_ws, "mlp", x, y, 10, 32, first_step=10)
    assert resumed == straight
    with pytest.raises(loom.Error, match="NOT_FOUND"):
        resumed_ws.load_checkpoint(tmp_path / "none")


@needs_digits
def test_two_processes_train_as_one(tmp_path):
    example = os.path.join(EXAMPLES, "mlp_digits.py")
    outs = {}
    for world in (1, 2):
        outs[world] = tmp_path / ("w%d.npz" % world)
        subprocess.run([sys.executable, example, "--steps", "30", "--world_size", str(world), "--out",
                        str(outs[world]), "--log_every", "1000"], check=True, timeout=300)
    one, two = np.load(outs[1]), np.load(outs[2])
    for p in ("W0", "b0", "W1", "b1"):
        np.testing.assert_allclose(two[p], one[p], rtol=0, atol=1e-5)
    assert not np.array_equal(one["W0"], loom.to_array(
        __import__("mlp_digits").mlp(32, 1).proto.initializer[0]))  # it trained


def test_optimizers_and_schedules():
    s = loom.LearningRateSchedule("step", 0.1, gamma=0.5, step_size=10)
    assert [s.at(0), s.at(9), s.at(10), s.at(25)] == [0.1, 0.1, 0.05, 0.025]
    assert loom.LearningRateSchedule("exponential", 2.0, gamma=0.5).at(3) == 0.25
    # One SGD step on L = sum(w * x): w' = w - lr * x (Momentum with alpha 0).
    for optimizer, expected in (("SGD", [1.0 - 0.5 * 2, 2.0 - 0.5 * 3]),
                                ("Adagrad", None), ("Nesterov", None), ("Adam", None)):
        net = loom.NetBuilder("sgd")
        x = net.add_input("x")
        net.add_initializer("w", np.array([1.0, 2.0], np.float32))
        net.add_output(net.ReduceSum(net.Mul(["w", x]), "loss", keepdims=0))
        loom.add_optimizer(net, loom.add_backward(net, "loss"), optimizer)
        ws = loom.Workspace()
        ws.create_net(net)
        ws.run("sgd", {"x": np.array([2.0, 3.0], np.float32), "learning_rate": np.float32(0.5),
                       "step": np.int64(1 if optimizer == "Adam" else 0)})
        w = ws.fetch_blob("w")
        if expected is not None:
            np.testing.assert_allclose(w, expected, rtol=1e-6)
        else:
            assert (w < [1.0, 2.0]).all()  # a step down the gradient
    with pytest.raises(ValueError, match="optimizer must be one of"):
        loom.add_optimizer(net, {}, "RMSprop")
    with pytest.raises(TypeError, match="Momentum has no attribute 'gamma'"):
        loom.add_optimizer(net, {"w": "w_grad"}, "Momentum", gamma=1.0)


def test_max_gradient_norm_clips():
    net = loom.NetBuilder("clip")
    x = net.add_input("x")
    net.add_initializer("w", np.zeros(2, np.float32))
    net.add_output(net.ReduceSum(net.Mul(["w", x]), "loss", keepdims=0))
    loom.add_optimizer(net, loom.add_backward(net, "loss"), "SGD", max_gradient_norm=1.0)
    ws = loom.Workspace()
    ws.create_net(net)
    ws.run("clip", {"x": np.array([3.0, 4.0], np.float32), "learning_rate": np.float32(1.0), "step": np.int64(0)})
    np.testing.assert_allclose(ws.fetch_blob("w"), [-0.6, -0.8], rtol=1e-5)  # the gradient (3, 4) scaled to norm 1


def test_accumulated_gradients_sum_over_runs():
    net = loom.NetBuilder("acc")
    x = net.add_input("x")
    net.add_initializer("w", np.zeros(3, np.float32))
    net.add_output(net.ReduceSum(net.Mul(["w", x]), "loss", keepdims=0))
    grads = loom.add_backward(net, "loss", accumulate=True)
    assert grads == {"w": "w_grad_accum"}
    ws = loom.Workspace()
    ws.create_net(net)
    ws.run("acc", {"x": np.array([1, 2, 3], np.float32)})
    ws.run("acc", {"x": np.array([10, 20, 30], np.float32)})
    np.testing.assert_array_equal(ws.fetch_blob("w_grad_accum"), [11, 22, 33])  # d(sum w x)/dw = x, summed


def test_backward_options_and_errors():
    net = loom.NetBuilder("b")
    x = net.add_input("x")
    net.add_initializer("w", np.array([2.0], np.float64))
    t = net.Mul([x, "w"], "t")
    net.add_output(net.Mul([t, t], "loss"))
    grads = loom.add_backward(net.clone(), "loss", wrt=["x", "w"])
    assert set(grads) == {"x", "w"}
    stopped = loom.add_backward(net.clone(), "loss", wrt=["x", "w"], stop_gradients=["t"])
    assert stopped == {}
    with pytest.raises(loom.Error, match="'nope'"):
        loom.add_backward(net.clone(), "nope")


def test_gradient_check_of_ops_and_a_wrong_gradient_is_caught():
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((4, 2))
    loom.testing.gradient_check(loom.make_op("MatMul", ["a", "b"], ["y"]), [a, b])
    loom.testing.gradient_check(loom.make_op("Tanh", ["a"], ["y"]), [a])
    loom.testing.gradient_check(loom.make_op("Softmax", ["a"], ["y"], axis=1), [a.astype(np.float32)])
    # A looser tolerance than the numeric error fails with the element named.
    with pytest.raises(AssertionError, match="input 0 'a' element"):
        loom.testing.gradient_check(loom.make_op("Tanh", ["a"], ["y"]), [a.astype(np.float32)], tolerance=1e-9)
