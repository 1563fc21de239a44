#!/usr/bin/env bash
# A real detector whose post-processing ends in ONNX NonMaxSuppression
# (torchvision's SSDlite320 MobileNetV3-Large, exported by
# export_detector.py with seeded random weights and calibrated BatchNorm
# statistics), run in Loom and in ONNX Runtime (onnxruntime-node) on the
# same input; every output (boxes [N, 4], scores [N], labels [N]) is
# compared with ort_compare.js.
#
#   tools/real_models/detector_vs_ort.sh [TOL]     (default TOL 1e-3, absolute)
#
# Installs python3-torch and python3-torchvision when missing (Debian's;
# no model hub), and onnxruntime-node with scripts/fetch_models.sh's cache
# (~/.cache/loom-ort). Exits non-zero when an output is missing in Loom,
# has another size, or differs by more than TOL.
set -euo pipefail
cd "$(dirname "$0")/../.."
TOL=${1:-1e-3}
PY=/usr/bin/python3
if ! $PY -c "import torch, torchvision" 2>/dev/null; then
  echo "detector_vs_ort: installing python3-torch and python3-torchvision" >&2
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO=sudo
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    python3-torch python3-torchvision libopenblas0-openmp
fi
ORT=${LOOM_ORT_DIR:-$HOME/.cache/loom-ort}
[[ -d $ORT/node_modules/onnxruntime-node ]] || ./scripts/fetch_models.sh >/dev/null
bazel build -c opt --config=cuda //tools:loom_run >/dev/null 2>&1 || bazel build -c opt //tools:loom_run >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$PY tools/real_models/export_detector.py "$tmp"
# loom_run reads inputs as ONNX TensorProtos.
$PY - "$tmp" <<'PYEOF'
import json, sys
import numpy as np
from onnx import numpy_helper
d = sys.argv[1]
meta = json.load(open(d + "/input.json"))
x = np.fromfile(d + "/input.bin", dtype=meta["dtype"]).reshape(meta["dims"])
open(d + "/input.pb", "wb").write(numpy_helper.from_array(x, "images").SerializeToString())
PYEOF
bazel-bin/tools/loom_run "$tmp/detector.onnx" "images=$tmp/input.pb" --iterations 1 --warmup 0 \
  --output_dir "$tmp/loom" --output_raw | grep -v '^time per run'
node tools/real_models/ort_compare.js "$ORT" "$tmp/detector.onnx" "$tmp/loom" "$TOL" "images=$tmp/input"
