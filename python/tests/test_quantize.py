"""loom_quantize (loom.quantize): a small CNN quantized into the QDQ form,
checked by ONNX's checker, run by Loom against its float32 self, with the
parameters it chose read back."""
import os

import numpy as np
import pytest

import loom
from loom import quantize

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402


def small_cnn(opset):
    rng = np.random.default_rng(0)
    inits = [numpy_helper.from_array((0.3 * rng.standard_normal(s)).astype(np.float32), n) for n, s in
             (("W1", (8, 3, 3, 3)), ("B1", (8,)), ("W2", (4, 8, 3, 3)), ("B2", (4,)), ("Wf", (5, 4 * 8 * 8)),
              ("Bf", (5,)))]
    nodes = [helper.make_node("Conv", ["x", "W1", "B1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("Conv", ["r1", "W2", "B2"], ["c2"], pads=[1, 1, 1, 1]),
             helper.make_node("Flatten", ["c2"], ["f"]),
             helper.make_node("Gemm", ["f", "Wf", "Bf"], ["y"], transB=1)]
    graph = helper.make_graph(nodes, "cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def write(tmp_path, opset, runs=6):
    model = tmp_path / "cnn.onnx"
    onnx.save(small_cnn(opset), str(model))
    samples = tmp_path / "samples"
    samples.mkdir()
    rng = np.random.default_rng(1)
    for i in range(runs):
        np.savez(samples / ("s%d.npz" % i), x=rng.random((1, 3, 8, 8), dtype=np.float32))
    return model, samples


@pytest.mark.parametrize("method", ["minmax", "percentile"])
def test_a_cnn_quantizes_to_qdq_close_to_float(tmp_path, capsys, method):
    model, samples = write(tmp_path, 13)
    out = tmp_path / "cnn_int8.onnx"
    assert quantize.main(["--model", str(model), "--samples", str(samples), "--out", str(out), "--method", method,
                          "--ops", "Conv,Gemm"]) == 0
    printed = capsys.readouterr().out
    assert "2 Conv, 1 Gemm quantized" in printed and "1 activations absorbed" in printed and "output y" in printed
    q = onnx.load(str(out))
    onnx.checker.check_model(q)
    types = [n.op_type for n in q.graph.node]
    # x, r1 (the first Conv's output: its Relu absorbed), c2 and f, once
    # each; y, a net output, stays float.
    assert "Relu" not in types
    assert types.count("QuantizeLinear") == 4
    assert types.count("DequantizeLinear") == 4 + 3 + 3  # activations, weights, biases
    assert next(n for n in q.graph.node if n.op_type == "Conv").output[0] == "r1"
    inits = {t.name: numpy_helper.to_array(t) for t in q.graph.initializer}
    assert inits["W1_quantized"].dtype == np.int8 and inits["W1_scale"].shape == (8,)  # per output channel
    assert inits["Wf_scale"].shape == (5,)  # Gemm transB: per row of B, i.e. per output
    assert inits["B1_quantized"].dtype == np.int32
    np.testing.assert_allclose(inits["B1_scale"], inits["x_scale"] * inits["W1_scale"], rtol=1e-6)
    assert "W1" not in inits  # the float weights are gone
    # Symmetric weights: |q| <= 127 and the largest of each channel is 127.
    np.testing.assert_array_equal(np.abs(inits["W1_quantized"]).reshape(8, -1).max(axis=1), 127)
    # Loom runs both; the int8 model is within a few quantization steps
    # (percentile clips each sample's outliers, by design: a looser bound).
    f, i8 = loom.Session(str(model)), loom.Session(str(out))
    x = np.load(samples / "s0.npz")["x"]
    (yf,), (yq,) = f.run(None, {"x": x}), i8.run(None, {"x": x})
    assert np.abs(yq - yf).max() < (0.05 if method == "minmax" else 0.15) * np.abs(yf).max()
    assert not np.array_equal(yq, yf)  # it did quantize


def test_activation_ranges_are_the_samples_min_and_max(tmp_path):
    model, samples = write(tmp_path, 13, runs=3)
    runs = quantize.load_samples(str(samples), ["x"])
    ranges = quantize.calibrate(str(model), runs, ["x", "r1"])
    xs = np.stack([r["x"] for r in runs])
    assert ranges["x"] == (float(xs.min()), float(xs.max()))
    assert ranges["r1"][0] == 0.0 and ranges["r1"][1] > 0  # after Relu
    scale, zp = quantize.activation_params(-1.0, 3.0)
    assert abs(float(scale) - 4.0 / 255) < 1e-9 and zp == 64  # round(1 / (4 / 255)) = round(63.75)


def residual_block(opset=13):
    """x -> Conv -> Relu -> MaxPool -> Conv -> Add(with the pooled) -> Relu
    -> Conv -> y: what loom_quantize turns into QLinearConv, int8 MaxPool
    and QLinearAdd for Loom's fuse_qdq pass."""
    rng = np.random.default_rng(2)
    inits = [numpy_helper.from_array((0.3 * rng.standard_normal(s)).astype(np.float32), n) for n, s in
             (("W1", (8, 3, 3, 3)), ("B1", (8,)), ("W2", (8, 8, 3, 3)), ("B2", (8,)), ("W3", (4, 8, 1, 1)))]
    nodes = [helper.make_node("Conv", ["x", "W1", "B1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("MaxPool", ["r1"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Conv", ["p", "W2", "B2"], ["c2"], pads=[1, 1, 1, 1]),
             helper.make_node("Add", ["c2", "p"], ["s"]),
             helper.make_node("Relu", ["s"], ["r2"]),
             helper.make_node("Conv", ["r2", "W3"], ["y"])]
    graph = helper.make_graph(nodes, "res", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 4, 4])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def test_add_and_maxpool_are_quantized_with_their_activations_absorbed(tmp_path, capsys):
    model = tmp_path / "res.onnx"
    onnx.save(residual_block(), str(model))
    samples = tmp_path / "samples"
    samples.mkdir()
    rng = np.random.default_rng(3)
    for i in range(4):
        np.save(samples / ("s%d.npy" % i), rng.random((1, 3, 8, 8), dtype=np.float32))
    out = tmp_path / "res_int8.onnx"
    assert quantize.main(["--model", str(model), "--samples", str(samples), "--out", str(out)]) == 0
    assert "1 Add, 3 Conv, 1 MaxPool quantized (minmax, 4 samples; 0 ops folded into Convs, 2 activations absorbed)" in capsys.readouterr().out
    q = onnx.load(str(out))
    types = [n.op_type for n in q.graph.node]
    assert "Relu" not in types  # both absorbed: the first Conv writes r1, the Add r2
    inits = {t.name: numpy_helper.to_array(t) for t in q.graph.initializer}
    # MaxPool's output takes its input's parameters; Relu outputs start at 0.
    assert inits["p_scale"] == inits["r1_scale"] and inits["p_zero_point"] == inits["r1_zero_point"] == 0
    assert inits["r2_zero_point"] == 0
    assert types.count("QuantizeLinear") == 5  # x, r1, p, c2, r2
    x = np.load(samples / "s0.npy")
    (yf,), (yq,) = loom.Session(str(model)).run(None, {"x": x}), loom.Session(str(out)).run(None, {"x": x})
    assert np.abs(yq - yf).max() < 0.05 * np.abs(yf).max()


def test_preprocess_folds_constants_batchnorm_and_affines_into_the_conv():
    """Weights as Constant nodes, then BatchNormalization, Mul and Add by
    per-channel constants after the Conv: one Conv of initializers, with the
    float model's output."""
    rng = np.random.default_rng(4)
    w = (0.3 * rng.standard_normal((4, 3, 3, 3))).astype(np.float32)
    bn = [rng.random(4).astype(np.float32) + 0.5 for _ in range(4)]
    nodes = [helper.make_node("Constant", [], ["W"], value=numpy_helper.from_array(w)),
             helper.make_node("Conv", ["x", "W"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("BatchNormalization", ["c", "g", "b", "m", "v"], ["n"]),
             helper.make_node("Mul", ["n", "s"], ["ms"]),
             helper.make_node("Add", ["ms", "t"], ["y"])]
    inits = [numpy_helper.from_array(a, n) for a, n in zip(bn, "gbmv")]
    inits += [numpy_helper.from_array(rng.random((4, 1, 1)).astype(np.float32), "s"),
              numpy_helper.from_array(np.float32(0.7), "t")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 6, 6])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 6, 6])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    x = rng.random((1, 3, 6, 6)).astype(np.float32)
    (want,) = loom.Session(model.SerializeToString()).run(None, {"x": x})
    assert quantize.preprocess(model) == 3
    assert [n.op_type for n in model.graph.node] == ["Conv"] and model.graph.node[0].output[0] == "y"
    (got,) = loom.Session(model.SerializeToString()).run(None, {"x": x})
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_a_conv_transpose_folds_its_bias_and_batchnorm_and_quantizes_per_output_channel(tmp_path):
    """PP-OCR's detection head: ConvTranspose (W [C, M, 2, 2], kernel 2, stride
    2) -> Add of a per-channel bias -> BatchNormalization -> Relu. The Add
    and the BatchNormalization fold into W's axis 1 (the output channels)
    and B; W quantizes per output channel along axis 1; the QDQ model runs
    in Loom (QLinearConvTranspose) close to the float one."""
    rng = np.random.default_rng(6)
    C, M = 3, 5
    bn = [rng.random(M).astype(np.float32) + 0.5 for _ in range(4)]
    nodes = [helper.make_node("ConvTranspose", ["x", "W"], ["t"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Add", ["t", "bias"], ["tb"]),
             helper.make_node("BatchNormalization", ["tb", "g", "b", "m", "v"], ["n"]),
             helper.make_node("Relu", ["n"], ["y"])]
    inits = [numpy_helper.from_array((0.3 * rng.standard_normal((C, M, 2, 2))).astype(np.float32), "W"),
             numpy_helper.from_array(rng.standard_normal((M, 1, 1)).astype(np.float32), "bias")]
    inits += [numpy_helper.from_array(a, n) for a, n in zip(bn, "gbmv")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, C, 6, 6])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, M, 12, 12])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    x = rng.random((1, C, 6, 6)).astype(np.float32)
    (want,) = loom.Session(model.SerializeToString()).run(None, {"x": x})
    folded = onnx.ModelProto.FromString(model.SerializeToString())
    assert quantize.preprocess(folded) == 2
    assert [n.op_type for n in folded.graph.node] == ["ConvTranspose", "Relu"]
    (got,) = loom.Session(folded.SerializeToString()).run(None, {"x": x})
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    path, samples, out = tmp_path / "t.onnx", tmp_path / "samples", tmp_path / "t_int8.onnx"
    onnx.save(model, str(path))
    samples.mkdir()
    for i in range(4):
        np.save(samples / ("s%d.npy" % i), rng.random((1, C, 6, 6)).astype(np.float32))
    assert quantize.main(["--model", str(path), "--samples", str(samples), "--out", str(out)]) == 0
    q = onnx.load(str(out))
    inits = {t.name: numpy_helper.to_array(t) for t in q.graph.initializer}
    w_name = next(n.input[1] for n in q.graph.node if n.op_type == "ConvTranspose").replace("_dequantized", "")
    assert inits[w_name + "_quantized"].dtype == np.int8 and inits[w_name + "_scale"].shape == (M,)
    w_dq = next(n for n in q.graph.node if n.op_type == "DequantizeLinear" and n.output[0] == w_name + "_dequantized")
    assert next(a.i for a in w_dq.attribute if a.name == "axis") == 1
    (yq,) = loom.Session(str(out)).run(None, {"x": x})
    assert np.abs(yq - want).max() < 0.05 * np.abs(want).max()
    assert not np.array_equal(yq, want)


def test_a_vector_that_broadcasts_over_width_is_not_folded():
    """Add of a 1-D [M] constant after a Conv of M channels broadcasts along
    the last axis (width), not the channels: it stays an Add."""
    rng = np.random.default_rng(5)
    nodes = [helper.make_node("Conv", ["x", "W"], ["c"]), helper.make_node("Add", ["c", "v"], ["y"])]
    inits = [numpy_helper.from_array(rng.standard_normal((4, 3, 1, 1)).astype(np.float32), "W"),
             numpy_helper.from_array(rng.standard_normal(4).astype(np.float32), "v")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 4, 4])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    assert quantize.preprocess(model) == 0
    assert [n.op_type for n in model.graph.node] == ["Conv", "Add"]


def test_an_activation_after_a_float_add_stays():
    """HardSwish as x * Clip(x + 3, 0, 6) / 6: the Add of a constant is not
    quantized, so nothing would clamp for the Clip: it stays. A Relu after
    an Add of two activations goes, unless its output is a net output
    (which stays float)."""
    nodes = [helper.make_node("Add", ["x", "three"], ["a"]), helper.make_node("Clip", ["a", "lo", "hi"], ["c"]),
             helper.make_node("Add", ["c", "x"], ["s"]), helper.make_node("Relu", ["s"], ["y"])]
    inits = [numpy_helper.from_array(np.float32(v), n) for v, n in ((3, "three"), (0, "lo"), (6, "hi"))]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    assert quantize.remove_activations(model, quantize.QUANTIZABLE) == 0
    nodes.append(helper.make_node("Neg", ["y"], ["z"]))
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                              [helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 4])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    assert quantize.remove_activations(model, quantize.QUANTIZABLE) == 1
    assert [n.op_type for n in model.graph.node] == ["Add", "Clip", "Add", "Neg"]
    assert model.graph.node[2].output[0] == "y"


def test_a_large_bias_on_tiny_weights_widens_the_weight_scale(tmp_path):
    """A channel whose weights are all tiny and whose bias is large (a
    folded BatchNormalization's shift) would overflow the int32 bias at
    x_scale * max|w| / 127: its weight scale grows so that the bias fits,
    and the int8 model stays close to float."""
    rng = np.random.default_rng(6)
    w = (0.3 * rng.standard_normal((4, 3, 3, 3))).astype(np.float32)
    w[2] = 1e-12
    b = np.array([0.1, -0.2, 50.0, 0.3], np.float32)
    nodes = [helper.make_node("Conv", ["x", "W", "B"], ["y"], pads=[1, 1, 1, 1])]
    inits = [numpy_helper.from_array(w, "W"), numpy_helper.from_array(b, "B")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 6, 6])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 6, 6])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    samples = [{"x": rng.random((1, 3, 6, 6), dtype=np.float32)}]
    path = tmp_path / "m.onnx"
    onnx.save(model, str(path))
    ranges = quantize.calibrate(str(path), samples, ["x"])
    q, _ = quantize.quantize_model(model, ranges)
    inits = {t.name: numpy_helper.to_array(t) for t in q.graph.initializer}
    assert np.all(np.abs(inits["B_quantized"].astype(np.int64)) < 2 ** 31 - 1)
    (yf,), (yq,) = (loom.Session(m.SerializeToString()).run(None, samples[0]) for m in (model, q))
    assert np.abs(yq[0, 2] - yf[0, 2]).max() < 0.01 * 50  # the channel that is all bias


def test_old_opsets_get_per_tensor_weights(tmp_path):
    model, samples = write(tmp_path, 11)
    out = tmp_path / "q.onnx"
    quantize.main(["--model", str(model), "--samples", str(samples), "--out", str(out), "--ops", "Conv"])
    q = onnx.load(str(out))
    inits = {t.name: numpy_helper.to_array(t) for t in q.graph.initializer}
    assert inits["W1_scale"].shape == () and "Wf" in inits  # Gemm left float
    (y,) = loom.Session(str(out)).run(None, {"x": np.load(samples / "s0.npz")["x"]})
    assert y.shape == (1, 5)


def test_bad_samples_are_named(tmp_path):
    model, _ = write(tmp_path, 13, runs=0)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match="no .npz or .npy samples"):
        quantize.load_samples(str(empty), ["x"])
    np.savez(empty / "a.npz", z=np.zeros(1))
    with pytest.raises(ValueError, match=r"lacks inputs \['x'\]"):
        quantize.load_samples(str(empty), ["x"])


def dense_layers(opset=13):
    """x [4, 32] -> MatMul (W1 [32, 24], a Constant node) -> Relu -> Gemm
    (W2 [10, 24] with transB, C [10]) -> y [4, 10]."""
    rng = np.random.default_rng(11)
    w1 = rng.standard_normal((32, 24)).astype(np.float32) * 0.3
    w2 = rng.standard_normal((10, 24)).astype(np.float32) * 0.3
    c = rng.standard_normal(10).astype(np.float32)
    nodes = [helper.make_node("Constant", [], ["W1"], value=numpy_helper.from_array(w1)),
             helper.make_node("MatMul", ["x", "W1"], ["h"]), helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("Gemm", ["r", "W2", "C"], ["y"], transB=1)]
    g = helper.make_graph(nodes, "dense", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 32])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 10])],
                          [numpy_helper.from_array(w2, "W2"), numpy_helper.from_array(c, "C")])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    return model, w1, w2, c


def test_dynamic_quantization_writes_quantize_dynamics_pattern_close_to_float(tmp_path, capsys):
    model, w1, w2, c = dense_layers()
    q, counts = quantize.quantize_dynamic_model(model)
    assert counts == {"MatMul": 1, "Gemm": 1}
    assert [n.op_type for n in q.graph.node] == ["DynamicQuantizeLinear", "MatMulInteger", "Cast", "Mul", "Mul", "Relu",
                                                 "DynamicQuantizeLinear", "MatMulInteger", "Cast", "Mul", "Mul", "Add"]
    inits = {t.name: numpy_helper.to_array(t) for t in q.graph.initializer}
    w2q, s2 = inits["W2_T_quantized"], inits["W2_T_scale"]  # Gemm's transB: B^T [24, 10], per column
    assert w2q.dtype == np.int8 and w2q.shape == (24, 10) and s2.shape == (10,)
    np.testing.assert_allclose(w2q * s2, w2.T, atol=s2.max() / 2 + 1e-7)
    assert not inits["W2_T_zero_point"].any()
    x = np.random.default_rng(3).standard_normal((4, 32)).astype(np.float32)
    reference = np.maximum(x.astype(np.float64) @ w1, 0) @ w2.T.astype(np.float64) + c
    (y,) = loom.Session(q.SerializeToString()).run(None, {"x": x})
    (y0,) = loom.Session(q.SerializeToString(), optimization_level=0).run(None, {"x": x})
    np.testing.assert_array_equal(y, y0)  # fused (DynamicQuantizeMatMul) or op by op: the same values
    assert np.abs(y - reference).max() < 0.02 * np.abs(reference).max()
    # The command: no samples needed; with samples it prints the error.
    src = tmp_path / "dense.onnx"
    onnx.save(model, str(src))
    samples = tmp_path / "samples"
    samples.mkdir()
    np.save(str(samples / "s0.npy"), x)
    assert quantize.main(["--model", str(src), "--out", str(tmp_path / "q.onnx"), "--dynamic",
                          "--samples", str(samples)]) == 0
    out = capsys.readouterr().out
    assert "1 Gemm, 1 MatMul quantized" in out and "output y: max |int8 - float32|" in out


def lstm_model(direction="bidirectional"):
    """x [T=7, N=3, I=10] -> LSTM (H=16, bias, peepholes) -> Y, Y_h, Y_c."""
    rng = np.random.default_rng(21)
    d = 2 if direction == "bidirectional" else 1
    w = (rng.standard_normal((d, 64, 10)) * 0.3).astype(np.float32)
    r = (rng.standard_normal((d, 64, 16)) * 0.3).astype(np.float32)
    b = (rng.standard_normal((d, 128)) * 0.1).astype(np.float32)
    p = (rng.standard_normal((d, 48)) * 0.1).astype(np.float32)
    node = helper.make_node("LSTM", ["x", "W", "R", "B", "", "", "", "P"], ["Y", "Y_h", "Y_c"], hidden_size=16,
                            direction=direction)
    g = helper.make_graph([node], "lstm", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [7, 3, 10])],
                          [helper.make_tensor_value_info(n, TensorProto.FLOAT, shape) for n, shape in
                           (("Y", [7, d, 3, 16]), ("Y_h", [d, 3, 16]), ("Y_c", [d, 3, 16]))],
                          [numpy_helper.from_array(v, n) for v, n in ((w, "W"), (r, "R"), (b, "B"), (p, "P"))])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)])


@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
def test_dynamic_quantization_of_an_lstm_runs_close_to_float(direction):
    model = lstm_model(direction)
    q, counts = quantize.quantize_dynamic_model(model)
    assert counts == {"LSTM": 1}
    (node,) = q.graph.node
    assert (node.op_type, node.domain) == ("DynamicQuantizeLSTM", "com.microsoft")
    inits = {t.name: numpy_helper.to_array(t) for t in q.graph.initializer}
    d = 2 if direction == "bidirectional" else 1
    assert inits["W_quantized"].shape == (d, 10, 64) and inits["W_scale"].shape == (d, 64)
    w = numpy_helper.to_array(next(t for t in model.graph.initializer if t.name == "W"))
    np.testing.assert_allclose(inits["W_quantized"] * inits["W_scale"][:, None, :], w.transpose(0, 2, 1),
                               atol=inits["W_scale"].max() / 2 + 1e-7)
    x = np.random.default_rng(4).standard_normal((7, 3, 10)).astype(np.float32)
    expected = loom.Session(model.SerializeToString()).run(None, {"x": x})
    got = loom.Session(q.SerializeToString()).run(None, {"x": x})
    for e, g in zip(expected, got):
        assert e.shape == g.shape
        assert np.abs(e - g).max() < 0.03  # states in (-1, 1); int8 weights and activations
        assert np.abs(e - g).max() > 0  # it did quantize


@pytest.mark.parametrize("linear_before_reset", [0, 1])
def test_dynamic_quantization_of_a_gru_runs_close_to_float(linear_before_reset):
    rng = np.random.default_rng(31)
    w = (rng.standard_normal((2, 36, 10)) * 0.3).astype(np.float32)
    r = (rng.standard_normal((2, 36, 12)) * 0.3).astype(np.float32)
    b = (rng.standard_normal((2, 72)) * 0.1).astype(np.float32)
    node = helper.make_node("GRU", ["x", "W", "R", "B"], ["Y", "Y_h"], hidden_size=12, direction="bidirectional",
                            linear_before_reset=linear_before_reset)
    g = helper.make_graph([node], "gru", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [6, 2, 10])],
                          [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [6, 2, 2, 12]),
                           helper.make_tensor_value_info("Y_h", TensorProto.FLOAT, [2, 2, 12])],
                          [numpy_helper.from_array(v, n) for v, n in ((w, "W"), (r, "R"), (b, "B"))])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)])
    q, counts = quantize.quantize_dynamic_model(model)
    assert counts == {"GRU": 1}
    (qnode,) = q.graph.node
    assert (qnode.op_type, qnode.domain) == ("DynamicQuantizeGRU", "loom")
    assert any(o.domain == "loom" for o in q.opset_import)
    x = rng.standard_normal((6, 2, 10)).astype(np.float32)
    expected = loom.Session(model.SerializeToString()).run(None, {"x": x})
    got = loom.Session(q.SerializeToString()).run(None, {"x": x})
    for e, o in zip(expected, got):
        assert e.shape == o.shape
        assert 0 < np.abs(e - o).max() < 0.03
