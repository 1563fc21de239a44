"""loom.NetBuilder and loom.Workspace: nets built op by op, checked as they
are built, run on fed blobs against numpy references."""
import numpy as np
import pytest

import loom


def test_ops_by_name_run_to_numpy_values():
    rng = np.random.default_rng(0)
    w = rng.standard_normal((4, 3)).astype(np.float32)
    net = loom.NetBuilder("dense")
    x = net.add_input("x")
    net.add_initializer("W", w)
    y = net.MatMul([x, "W"])
    z = net.Relu(y, "z")
    s = net.ReduceSum(z, "s", keepdims=0)
    net.add_output(s)
    net.add_output(z)  # kept after the run (the planner may reuse what no output names)
    assert y == "matmul_1" and z == "z"
    ws = loom.Workspace()
    ws.create_net(net)
    xv = rng.standard_normal((5, 4)).astype(np.float32)
    (got,) = ws.run("dense", {"x": xv}, ["s"])
    np.testing.assert_allclose(got, np.maximum(xv @ w, 0).sum(), rtol=1e-5)
    np.testing.assert_allclose(ws.fetch_blob("z"), np.maximum(xv @ w, 0), rtol=1e-6)
    assert ws.blobs() == sorted(ws.blobs()) and {"W", "x", "s"} <= set(ws.blobs())


def test_attributes_are_converted_by_the_schema_and_checked():
    net = loom.NetBuilder()
    x = net.add_input("x")
    # An int for a float attribute (LeakyRelu's alpha) is taken as a float.
    y = net.LeakyRelu(x, alpha=1)
    ws = loom.Workspace()
    ws.create_net(net)
    (got,) = ws.run("net", {"x": np.array([-2.0, 3.0], np.float32)}, [y])
    np.testing.assert_array_equal(got, [-2.0, 3.0])
    with pytest.raises(TypeError, match="attribute 'alpha' takes float; found str"):
        net.LeakyRelu(x, alpha="big")
    with pytest.raises(loom.Error, match="NoSuchOp"):
        net.NoSuchOp(x)
    with pytest.raises(loom.Error, match="beta"):  # LeakyRelu has no attribute beta
        net.LeakyRelu(x, beta=0.5)
    with pytest.raises(loom.Error, match="Gemm"):  # Gemm needs two inputs at least
        net.Gemm([x])
    assert [op.type for op in net.proto.op] == ["LeakyRelu"]  # a refused op is not added


def test_string_blobs_feed_run_and_fetch():
    # numpy arrays of str (or 'U') feed string tensors; a net's string
    # outputs fetch back as object arrays of str.
    net = loom.NetBuilder("strings")
    a, b = net.add_input("a"), net.add_input("b")
    c = net.Concat([a, b], "c", axis=0)
    net.add_output(c)
    ws = loom.Workspace()
    ws.create_net(net)
    (got,) = ws.run("strings", {"a": np.array(["x", "yy"], dtype=object), "b": np.array(["é"])}, ["c"])
    assert got.dtype == object and list(got) == ["x", "yy", "é"]
    ws.feed_blob("s", np.array([["p", "q"]]))
    s = ws.fetch_blob("s")
    assert s.shape == (1, 2) and list(s[0]) == ["p", "q"]
    ws.feed_blob("n", [1, 2])  # a list of numbers stays an array
    assert ws.fetch_blob("n").dtype == np.int64


def test_feed_and_fetch_copy_and_keep_dtypes():
    ws = loom.Workspace()
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    ws.feed_blob("a", a)
    a[0, 0] = 100  # the workspace holds a copy
    got = ws.fetch_blob("a")
    assert got.dtype == np.int32 and got.shape == (2, 3) and got[0, 0] == 0
    got[1, 1] = -1  # and so does the caller
    assert ws.fetch_blob("a")[1, 1] == 4
    for dtype in (np.bool_, np.int8, np.uint8, np.int64, np.float16, np.float64):
        ws.feed_blob("t", np.ones(3, dtype))
        assert ws.fetch_blob("t").dtype == dtype
    ws.feed_blob("big_endian", np.arange(3, dtype=">f4"))
    np.testing.assert_array_equal(ws.fetch_blob("big_endian"), [0, 1, 2])
    with pytest.raises(loom.Error, match="NOT_FOUND.*'missing'"):
        ws.fetch_blob("missing")
    with pytest.raises(TypeError, match="blob 'c' has numpy dtype complex64"):
        ws.feed_blob("c", np.zeros(2, np.complex64))
    assert ws.remove_blob("a") and not ws.has_blob("a")


def test_nets_by_name_options_and_figures():
    net = loom.NetBuilder("square")
    x = net.add_input("x")
    net.add_output(net.Mul([x, x], "y"))
    ws = loom.Workspace()
    assert ws.create_net(net, num_threads=1, enable_profiling=True) == "square"
    with pytest.raises(loom.Error, match="ALREADY_EXISTS"):
        ws.create_net(net)
    ws.create_net(net, overwrite=True, enable_profiling=True, static_shape=True)
    ws.feed_blob("x", np.full(4, 3.0, np.float32))
    ws.run_net("square", num_iter=3)
    np.testing.assert_array_equal(ws.fetch_blob("y"), np.full(4, 9.0))
    profile = ws.net_profile("square")
    assert profile["runs"] == 3 and profile["ops"][0]["op_type"] == "Mul" and "Mul" in profile["table"]
    stats = ws.net_stats("square")
    assert stats["plans_built"] == 1 and stats["cached_plans"] == 1
    ws.feed_blob("x", np.ones(5, np.float32))  # static_shape: another signature is refused
    with pytest.raises(loom.Error, match="FAILED_PRECONDITION"):
        ws.run_net("square")
    with pytest.raises(loom.Error, match="no net 'other'.*square"):
        ws.run_net("other")
    assert ws.nets() == ["square"]


def test_buckets_are_planned_up_front_in_one_arena():
    net = loom.NetBuilder("b")
    x = net.add_input("x")
    net.add_output(net.Sigmoid(net.Tanh(x), "y"))
    ws = loom.Workspace()
    ws.create_net(net)
    ws.feed_blob("x", np.zeros((2, 8), np.float32))
    ws.plan_buckets("b", [{"x": (2, 8)}, {"x": (4, 8)}, {"x": (8, 8)}])
    stats = ws.net_stats("b")
    assert stats["plans_built"] == 3 and stats["arena_allocations"] == 1
    for rows in (8, 2, 4):
        ws.feed_blob("x", np.zeros((rows, 8), np.float32))
        ws.run_net("b")
        np.testing.assert_allclose(ws.fetch_blob("y"), np.full((rows, 8), 0.5))
    assert ws.net_stats("b")["plans_built"] == 3


def test_save_load_and_trace(tmp_path):
    net = loom.NetBuilder("n")
    x = net.add_input("x")
    net.add_output(net.Exp(x, "y"))
    path = tmp_path / "n.pbtxt"
    net.save(path)
    again = loom.NetBuilder.load(path)
    assert again.proto == net.proto
    ws = loom.Workspace()
    ws.create_net(again)
    ws.feed_blob("x", np.zeros(2, np.float32))
    trace = tmp_path / "trace.json"
    with loom.Trace(trace) as t:
        ws.run_net("n", 2)
    assert len(t) == 2
    assert '"Exp' in trace.read_text()


def test_onnx_models_load_as_nets(tmp_path):
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    path = tmp_path / "relu.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)]), str(path))
    net = loom.NetBuilder.load(path)
    assert [op.type for op in net.proto.op] == ["Relu"]
    ws = loom.Workspace()
    ws.create_net(net, name="relu")
    (y,) = ws.run("relu", {"x": np.array([-1, 2], np.float32)}, ["y"])
    np.testing.assert_array_equal(y, [0, 2])
