#!/usr/bin/env bash
# Before/after benchmark of two Loom builds against ONNX Runtime, alternated:
# tools/bench/bench.sh runs PAIRS times with the "before" loom_run and PAIRS
# times with the "after" one, in turn (before, after, before, ...), so that a
# slow spell of a shared host falls on both builds. Prints every bench.sh
# table, then one summary per model: the median over the runs of each
# build's Loom / ONNX Runtime ratio, its range, and the largest Loom peak RSS
# (MB) of each build.
#
#   tools/bench/before_after.sh BEFORE_DIR AFTER_DIR [PAIRS=3] [THREADS=2] [WARMUP=2] [RUNS=10]
#
# A build folder holds loom_run and loom_plugins/ (the plugins loom_run
# loads by default), e.g. copied from bazel-bin/tools of a checkout of the
# older commit:
#   git worktree add /tmp/before <commit> && (cd /tmp/before && bazel build //tools:loom_run)
#   mkdir -p /tmp/b && cp -rL /tmp/before/bazel-bin/tools/{loom_run,loom_plugins} /tmp/b/
set -euo pipefail
cd "$(dirname "$0")/../.."
[[ $# -ge 2 ]] || { echo "usage: $0 BEFORE_DIR AFTER_DIR [PAIRS] [THREADS] [WARMUP] [RUNS]"; exit 2; }
BEFORE=$(realpath "$1") AFTER=$(realpath "$2") PAIRS=${3:-3} THREADS=${4:-2} WARMUP=${5:-2} RUNS=${6:-10}
for d in "$BEFORE" "$AFTER"; do
  [[ -x $d/loom_run && -d $d/loom_plugins ]] || { echo "before_after: $d must hold loom_run and loom_plugins/"; exit 2; }
done
tables=$(mktemp -d)
trap 'rm -rf "$tables"' EXIT
for ((p = 0; p < PAIRS; ++p)); do
  for build in before after; do
    dir=$BEFORE
    [[ $build == after ]] && dir=$AFTER
    echo "=== $build, run $((p + 1)) of $PAIRS ($dir/loom_run)"
    LOOM_RUN=$dir/loom_run tools/bench/bench.sh "$THREADS" "$WARMUP" "$RUNS" 1 | tee "$tables/$build.$p"
  done
done
# Rows of bench.sh's table: model, Loom ms, ORT ms, ratio, rounds, max |diff|,
# outputs, Loom MB, ...
echo
echo "Summary over $PAIRS alternated runs per build (ratio = Loom / ONNX Runtime; median [lowest-highest]; Loom MB: largest peak RSS)"
printf '%-16s %24s %24s %12s %12s\n' model "ratio before" "ratio after" "MB before" "MB after"
models=$(awk 'NR > 1 && $2 ~ /^[0-9.]+$/ {print $1}' "$tables/before.0")
for m in $models; do
  line=$(printf '%-16s' "$m")
  for build in before after; do
    line+=$(cat "$tables/$build".* | awk -v m="$m" '$1 == m && $4 ~ /^[0-9.]+$/ {print $4}' | sort -g |
              awk '{v[NR] = $1} END {printf " %10.2f [%.2f-%.2f]", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, v[1], v[NR]}')
  done
  for build in before after; do
    line+=$(cat "$tables/$build".* | awk -v m="$m" '$1 == m && $8 ~ /^[0-9.]+$/ {if ($8 > x) x = $8} END {printf " %12.1f", x}')
  done
  echo "$line"
done
