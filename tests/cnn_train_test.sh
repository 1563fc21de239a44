#!/usr/bin/env bash
# loom_train on convolutional networks from ONNX, end to end: the small CNN
# (tools/train/cnn_onnx.py: four 3x3 convolutions with ReLU, two max-pools,
# a fully connected layer, the loss inside, opset 13 as PyTorch exports it
# for training) on the digits upsampled to 3x32x32, read from a .npz:
# - without BatchNormalization (SGD, learning rate 0.05, momentum 0.5), 6
#   epochs must reach 95% held-out accuracy (Conv + Relu trains as
#   FusedConv);
# - with BatchNormalization (five outputs: training mode; learning rate
#   0.02, momentum 0.9), 3 epochs must reach 95%, the running statistics
#   must have moved from their initial 0 and 1 (they are written back), and
#   a checkpoint must hold them.
# Skips (passes with a message) when the data set or numpy/onnx for Python
# are not installed.
set -uo pipefail
loom_train=$1 make_cnn=$2
PY=/usr/bin/python3
if [[ ! -f /usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz ]] || ! $PY -c "import numpy, onnx" 2>/dev/null; then
  echo "SKIP: needs python3-sklearn, python3-numpy and python3-onnx (scripts/setup.sh installs them)"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$PY "$make_cnn" --out "$tmp/cnn.onnx" --data "$tmp/digits.npz" || exit 1
$PY "$make_cnn" --out "$tmp/cnn_bn.onnx" --bn || exit 1
common=(--data "$tmp/digits.npz" --input x --label y --loss loss --logits logits --batch 32 --num_threads 2
        --log_every 1000)
accuracy() { sed -n 's/^loom_train: test accuracy \([0-9.]*\)%.*/\1/p' "$1"; }

"$loom_train" --model "$tmp/cnn.onnx" "${common[@]}" --lr 0.05 --momentum 0.5 --epochs 6 > "$tmp/cnn.log" 2>&1 || { cat "$tmp/cnn.log"; exit 1; }
cat "$tmp/cnn.log"
acc=$(accuracy "$tmp/cnn.log")
if ! awk "BEGIN{exit !($acc >= 95)}"; then echo "FAIL: CNN accuracy $acc% < 95%"; exit 1; fi

"$loom_train" --model "$tmp/cnn_bn.onnx" "${common[@]}" --lr 0.02 --epochs 3 --checkpoint_dir "$tmp/ckpt" \
    --export_final "$tmp/final" > "$tmp/bn.log" 2>&1 || { cat "$tmp/bn.log"; exit 1; }
cat "$tmp/bn.log"
acc_bn=$(accuracy "$tmp/bn.log")
if ! awk "BEGIN{exit !($acc_bn >= 95)}"; then echo "FAIL: CNN with BatchNormalization accuracy $acc_bn% < 95%"; exit 1; fi
$PY - "$tmp/final" "$tmp/ckpt" <<'PYEOF' || exit 1
import os, sys
import numpy as np
final, ckpt = sys.argv[1], sys.argv[2]
for i in range(4):
    m = np.fromfile(os.path.join(final, "bn%d.running_mean.bin" % i), dtype="<f4")
    v = np.fromfile(os.path.join(final, "bn%d.running_var.bin" % i), dtype="<f4")
    if np.abs(m).max() < 1e-3 or np.abs(v - 1).max() < 1e-3:
        sys.exit("FAIL: bn%d's running statistics did not move (mean %s, var %s)" % (i, m[:3], v[:3]))
names = os.listdir(ckpt)
for n in ("bn0.running_mean", "bn3.running_var"):
    if not any(n in f for f in names):
        sys.exit("FAIL: the checkpoint has no %s (%s)" % (n, names[:8]))
print("running statistics moved and are checkpointed")
PYEOF
echo "PASS: CNN $acc%, CNN with BatchNormalization $acc_bn%"
