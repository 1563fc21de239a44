#!/usr/bin/env bash
# The `loom` wheel as a user installs it: builds //python:wheel, installs it
# with pip into a fresh virtual environment (Debian's python3-venv; with
# --system-site-packages for Debian's numpy and protobuf, so pip needs no
# index), then, from outside the source tree and with no PYTHONPATH,
# imports loom and runs each example of python/examples in its smoke mode.
# Ends with "N passed, M failed" (one check per example, one for the
# install).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
config=()
if [[ -x "${CUDA_PATH:-/usr/local/cuda}/bin/nvcc" ]]; then config=(--config=cuda); fi  # the suite's outputs serve
passed=0 failed=0
check() {  # check NAME COMMAND...: runs it, counts it
  local name=$1
  shift
  echo "wheel: $name"
  if "$@"; then passed=$((passed + 1)); else echo "wheel: FAILED: $name"; failed=$((failed + 1)); fi
}
if ! bazel build "${config[@]}" //python:wheel; then
  echo "0 passed, 1 failed"
  exit 1
fi
wheel=$(ls bazel-bin/python/loom-*.whl | head -1)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
install() {
  /usr/bin/python3 -m venv --system-site-packages "$tmp/venv" &&
    "$tmp/venv/bin/pip" install --quiet --no-index "$root/$wheel" &&
    (cd "$tmp" && env -u PYTHONPATH "$tmp/venv/bin/python" -c 'import loom, os, sys
assert loom.__file__.startswith(sys.prefix), loom.__file__  # the venv copy, not the source tree
print("wheel: import loom from", os.path.dirname(loom.__file__), "with", len(loom.plugins()), "plugins")')
}
check "pip install $(basename "$wheel") into a fresh virtual environment" install
py() { (cd "$tmp" && env -u PYTHONPATH "$tmp/venv/bin/python" "$@"); }
check "mlp_digits.py --smoke" py "$root/python/examples/mlp_digits.py" --smoke
check "mlp_digits.py --smoke --world_size 2" py "$root/python/examples/mlp_digits.py" --smoke --world_size 2
check "char_lstm.py --smoke" py "$root/python/examples/char_lstm.py" --smoke --log_every 10
cnn() {
  /usr/bin/python3 "$root/tools/train/cnn_onnx.py" --out "$tmp/cnn.onnx" --data "$tmp/digits32.npz" --bn &&
    py "$root/python/examples/train_cnn.py" --model "$tmp/cnn.onnx" --data "$tmp/digits32.npz" --smoke
}
check "train_cnn.py --smoke (tools/train/cnn_onnx.py's model)" cnn
quantize() {  # the wheel's loom_quantize script on a one-Conv model
  py - <<'PY' && (cd "$tmp" && "$tmp/venv/bin/loom_quantize" --model conv.onnx --samples samples --out conv_int8.onnx)
import os
import numpy as np, onnx
from onnx import TensorProto, helper, numpy_helper
w = numpy_helper.from_array(np.random.default_rng(0).standard_normal((4, 3, 3, 3)).astype(np.float32), "W")
g = helper.make_graph([helper.make_node("Conv", ["x", "W"], ["y"])], "conv",
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 6, 6])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 4, 4])], [w])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "conv.onnx")
os.makedirs("samples", exist_ok=True)
for i in range(3):
    np.save("samples/s%d.npy" % i, np.random.default_rng(i).random((1, 3, 6, 6), dtype=np.float32))
PY
}
check "loom_quantize (the wheel's script)" quantize
echo "${passed} passed, ${failed} failed"
[[ $failed -eq 0 ]]
