#!/usr/bin/env bash
# Loom (loom_train) against PyTorch 1.13 (Debian python3-torch, OpenBLAS
# from libopenblas0-openmp) training the same MLP on scikit-learn's digits:
# same initial weights (exported by loom_train), same data in file order,
# same batches, SGD with momentum 0.9 and learning rate 0.1. Prints, for 1
# and 2 threads, both runtimes' steps per second and the largest relative
# difference of the losses over the first 100 steps, with the ISA each one
# uses. Usage: tools/bench/train_vs_pytorch.sh [SIZES] [STEPS]
#   (default 64,256,256,10 and 300; timing runs take STEPS steps).
set -euo pipefail
cd "$(dirname "$0")/../.."
SIZES=${1:-64,256,256,10} STEPS=${2:-300}
DATA=/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz
PY=/usr/bin/python3  # Debian's, where python3-torch lives
[[ -f $DATA ]] || { echo "train_vs_pytorch: $DATA missing (scripts/setup.sh installs python3-sklearn)"; exit 1; }
if ! $PY -c "import torch" 2>/dev/null; then
  echo "train_vs_pytorch: installing python3-torch and libopenblas0-openmp" >&2
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO=sudo
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-torch libopenblas0-openmp
fi
bazel build -c opt --config=cuda //tools:loom_train //tools/train:make_mlp >/dev/null 2>&1 ||
  bazel build -c opt //tools:loom_train //tools/train:make_mlp >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bazel-bin/tools/train/make_mlp --sizes "$SIZES" --out "$tmp/mlp.pb" >/dev/null
per_epoch=$(( 1797 / 32 ))
epochs=$(( (STEPS + per_epoch - 1) / per_epoch ))
common=(--model "$tmp/mlp.pb" --data "$DATA" --scale 0.0625 --test_fraction 0 --shuffle=false --batch 32
        --lr 0.1 --momentum 0.9 --log_every 1000000 --epochs "$epochs")
isa=$(ONEDNN_VERBOSE=1 bazel-bin/tools/loom_train "${common[@]}" --epochs 1 2>&1 | sed -n 's/.*isa:\([^,]*\).*/\1/p' | head -1)
echo "model: MLP $SIZES, digits (1797 examples), batch 32, SGD momentum 0.9, lr 0.1; $(nproc) cores"
echo "Loom: oneDNN ISA: ${isa:-unknown}"
printf '%-8s %14s %16s %10s %24s\n' threads "Loom steps/s" "PyTorch steps/s" "ratio" "max rel loss diff (100)"
for t in 1 2; do
  out=$(OMP_NUM_THREADS=$t bazel-bin/tools/loom_train "${common[@]}" --num_threads "$t" --loss_log "$tmp/loom.txt" \
        --export_initial "$tmp/w")
  loom_sps=$(sed -n 's/.*(\([0-9]*\) steps\/s).*/\1/p' <<<"$out")
  torch=$(OMP_NUM_THREADS=$t $PY tools/bench/train_torch.py --data "$DATA" --scale 0.0625 --weights "$tmp/w" \
          --sizes "$SIZES" --steps "$((per_epoch * epochs))" --threads "$t")
  read -r torch_sps diff cap < <($PY -c '
import json, sys
t = json.loads(sys.argv[1])
loom = [float(l) for l in open(sys.argv[2])]
n = min(100, len(loom), len(t["losses"]))
d = max(abs(a - b) / max(abs(b), 1e-12) for a, b in zip(loom[:n], t["losses"][:n]))
print("%.0f %.2e %s" % (t["steps_per_s"], d, t["cpu_capability"]))' "$torch" "$tmp/loom.txt")
  printf '%-8s %14s %16s %10s %24s\n' "$t" "$loom_sps" "$torch_sps" "$(awk "BEGIN{printf \"%.2f\", $loom_sps/$torch_sps}")" "$diff"
done
blas=$($PY -c '
import torch
a = torch.ones(64, 64); (a @ a).sum()
print(" ".join(sorted({l.split()[-1].rsplit("/", 1)[-1] for l in open("/proc/self/maps") if "blas" in l.lower()})))')
echo "PyTorch $($PY -c 'import torch; print(torch.__version__)'): CPU capability ${cap}; BLAS libraries loaded: ${blas}"
echo "ratio: Loom / PyTorch steps per second (above 1: Loom is faster)"
