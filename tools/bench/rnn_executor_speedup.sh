#!/usr/bin/env bash
# The threaded timestep executor (Caffe2's ThreadedRecurrentNetworkExecutor
# rebuilt on Loom plans: a wavefront over timesteps and layers, forward and
# backward) against running the timesteps in order, on one training step
# (forward + backward + Adam) of a 4-layer LSTM language model: loom_train
# --text on the King James Bible (bible-kjv), 4 layers of 512, sequence 50,
# batch 32, both on all cores (in order: each kernel gets the cores; threaded:
# 2 workers, kernels on cores / workers). Prints characters per second and
# milliseconds per training step of each, and the speedup.
# Usage: tools/bench/rnn_executor_speedup.sh [STEPS] [LAYERS]   (default 10 and 4)
set -euo pipefail
cd "$(dirname "$0")/../.."
STEPS=${1:-10} LAYERS=${2:-4}
command -v bible >/dev/null || { echo "rnn_executor_speedup: bible missing (scripts/setup.sh installs bible-kjv)"; exit 1; }
bazel build -c opt --config=cuda //tools:loom_train >/dev/null 2>&1 || bazel build -c opt //tools:loom_train >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bible -f Gen1:1-Rev22:21 > "$tmp/kjv.txt"
args=(--text "$tmp/kjv.txt" --layers "$LAYERS" --hidden 512 --seq_len 50 --batch 32 --optimizer Adam --lr 0.002
      --steps "$STEPS" --eval_chars 3000 --sample_chars 0 --log_every 1000000 --num_threads "$(nproc)")
echo "model: LSTM $LAYERS x 512, sequence 50, batch 32, Adam; one training step = forward + backward + update; $(nproc) cores"
printf '%-34s %14s %12s\n' executor "characters/s" "ms/step"
declare -A cps
for mode in sequential threaded; do
  if [[ $mode == sequential ]]; then extra=(--threaded=false); else extra=(--threaded --rnn_threads 2); fi
  out=$(bazel-bin/tools/loom_train "${args[@]}" "${extra[@]}")
  cps[$mode]=$(sed -n 's/.*(\([0-9]*\) characters\/s after the first step).*/\1/p' <<<"$out")
  printf '%-34s %14s %12s\n' "$mode" "${cps[$mode]}" "$(awk "BEGIN{printf \"%.0f\", 1600000/${cps[$mode]}}")"
done
echo "speedup (threaded / sequential): $(awk "BEGIN{printf \"%.2f\", ${cps[threaded]}/${cps[sequential]}}")x"
