#!/usr/bin/env bash
# CNN training, Loom (loom_train) against PyTorch 1.13 (Debian python3-torch
# and python3-torchvision, OpenBLAS from libopenblas0-openmp) side by side:
# the same model exported from PyTorch to ONNX with its loss
# (tools/bench/cnn_torch.py export: TrainingMode.TRAINING, opset 13), the
# same initial weights (the ONNX file's), the same data in file order and
# batches, SGD with momentum 0.9. For each model, prints per thread count
# (1 and 2): both runtimes' images per second and peak RSS (GNU time),
# their ratio; for the first 20 steps, how far each float32 run's losses
# and BatchNormalization running statistics are from the same steps in
# float64 (PyTorch, the reference; "within 1e-4" is measured against a
# float64 run, as for inference); how far a float64 run that stores its
# weights in float32 (rounds them after every update) gets from the same
# reference, which is what float32 storage alone costs (no float32 run can
# be expected to stay closer); and the ISA each one uses.
#
# Usage: tools/bench/cnn_vs_pytorch.sh [MODELS] [STEPS]
#   MODELS: space-separated, of cnn (the small CNN of issue 30, batch 32 of
#   3x32x32 digits), cnn_bn (the same with BatchNormalization), resnet18
#   (torchvision's, batch 8 of random 3x224x224 images); default all three.
#   STEPS: timing steps per run (default 60 for the CNNs, 12 for resnet18).
#   ROUNDS (environment, default 3): timing runs per runtime, Loom and
#   PyTorch in turn; images/s are the medians, "rounds" the lowest and
#   highest per-round ratio, peak RSS the largest. ROUNDS=0 runs the
#   accuracy part only.
#   LR (environment): the learning rate for every model instead of each
#   model's own (0.01 for the CNNs, 0.001 for resnet18).
set -euo pipefail
cd "$(dirname "$0")/../.."
MODELS=${1:-cnn cnn_bn resnet18} STEPS=${2:-} ROUNDS=${ROUNDS:-3}
PY=/usr/bin/python3  # Debian's, where python3-torch lives
if ! $PY -c "import torch, torchvision" 2>/dev/null; then
  echo "cnn_vs_pytorch: installing python3-torch, python3-torchvision and libopenblas0-openmp" >&2
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO=sudo
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    python3-torch python3-torchvision libopenblas0-openmp
fi
bazel build -c opt --config=cuda //tools:loom_train >/dev/null 2>&1 || bazel build -c opt //tools:loom_train >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
peak() { sed -n 's/.*Maximum resident set size (kbytes): \([0-9]*\).*/\1/p' "$1" | awk '{printf "%.0f", $1 / 1024}'; }

isa=""
for model in $MODELS; do
  case $model in
    resnet18) size=224 batch=8 steps=${STEPS:-12} examples=$((8 * 24)) lr=${LR:-0.001} ;;
    *) size=32 batch=32 steps=${STEPS:-60} examples=0 lr=${LR:-0.01} ;;
  esac
  $PY tools/bench/cnn_torch.py export --model "$model" --out "$tmp/$model.onnx" --data "$tmp/$model.npz" \
      --size "$size" --batch "$batch" --examples "$examples" 2>/dev/null
  n=$($PY -c "import numpy as np; print(np.load('$tmp/$model.npz')['y'].shape[0])")
  per_epoch=$((n / batch))
  epochs=$(( (steps + per_epoch - 1) / per_epoch ))
  common=(--model "$tmp/$model.onnx" --data "$tmp/$model.npz" --test_fraction 0 --shuffle=false --batch "$batch"
          --lr "$lr" --momentum 0.9 --log_every 1000000 --input x --label y --loss loss --logits logits)
  if [[ -z $isa ]]; then
    isa=$(ONEDNN_VERBOSE=1 bazel-bin/tools/loom_train "${common[@]}" --epochs 1 --num_threads 1 2>&1 |
          sed -n 's/^onednn_verbose,info,cpu,isa:\(.*\)$/\1/p' | head -1)
  fi
  echo
  echo "model: $model, batch $batch of 3x${size}x${size}, SGD momentum 0.9, lr $lr; $(nproc) cores"
  # Accuracy: 20 steps each, Loom and PyTorch in float32 against the same
  # steps in float64 (PyTorch, the reference): the losses and the running
  # statistics.
  bazel-bin/tools/loom_train "${common[@]}" --epochs $(( (20 + per_epoch - 1) / per_epoch )) --max_steps 20 --num_threads 1 \
      --loss_log "$tmp/loom20.txt" --export_final "$tmp/final" >/dev/null
  for run in float32 float64 rounded; do
    case $run in
      float32) flags=() ;; float64) flags=(--float64) ;; rounded) flags=(--float64 --round_weights) ;;
    esac
    $PY tools/bench/cnn_torch.py train --model "$model" --onnx "$tmp/$model.onnx" --data "$tmp/$model.npz" \
        --batch "$batch" --lr "$lr" --steps 20 --threads 1 "${flags[@]}" >"$tmp/torch20_$run.json"
  done
  $PY - "$tmp/torch20_float32.json" "$tmp/torch20_float64.json" "$tmp/loom20.txt" "$tmp/final" \
      "$tmp/torch20_rounded.json" <<'EOF'
import json, sys, os
import numpy as np
t32, t64 = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
t64r = json.load(open(sys.argv[5]))
loom = [float(l) for l in open(sys.argv[3])][:20]
def rel(a, b):
    return max(abs(x - y) / max(abs(y), 1e-12) for x, y in zip(a, b))
def stats(get):
    if not t64["running"]:
        return "-"
    return "%.2e" % max(float(np.max(np.abs(get(n) - np.array(v)))) for n, v in t64["running"].items())
print("first 20 steps against PyTorch float64: max relative loss difference Loom %.2e, PyTorch float32 %.2e "
      "(Loom against PyTorch float32 %.2e)" % (rel(loom, t64["losses"]), rel(t32["losses"], t64["losses"]),
                                             rel(loom, t32["losses"])))
print("running statistics after 20 steps, max abs difference from float64: Loom %s, PyTorch float32 %s" % (
    stats(lambda n: np.fromfile(os.path.join(sys.argv[4], n + ".bin"), dtype="<f4")),
    stats(lambda n: np.array(t32["running"][n]))))
print("float32 storage alone: float64 with the weights rounded to float32 after each update, against "
      "float64: max relative loss difference %.2e, running statistics %s" % (
          rel(t64r["losses"], t64["losses"]), stats(lambda n: np.array(t64r["running"][n]))))
EOF
  [[ $ROUNDS -gt 0 ]] || continue
  printf '%-8s %14s %17s %7s %13s %14s %16s\n' threads "Loom images/s" "PyTorch images/s" ratio rounds \
    "Loom peak MiB" "PyTorch peak MiB"
  for t in 1 2; do
    loom_all=() torch_all=() ratios=() loom_peak=0 torch_peak=0
    for ((r = 0; r < ROUNDS; ++r)); do  # Loom, then PyTorch, in turn: a slow spell lands on both
      OMP_NUM_THREADS=$t /usr/bin/time -v bazel-bin/tools/loom_train "${common[@]}" --epochs "$epochs" \
          --max_steps "$steps" --num_threads "$t" >"$tmp/loom.out" 2>"$tmp/loom.time"
      l=$(sed -n 's/^loom_train: steady state \([0-9.]*\) examples.*/\1/p' "$tmp/loom.out")
      OMP_NUM_THREADS=$t /usr/bin/time -v $PY tools/bench/cnn_torch.py train --model "$model" --onnx "$tmp/$model.onnx" \
          --data "$tmp/$model.npz" --batch "$batch" --lr "$lr" --steps "$steps" --threads "$t" \
          >"$tmp/torch.json" 2>"$tmp/torch.time"
      read -r p cap < <($PY -c 'import json,sys; t=json.load(open(sys.argv[1])); print("%.2f %s" % (t["images_per_s"], t["cpu_capability"]))' "$tmp/torch.json")
      loom_all+=("$l") torch_all+=("$p") ratios+=("$(awk "BEGIN{printf \"%.2f\", $l/$p}")")
      loom_peak=$(( $(peak "$tmp/loom.time") > loom_peak ? $(peak "$tmp/loom.time") : loom_peak ))
      torch_peak=$(( $(peak "$tmp/torch.time") > torch_peak ? $(peak "$tmp/torch.time") : torch_peak ))
    done
    median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END{printf "%.1f", NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
    lm=$(median "${loom_all[@]}") pm=$(median "${torch_all[@]}")
    range="$(printf '%s\n' "${ratios[@]}" | sort -g | head -1)-$(printf '%s\n' "${ratios[@]}" | sort -g | tail -1)"
    printf '%-8s %14s %17s %7s %13s %14s %16s\n' "$t" "$lm" "$pm" "$(awk "BEGIN{printf \"%.2f\", $lm/$pm}")" "$range" \
      "$loom_peak" "$torch_peak"
  done
done
echo
echo "Loom: oneDNN ISA: ${isa:-unknown}"
echo "PyTorch $($PY -c 'import torch; print(torch.__version__)'): CPU capability ${cap:-unknown} (its oneDNN: $($PY -c 'import torch; print(torch.backends.mkldnn.is_available())') )"
echo "ratio: Loom / PyTorch images per second (above 1: Loom is faster); both exclude the first step (warm-up)."
