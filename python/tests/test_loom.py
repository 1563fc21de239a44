"""The `loom` Python module against known values: ONNX's node test data,
numpy references of small ONNX models built here, and the C++ path's
properties (bitwise-equal concurrent runs, errors naming what is wrong)."""
import glob
import os
import threading

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import loom

ONNX_NODE_DATA = "/usr/share/libonnx-testdata/data/node"


def node_case(name):
    """(model path, {input name: array}, [expected arrays]) of an ONNX node test."""
    folder = os.path.join(ONNX_NODE_DATA, name)
    model = onnx.load(os.path.join(folder, "model.onnx"))
    data = os.path.join(folder, "test_data_set_0")

    def read(kind):
        files = sorted(glob.glob(os.path.join(data, kind + "_*.pb")), key=lambda f: int(f.rsplit("_", 1)[1][:-3]))
        out = []
        for f in files:
            t = TensorProto()
            with open(f, "rb") as fh:
                t.ParseFromString(fh.read())
            out.append(numpy_helper.to_array(t))
        return out

    initializers = {i.name for i in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in initializers]
    return os.path.join(folder, "model.onnx"), dict(zip(names, read("input"))), read("output")


@pytest.mark.parametrize("name", [
    "test_conv_with_strides_padding",
    "test_gemm_default_matrix_bias",
    "test_lstm_with_peepholes",
    "test_gru_seq_length",
    "test_softmax_axis_1",
    "test_maxpool_2d_pads",
    "test_argmax_default_axis_example",
    "test_cast_FLOAT_to_DOUBLE",
])
def test_onnx_node_data(name):
    if not os.path.isdir(os.path.join(ONNX_NODE_DATA, name)):
        pytest.skip("no ONNX test data (libonnx-testdata)")
    path, feed, expected = node_case(name)
    s = loom.Session(path, threads=1)
    got = s.run(None, feed)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5)


def dense_model(opset=14):
    """y = Relu(x @ W + b) with x [batch, 4] (symbolic batch), W [4, 3]."""
    rng = np.random.default_rng(3)
    w = rng.standard_normal((4, 3)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "W"], ["xw"]),
         helper.make_node("Add", ["xw", "b"], ["z"]),
         helper.make_node("Relu", ["z"], ["y"])],
        "dense",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 3])],
        [numpy_helper.from_array(w, "W"), numpy_helper.from_array(b, "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    return model.SerializeToString(), w, b


def test_bytes_infos_and_numpy_reference():
    model, w, b = dense_model()
    s = loom.Session(model)
    assert [i.name for i in s.inputs] == ["x"]
    assert s.inputs[0].dtype == np.float32
    assert s.inputs[0].shape == ["batch", 4]
    assert s.outputs[0].shape == ["batch", 3]
    for batch in (1, 5):
        x = np.random.default_rng(batch).standard_normal((batch, 4)).astype(np.float32)
        (y,) = s.run(["y"], {"x": x})
        np.testing.assert_allclose(y, np.maximum(x @ w + b, 0), rtol=1e-5, atol=1e-6)


def test_inputs_that_cannot_be_read_in_place_are_copied_right():
    model, w, b = dense_model()
    s = loom.Session(model)
    base = np.random.default_rng(7).standard_normal((3, 8)).astype(np.float32)
    strided = base[:, ::2]  # not contiguous
    swapped = np.ascontiguousarray(base[:, :4]).astype(">f4")  # big-endian
    for x in (strided, swapped):
        (y,) = s.run(None, {"x": x})
        np.testing.assert_allclose(y, np.maximum(x.astype(np.float32) @ w + b, 0), rtol=1e-5, atol=1e-6)
    with pytest.raises(loom.Error, match="float64"):  # a list becomes float64, which the model does not take
        s.run(None, {"x": base[:, :4].tolist()})
    before = base.copy()
    s.run(None, {"x": np.ascontiguousarray(base[:, :4])})
    np.testing.assert_array_equal(base, before)  # inputs are only read


def test_outputs_are_arrays_of_their_own():
    s = loom.Session(os.environ["LOOM_DEFAULT_MODEL"])
    x = np.random.default_rng(1).random((1, 3, 32, 32), dtype=np.float32)
    (first,) = s.run(None, {"image": x})
    kept = first.copy()
    assert first.flags.writeable and first.flags.c_contiguous
    (second,) = s.run(None, {"image": np.zeros_like(x)})
    np.testing.assert_array_equal(first, kept)  # the next run did not write into it
    assert abs(first.sum() - 1.0) < 1e-5  # softmax probabilities
    assert not np.array_equal(first, second)


def test_threads_share_a_session_bitwise():
    s = loom.Session(os.environ["LOOM_DEFAULT_MODEL"])
    x = np.random.default_rng(2).random((1, 3, 32, 32), dtype=np.float32)
    (expected,) = s.run(None, {"image": x})
    mismatches = []

    def work():
        for _ in range(50):
            (y,) = s.run(None, {"image": x})
            if not np.array_equal(y, expected):
                mismatches.append(y)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not mismatches
    assert 1 <= s.runners <= 5


def test_optimization_level_and_options():
    model, w, b = dense_model()
    x = np.ones((2, 4), np.float32)
    plain = loom.Session(model, optimization_level=0, plan_memory=False, device="CPU", threads=1)
    (y,) = plain.run(None, {"x": x})
    np.testing.assert_allclose(y, np.maximum(x @ w + b, 0), rtol=1e-5, atol=1e-6)


def _bf16(a):
    """float32 values rounded to bfloat16 (nearest even) and back."""
    bits = a.astype(np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def test_fpmath_mode_bf16_rounds_matmul_inputs_where_the_cpu_has_bf16():
    rng = np.random.default_rng(5)
    w = rng.standard_normal((64, 8)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "W"], ["y"])], "mm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 8])], [numpy_helper.from_array(w, "W")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)]).SerializeToString()
    x = rng.standard_normal((3, 64)).astype(np.float32)
    (strict,) = loom.Session(model).run(None, {"x": x})
    (bf16,) = loom.Session(model, fpmath_mode="bf16").run(None, {"x": x})
    np.testing.assert_allclose(strict, x.astype(np.float64) @ w, rtol=1e-5, atol=1e-5)
    from loom.quantize import cpu_has_bf16
    if cpu_has_bf16():
        np.testing.assert_allclose(bf16, _bf16(x).astype(np.float64) @ _bf16(w), rtol=1e-5, atol=1e-5)
        assert np.abs(bf16 - strict).max() > 1e-3  # rounded: 8 significant bits
    else:
        np.testing.assert_array_equal(bf16, strict)  # no bf16 arithmetic: float32
    with pytest.raises(loom.Error, match='fpmath_mode must be "strict" or "bf16"; found "fp8"'):
        loom.Session(model, fpmath_mode="fp8")
    options = loom._loom.NetOptions(fpmath_mode="bf16")  # what Workspace.create_net(fpmath_mode=...) makes
    assert options.fpmath_mode == "bf16"


def test_a_model_saved_with_external_data_runs_as_the_inline_one(tmp_path):
    model, w, b = dense_model()
    m = onnx.load_from_string(model)
    path = tmp_path / "dense.onnx"
    onnx.save_model(m, str(path), save_as_external_data=True, all_tensors_to_one_file=True, location="dense.data",
                    size_threshold=0)
    assert (tmp_path / "dense.data").stat().st_size == (w.size + b.size) * 4
    x = np.random.default_rng(8).standard_normal((3, 4)).astype(np.float32)
    (expected,) = loom.Session(model).run(None, {"x": x})
    (y,) = loom.Session(str(path)).run(None, {"x": x})
    np.testing.assert_array_equal(y, expected)
    # As bytes the model has no folder: refused, unless the caller names one.
    with pytest.raises(loom.Error, match="a model given as bytes has no folder"):
        loom.Session(path.read_bytes())
    (y,) = loom.Session(path.read_bytes(), external_data_dir=tmp_path).run(None, {"x": x})
    np.testing.assert_array_equal(y, expected)
    # Moved away from its data: the file is named in the error.
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    (moved / "dense.onnx").write_bytes(path.read_bytes())
    with pytest.raises(loom.Error, match="external data file .*dense.data"):
        loom.Session(str(moved / "dense.onnx"))


def test_errors_name_what_is_wrong():
    model, _, _ = dense_model()
    s = loom.Session(model)
    with pytest.raises(loom.Error, match="input 'x' is not fed"):
        s.run(None, {})
    with pytest.raises(loom.Error, match="no input 'z'; the inputs are x"):
        s.run(None, {"z": np.zeros((1, 4), np.float32)})
    with pytest.raises(loom.Error, match="no output 'q'"):
        s.run(["q"], {"x": np.zeros((1, 4), np.float32)})
    with pytest.raises(loom.Error, match="MatMul"):  # the run's own error names the op
        s.run(None, {"x": np.zeros((1, 5), np.float32)})
    with pytest.raises(TypeError, match="input 'x' has numpy dtype"):
        s.run(None, {"x": np.zeros((1, 4), np.complex64)})
    with pytest.raises(loom.Error, match="NOT_FOUND"):
        loom.Session("/no/such/model.onnx")
    with pytest.raises(loom.Error, match="'TPU'"):
        loom.Session(model, device="TPU")
    with pytest.raises(loom.Error, match="not an ONNX model"):
        loom.Session(b"junk")


def test_a_session_lists_the_plugins_it_loaded():
    # loom.ops() / loom.plugins() show the default plugins; a Session's
    # ops() / plugins() show what that session loaded, its plugins= too.
    model = os.environ["LOOM_DEFAULT_MODEL"]
    extra = os.environ["LOOM_TEST_PLUGIN"]  # tests/plugins' fake_device: the FailIf op, the FAKE device
    plain, with_extra = loom.Session(model), loom.Session(model, plugins=[extra])
    assert "fake_device" not in {p["name"] for p in plain.plugins()}
    assert "fake_device" in {p["name"] for p in with_extra.plugins()}
    assert "FailIf" not in {o["op_type"] for o in plain.ops()}
    fail_if = {o["op_type"]: o for o in with_extra.ops()}["FailIf"]
    assert fail_if["plugin"] == "fake_device"
    assert {k["device"] for k in fail_if["kernels"]} == {"CPU", "FAKE"}
    assert "FailIf" not in {o["op_type"] for o in loom.ops()}


def test_a_plugin_that_does_not_load_is_warned_not_dropped_silently(tmp_path, monkeypatch):
    # A broken library in LOOM_PLUGIN_PATH is skipped (the session still
    # loads), with a RuntimeWarning naming it, as Session.warnings lists it.
    (tmp_path / "libbroken.so").write_bytes(b"not an ELF file")
    monkeypatch.setenv("LOOM_PLUGIN_PATH", str(tmp_path))
    with pytest.warns(RuntimeWarning, match="plugin skipped: .*libbroken.so"):
        session = loom.Session(os.environ["LOOM_DEFAULT_MODEL"])
    assert any("libbroken.so" in w for w in session.warnings)
    with pytest.warns(RuntimeWarning, match="libbroken.so"):
        loom.Registry([])
    monkeypatch.delenv("LOOM_PLUGIN_PATH")
    assert loom.Session(os.environ["LOOM_DEFAULT_MODEL"]).warnings == []


def test_registry_listing():
    ops = {(o["domain"], o["op_type"]): o for o in loom.ops()}
    conv = ops[("", "Conv")]
    assert any(k["device"] == "CPU" for k in conv["kernels"])
    assert conv["differentiable"]
    assert ops[("loom", "FusedConv")]["plugin"] == "loom.std"  # Loom's own ops: domain "loom"
    swish = ops[("com.example", "Swish")]  # the example custom-op plugin
    assert swish["plugin"] == "example"
    names = {p["name"]: p for p in loom.plugins()}
    assert {"cpu", "rnn", "example"} <= set(names)
    assert names["cpu"]["abi_version"] >= 1 and names["cpu"]["kernels"] > 50


def test_sequence_optional_and_string_outputs():
    # x [2, 3] split into rows: a sequence output (a list of arrays), an
    # optional of it (the list), an empty optional (None), and the rows'
    # sums as strings (a numpy object array).
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    nodes = [
        helper.make_node("SplitToSequence", ["x"], ["rows"], axis=0, keepdims=0),
        helper.make_node("Optional", ["rows"], ["some"]),
        helper.make_node("Optional", [], ["none"], type=helper.make_tensor_type_proto(TensorProto.FLOAT, None)),
        helper.make_node("ReduceSum", ["x"], ["sums"], axes=[1], keepdims=0),
        helper.make_node("Cast", ["sums"], ["text"], to=TensorProto.STRING),
    ]
    seq = helper.make_sequence_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, None))
    outputs = [
        helper.make_value_info("rows", seq),
        helper.make_value_info("some", helper.make_optional_type_proto(seq)),
        helper.make_value_info("none", helper.make_optional_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, None))),
        helper.make_tensor_value_info("text", TensorProto.STRING, [2]),
    ]
    model = helper.make_model(helper.make_graph(nodes, "values", [x], outputs), opset_imports=[helper.make_opsetid("", 13)])
    s = loom.Session(model.SerializeToString())
    rows, some, none, text = s.run(None, {"x": np.array([[1, 2, 3], [4, 5, 6.5]], np.float32)})
    assert isinstance(rows, list) and len(rows) == 2
    np.testing.assert_array_equal(rows[1], [4, 5, 6.5])
    assert isinstance(some, list) and len(some) == 2
    assert none is None
    assert text.dtype == object and text.tolist() == ["6.0", "15.5"]


def value_model(nodes, inputs, outputs, opset=15):
    """ONNX bytes of a graph over `inputs`/`outputs` (ValueInfoProtos)."""
    graph = helper.make_graph(nodes, "feeds", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]).SerializeToString()


def test_string_feeds():
    # Identity and StringNormalizer on string inputs: object arrays of str
    # (and bytes, read as UTF-8), numpy 'U' and 'S' arrays, any shape.
    model = value_model(
        [helper.make_node("Identity", ["t"], ["same"]),
         helper.make_node("StringNormalizer", ["w"], ["upper"], case_change_action="UPPER")],
        [helper.make_tensor_value_info("t", TensorProto.STRING, [2, 2]),
         helper.make_tensor_value_info("w", TensorProto.STRING, [3])],
        [helper.make_tensor_value_info("same", TensorProto.STRING, [2, 2]),
         helper.make_tensor_value_info("upper", TensorProto.STRING, [3])])
    s = loom.Session(model)
    assert s.inputs[0].dtype == "string"
    t = np.array([["a", "bé"], [b"c\xc3\xa9", ""]], dtype=object)
    same, upper = s.run(None, {"t": t, "w": np.array(["ab", "Cd", "x y"], dtype=object)})
    assert same.dtype == object and same.shape == (2, 2)
    assert same.tolist() == [["a", "bé"], ["cé", ""]]
    assert upper.tolist() == ["AB", "CD", "X Y"]
    same, upper = s.run(None, {"t": np.array([["p", "qq"], ["rrr", "s"]]), "w": np.array([b"a", b"b", b"c"])})
    assert same.tolist() == [["p", "qq"], ["rrr", "s"]] and upper.tolist() == ["A", "B", "C"]
    # A list feeds a tensor input as numpy.asarray makes it.
    (upper,) = s.run(["upper"], {"t": t, "w": ["k", "l", "m"]})
    assert upper.tolist() == ["K", "L", "M"]


def test_sequence_feeds(tmp_path):
    seq = helper.make_sequence_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, None))
    model = value_model(
        [helper.make_node("SequenceLength", ["xs"], ["n"]),
         helper.make_node("ConcatFromSequence", ["xs"], ["rows"], axis=0),
         helper.make_node("SequenceAt", ["xs", "at"], ["second"])],
        [helper.make_value_info("xs", seq), helper.make_tensor_value_info("at", TensorProto.INT64, [])],
        [helper.make_tensor_value_info("n", TensorProto.INT64, []),
         helper.make_tensor_value_info("rows", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("second", TensorProto.FLOAT, None)])
    s = loom.Session(model)
    assert s.inputs[0].dtype == "seq(float32)"
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([[10, 11, 12]], np.float32)
    n, rows, second = s.run(None, {"xs": [a, b], "at": np.int64(1)})
    assert n.dtype == np.int64 and n == 2
    np.testing.assert_array_equal(rows, [[0, 1, 2], [3, 4, 5], [10, 11, 12]])
    np.testing.assert_array_equal(second, [[10, 11, 12]])
    # The same from a file: the declared types are read from it too.
    (tmp_path / "seq.onnx").write_bytes(model)
    s = loom.Session(tmp_path / "seq.onnx")
    assert s.inputs[0].dtype == "seq(float32)"
    n, rows, second = s.run(None, {"xs": [b, a, b], "at": np.int64(-2)})
    assert n == 3 and rows.shape == (4, 3)
    np.testing.assert_array_equal(second, a)
    # An empty list: the declared element type makes the empty sequence.
    (n,) = loom.Session(value_model([helper.make_node("SequenceLength", ["xs"], ["n"])], [helper.make_value_info("xs", seq)],
                                    [helper.make_tensor_value_info("n", TensorProto.INT64, [])])).run(None, {"xs": []})
    assert n == 0


def test_sequence_feeds_of_an_undeclared_type(tmp_path):
    # A NetDef declares no input types: a list is a sequence of its items'
    # dtype; an empty list is refused.
    net = loom.NetBuilder("n")
    net.add_output(net.op("SequenceLength", [net.add_input("xs")], ["n"]))
    path = tmp_path / "n.pbtxt"
    net.save(path)
    s = loom.Session(path)
    assert s.inputs[0].dtype is None
    (n,) = s.run(None, {"xs": [np.zeros(2, np.int32), np.ones(3, np.int32), np.ones((1, 1), np.int32)]})
    assert n == 3
    with pytest.raises(TypeError, match="input 'xs' is an empty list, and the model does not declare its type"):
        s.run(None, {"xs": []})
    with pytest.raises(TypeError, match=r"input 'xs' item 2 has dtype int64 and item 0 int32; a sequence's items share one dtype"):
        s.run(None, {"xs": [np.zeros(2, np.int32), np.ones(3, np.int32), np.ones(1, np.int64)]})
    with pytest.raises(TypeError, match="input 'xs' is None, which only an input of an optional type takes"):
        s.run(None, {"xs": None})


def test_optional_feeds():
    tensor = helper.make_tensor_type_proto(TensorProto.FLOAT, None)
    seq = helper.make_sequence_type_proto(tensor)
    s = loom.Session(value_model(
        [helper.make_node("OptionalHasElement", ["o"], ["has"]),
         helper.make_node("OptionalHasElement", ["os"], ["has_seq"])],
        [helper.make_value_info("o", helper.make_optional_type_proto(tensor)),
         helper.make_value_info("os", helper.make_optional_type_proto(seq))],
        [helper.make_tensor_value_info("has", TensorProto.BOOL, []),
         helper.make_tensor_value_info("has_seq", TensorProto.BOOL, [])]))
    assert [i.dtype for i in s.inputs] == ["optional(float32)", "optional(seq(float32))"]
    has, has_seq = s.run(None, {"o": None, "os": None})
    assert has.dtype == np.bool_ and not has and not has_seq
    has, has_seq = s.run(None, {"o": np.ones(2, np.float32), "os": []})
    assert has and has_seq
    has, has_seq = s.run(None, {"o": np.float32(1), "os": [np.ones(2, np.float32)]})
    assert has and has_seq
    # The value goes through: OptionalGetElement returns it.
    s = loom.Session(value_model(
        [helper.make_node("OptionalGetElement", ["o"], ["y"])],
        [helper.make_value_info("o", helper.make_optional_type_proto(tensor))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]))
    (y,) = s.run(None, {"o": np.array([1.5, -2], np.float32)})
    np.testing.assert_array_equal(y, [1.5, -2])
    with pytest.raises(loom.Error, match="holds no value"):
        s.run(None, {"o": None})


def test_feed_errors_name_the_input_and_item():
    seq = helper.make_sequence_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, None))
    s = loom.Session(value_model(
        [helper.make_node("SequenceLength", ["xs"], ["n"]), helper.make_node("Identity", ["t"], ["u"]),
         helper.make_node("Identity", ["f"], ["g"])],
        [helper.make_value_info("xs", seq), helper.make_tensor_value_info("t", TensorProto.STRING, [2, 2]),
         helper.make_tensor_value_info("f", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("n", TensorProto.INT64, []),
         helper.make_tensor_value_info("u", TensorProto.STRING, [2, 2]),
         helper.make_tensor_value_info("g", TensorProto.FLOAT, [2])]))
    t = np.array([["a", "b"], ["c", "d"]], dtype=object)
    f = np.zeros(2, np.float32)
    ok = {"xs": [f], "t": t, "f": f}
    n, u, g = s.run(None, ok)
    assert n == 1 and u.tolist() == t.tolist()
    with pytest.raises(TypeError, match=r"input 'xs' item 1 has dtype float64 and item 0 float32; a sequence's items share one dtype"):
        s.run(None, dict(ok, xs=[f, np.zeros(2)]))
    with pytest.raises(TypeError, match=r"input 'xs' is declared seq\(float32\); item 0 has dtype int64"):
        s.run(None, dict(ok, xs=[[1, 2]]))
    with pytest.raises(TypeError, match=r"input 'xs' is declared seq\(float32\); feed it a list, not ndarray"):
        s.run(None, dict(ok, xs=f))
    bad = t.copy()
    bad[1, 0] = 3
    with pytest.raises(TypeError, match=r"input 't' element \[1, 0\] is int; an array of dtype object feeds a string tensor"):
        s.run(None, dict(ok, t=bad))
    with pytest.raises(TypeError, match=r"input 'xs' item 0 element \[1\] is NoneType"):
        s.run(None, dict(ok, xs=[np.array(["a", None], dtype=object)]))
    bad[1, 0] = b"\xff"
    with pytest.raises(ValueError, match=r"input 't' element \[1, 0\] is bytes that are not UTF-8"):
        s.run(None, dict(ok, t=bad))
    with pytest.raises(TypeError, match=r"input 'f' is None, which only an input of an optional type takes \(its type is float32\)"):
        s.run(None, dict(ok, f=None))
