#!/usr/bin/env bash
# loom_train --world_size through tools/train/launch_local.sh: two local
# ranks training the character LSTM language model on Genesis (bible-kjv),
# each on half the streams of every batch, reach the held-out loss of one
# process on the whole batches (equal to the 4 printed decimals), and a
# rank that fails stops the launch with a non-zero status.
# Skips (passes with a message) when bible-kjv is not installed.
set -uo pipefail
loom_train=$1
launch=$2
if ! command -v bible >/dev/null; then
  echo "SKIP: the bible command is missing (scripts/setup.sh installs bible-kjv)"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bible -f Gen1:1-Gen50:26 > "$tmp/genesis.txt" || exit 1
common=(--text "$tmp/genesis.txt" --hidden 32 --layers 1 --seq_len 20 --batch 8 --optimizer Adam --lr 0.01
        --max_grad_norm 5 --steps 40 --test_fraction 0.1 --eval_chars 4000 --sample_chars 0 --num_threads 1
        --log_every 40 --threaded=false --comm_timeout_s 30)
"$loom_train" "${common[@]}" > "$tmp/one.log" 2>&1 || { cat "$tmp/one.log"; exit 1; }
TMPDIR=$tmp "$launch" 2 "$loom_train" "${common[@]}" > "$tmp/two.log" 2>&1 || { cat "$tmp/two.log"; exit 1; }
cat "$tmp/two.log"
one=$(sed -n 's/^loom_train: held-out loss \([0-9.]*\).*/\1/p' "$tmp/one.log")
for r in 0 1; do
  got=$(sed -n "s/^\[rank $r\] loom_train: held-out loss \([0-9.]*\).*/\1/p" "$tmp/two.log")
  [[ -n $one && $got == "$one" ]] || { echo "FAIL: rank $r held-out loss '$got', one process '$one'"; exit 1; }
done
grep -q '^\[rank 1\] loom_train: rank 1 of 2, 4 of every 8 streams' "$tmp/two.log" || { echo "FAIL: no rank line"; exit 1; }
# A rank that cannot start (a bad flag on every rank) fails the launch.
TMPDIR=$tmp "$launch" 2 "$loom_train" "${common[@]}" --batch 7 > "$tmp/bad.log" 2>&1
rc=$?
[[ $rc -ne 0 ]] || { echo "FAIL: the launch of failing ranks returned 0"; cat "$tmp/bad.log"; exit 1; }
grep -q 'the world size divides' "$tmp/bad.log" || { echo "FAIL: no error message"; cat "$tmp/bad.log"; exit 1; }
echo "PASS: 2 ranks reach held-out loss $one as one process does; a failing launch returns $rc"
