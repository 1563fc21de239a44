#!/usr/bin/env bash
# The character LSTM trained from Python (python/examples/char_lstm.py:
# loom.rnn.recurrent_net and a Python loop that feeds, runs and fetches each
# step) against loom_train --text (the same model and loop in C++), side by
# side in alternated rounds: same text, settings and initial weights
# (loom_train's --export_initial). Two configurations:
#   small: Caffe2's char_rnn (1 layer of 100, sequence 25, batch 1, SGD),
#          1 thread, timesteps in order: about 2 ms a step, where a
#          per-step cost of Python would show most;
#   large: 2 layers of 512, sequence 50, batch 32, Adam, 2 threads on the
#          threaded timestep executor.
# Prints each round's characters/s after the first step and held-out loss
# for both, then per configuration the median ratio (Python / C++) and its
# range over the rounds, with the ISA oneDNN uses.
# Usage: tools/bench/char_lm_python_vs_cpp.sh [ROUNDS] [SMALL_STEPS] [LARGE_STEPS]   (default 3, 2000, 30)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-3} SMALL_STEPS=${2:-2000} LARGE_STEPS=${3:-30}
command -v bible >/dev/null || { echo "char_lm_python_vs_cpp: bible missing (scripts/setup.sh installs bible-kjv)"; exit 1; }
bazel build -c opt --config=cuda //tools:loom_train //python:package >/dev/null 2>&1 ||
  bazel build -c opt //tools:loom_train //python:package >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bible -f Gen1:1-Rev22:21 > "$tmp/kjv.txt"
small=(--hidden 100 --layers 1 --seq_len 25 --batch 1 --optimizer Momentum --lr 0.1 --momentum 0 --steps "$SMALL_STEPS"
       --num_threads 1 --threaded=false)
large=(--hidden 512 --layers 2 --seq_len 50 --batch 32 --optimizer Adam --lr 0.002 --steps "$LARGE_STEPS"
       --num_threads 2 --threaded --rnn_threads 2)
common=(--text "$tmp/kjv.txt" --test_fraction 0.05 --eval_chars 5000 --max_grad_norm 5 --log_every 1000000)
isa=$(ONEDNN_VERBOSE=1 bazel-bin/tools/loom_train "${common[@]}" "${small[@]}" --steps 2 --sample_chars 0 2>&1 |
      sed -n 's/.*isa:\([^,]*\).*/\1/p' | head -1)
echo "text: King James Bible ($(wc -c < "$tmp/kjv.txt") bytes); $(nproc) cores; oneDNN ISA: ${isa:-unknown}; $ROUNDS rounds"
printf '%-6s %-6s %12s %12s %7s %10s %10s\n' config round "C++ char/s" "Py char/s" ratio "C++ loss" "Py loss"
cps() { sed -n 's/.*(\([0-9]*\) characters\/s after the first step).*/\1/p' <<<"$1"; }
loss() { sed -n 's/.*held-out loss \([0-9.]*\).*/\1/p' <<<"$1"; }
for config in small large; do
  if [[ $config == small ]]; then args=("${small[@]}"); else args=("${large[@]}"); fi
  ratios=()
  for round in $(seq 1 "$ROUNDS"); do
    cpp=$(bazel-bin/tools/loom_train "${common[@]}" "${args[@]}" --sample_chars 0 --export_initial "$tmp/w")
    py=$(PYTHONPATH=bazel-bin/python/pkg /usr/bin/python3 python/examples/char_lstm.py "${common[@]}" "${args[@]}" \
         --init_from "$tmp/w")
    ratio=$(awk "BEGIN{printf \"%.3f\", $(cps "$py")/$(cps "$cpp")}")
    ratios+=("$ratio")
    printf '%-6s %-6s %12s %12s %7s %10s %10s\n' "$config" "$round" "$(cps "$cpp")" "$(cps "$py")" "$ratio" \
      "$(loss "$cpp")" "$(loss "$py")"
  done
  sorted=($(printf '%s\n' "${ratios[@]}" | sort -n))
  echo "$config: Python / C++ characters per second: median ${sorted[$(((ROUNDS - 1) / 2))]}, range ${sorted[0]}-${sorted[-1]}"
done
