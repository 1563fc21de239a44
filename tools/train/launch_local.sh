#!/usr/bin/env bash
# Starts N ranks of a data-parallel loom_train run on this machine (what
# torchrun --standalone does): each gets --world_size N --rank i, a fresh
# rendezvous folder and a run id of its own, its output lines prefixed with
# [rank i]. When one rank fails, the others are stopped; the exit status is
# the first failure's (0 when all succeed).
# Usage: tools/train/launch_local.sh N PROGRAM [ARGS...]
#   e.g. tools/train/launch_local.sh 2 bazel-bin/tools/loom_train --text kjv.txt --batch 32 ...
# Across machines, start loom_train on each with the same --world_size,
# --run_id and a --rendezvous folder they share (README.md, "Data-parallel
# training").
set -uo pipefail
if [[ $# -lt 2 || ! $1 =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 N PROGRAM [ARGS...]" >&2
  exit 2
fi
n=$1
shift
rendezvous=$(mktemp -d "${TMPDIR:-/tmp}/loom_rendezvous.XXXXXX")
run_id="run_$(date +%s)_$$_${RANDOM}"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  rm -rf "$rendezvous"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
for ((i = 0; i < n; ++i)); do
  "$@" --world_size "$n" --rank "$i" --rendezvous "$rendezvous" --run_id "$run_id" \
    > >(sed -u "s/^/[rank $i] /") 2> >(sed -u "s/^/[rank $i] /" >&2) &
  pids+=($!)
done
status=0
running=("${pids[@]}")
while ((${#running[@]} > 0)); do
  wait -n -p done_pid "${running[@]}"
  rc=$?
  still=()
  for p in "${running[@]}"; do [[ $p != "$done_pid" ]] && still+=("$p"); done
  running=("${still[@]}")
  if ((rc != 0 && status == 0)); then
    status=$rc
    echo "launch_local: a rank (pid $done_pid) failed with status $rc; stopping the others" >&2
    for p in "${running[@]}"; do kill "$p" 2>/dev/null; done
  fi
done
exit $status
