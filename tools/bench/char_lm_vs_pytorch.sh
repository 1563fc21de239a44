#!/usr/bin/env bash
# Loom (loom_train --text) against PyTorch 1.13 (Debian python3-torch,
# OpenBLAS from libopenblas0-openmp) training the same character-level LSTM
# language model on the King James Bible (Debian bible-kjv): same initial
# weights (exported by loom_train), same batches, same optimizer. Two
# configurations:
#   small: Caffe2's char_rnn (1 LSTM layer of 100, sequence 25, batch 1, SGD lr 0.1);
#   large: 2 layers of 512, sequence 50, batch 32, Adam lr 0.002;
# each on 1 and 2 threads. Prints characters per second of both, their
# ratio, the held-out losses after the same steps and their relative
# difference, with the ISA each runtime uses.
# Usage: tools/bench/char_lm_vs_pytorch.sh [SMALL_STEPS] [LARGE_STEPS]   (default 500 and 40)
set -euo pipefail
cd "$(dirname "$0")/../.."
SMALL_STEPS=${1:-500} LARGE_STEPS=${2:-40}
PY=/usr/bin/python3  # Debian's, where python3-torch lives
command -v bible >/dev/null || { echo "char_lm_vs_pytorch: bible missing (scripts/setup.sh installs bible-kjv)"; exit 1; }
if ! $PY -c "import torch" 2>/dev/null; then
  echo "char_lm_vs_pytorch: installing python3-torch and libopenblas0-openmp" >&2
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO=sudo
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-torch libopenblas0-openmp
fi
bazel build -c opt --config=cuda //tools:loom_train >/dev/null 2>&1 || bazel build -c opt //tools:loom_train >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bible -f Gen1:1-Rev22:21 > "$tmp/kjv.txt"
small=(--hidden 100 --layers 1 --seq_len 25 --batch 1 --optimizer Momentum --lr 0.1 --momentum 0 --steps "$SMALL_STEPS")
large=(--hidden 512 --layers 2 --seq_len 50 --batch 32 --optimizer Adam --lr 0.002 --steps "$LARGE_STEPS")
common=(--text "$tmp/kjv.txt" --test_fraction 0.05 --eval_chars 20000 --max_grad_norm 5 --log_every 1000000
        --sample_chars 0)
isa=$(ONEDNN_VERBOSE=1 bazel-bin/tools/loom_train "${common[@]}" "${small[@]}" --steps 2 2>&1 |
      sed -n 's/.*isa:\([^,]*\).*/\1/p' | head -1)
echo "text: King James Bible (bible-kjv, $(wc -c < "$tmp/kjv.txt") bytes), 5% held out (20000 characters evaluated); $(nproc) cores"
echo "Loom: oneDNN ISA: ${isa:-unknown}"
printf '%-7s %-8s %12s %14s %7s %11s %14s %9s\n' config threads "Loom char/s" "PyTorch char/s" ratio "Loom loss" "PyTorch loss" "rel diff"
for config in small large; do
  if [[ $config == small ]]; then args=("${small[@]}"); else args=("${large[@]}"); fi
  for t in 1 2; do
    if [[ $t == 1 ]]; then exec_args=(--threaded=false); else exec_args=(--threaded --rnn_threads 2); fi
    out=$(OMP_NUM_THREADS=$t bazel-bin/tools/loom_train "${common[@]}" "${args[@]}" "${exec_args[@]}" --num_threads "$t" \
          --export_initial "$tmp/w")
    loom_cps=$(sed -n 's/.*(\([0-9]*\) characters\/s after the first step).*/\1/p' <<<"$out")
    loom_loss=$(sed -n 's/.*held-out loss \([0-9.]*\).*/\1/p' <<<"$out")
    torch=$(OMP_NUM_THREADS=$t $PY tools/bench/char_lm_torch.py --text "$tmp/kjv.txt" --weights "$tmp/w" \
            --test_fraction 0.05 --eval_chars 20000 --max_grad_norm 5 --threads "$t" "${args[@]}")
    read -r torch_cps torch_loss cap < <($PY -c '
import json, sys
t = json.loads(sys.argv[1])
print("%.0f %.4f %s" % (t["chars_per_s"], t["test_loss"], t["cpu_capability"]))' "$torch")
    printf '%-7s %-8s %12s %14s %7s %11s %14s %9s\n' "$config" "$t" "$loom_cps" "$torch_cps" \
      "$(awk "BEGIN{printf \"%.2f\", $loom_cps/$torch_cps}")" "$loom_loss" "$torch_loss" \
      "$(awk "BEGIN{d=($loom_loss-$torch_loss)/$torch_loss; if (d<0) d=-d; printf \"%.2f%%\", 100*d}")"
  done
done
echo "PyTorch $($PY -c 'import torch; print(torch.__version__)'): CPU capability ${cap}"
echo "ratio: Loom / PyTorch characters per second (above 1: Loom is faster); Loom runs 1 thread in order and 2 threads"
echo "on the threaded timestep executor (2 workers); PyTorch uses torch.set_num_threads(threads)."
