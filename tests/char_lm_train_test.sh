#!/usr/bin/env bash
# loom_train --text end to end: a character-level LSTM language model
# (RecurrentNetwork + RecurrentNetworkGradient) trained on Genesis from
# Debian's bible-kjv must reach a held-out loss below 2.6 nats (uniform over
# its ~60 characters is about 4.1), write a PNG loss curve and sample text;
# the threaded timestep executor must give the sequential one's result
# exactly (same held-out loss, printed to 4 decimals, and same sample); and
# a run on whole lines bucketed by length must learn as well.
# Skips (passes with a message) when bible-kjv is not installed.
set -uo pipefail
loom_train=$1
if ! command -v bible >/dev/null; then
  echo "SKIP: the bible command is missing (scripts/setup.sh installs bible-kjv)"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# gnuplot (--plot) warns on stderr when fontconfig finds no writable cache
# (a fresh machine's test sandbox): give it one so both logs compare clean.
export XDG_CACHE_HOME="$tmp/cache"
bible -f Gen1:1-Gen50:26 > "$tmp/genesis.txt" || exit 1
common=(--text "$tmp/genesis.txt" --hidden 64 --layers 2 --seq_len 25 --batch 8 --optimizer Adam --lr 0.01
        --max_grad_norm 5 --steps 300 --test_fraction 0.1 --eval_chars 5000 --sample_chars 120 --num_threads 1
        --log_every 100)
"$loom_train" "${common[@]}" --threaded=false --plot "$tmp/loss.png" > "$tmp/seq.log" 2>&1 || { cat "$tmp/seq.log"; exit 1; }
"$loom_train" "${common[@]}" --threaded --rnn_threads 2 > "$tmp/thr.log" 2>&1 || { cat "$tmp/thr.log"; exit 1; }
cat "$tmp/seq.log"
loss=$(sed -n 's/^loom_train: held-out loss \([0-9.]*\).*/\1/p' "$tmp/seq.log")
if ! awk "BEGIN{exit !($loss < 2.6)}"; then echo "FAIL: held-out loss $loss >= 2.6"; exit 1; fi
if [[ $(head -c 8 "$tmp/loss.png" | od -An -tx1 | tr -d ' \n') != 89504e470d0a1a0a ]]; then
  echo "FAIL: $tmp/loss.png is not a PNG"; exit 1
fi
grep -q "^loom_train: sample" "$tmp/seq.log" || { echo "FAIL: no sample"; exit 1; }
strip() { grep -v -e '^Fontconfig' -e 'characters/s' -e '^loom_train: wrote' -e 'peak RSS' -e "training net's memory" "$1" | sed 's/, [0-9.]* s (.*//'; }
if [[ "$(strip "$tmp/seq.log")" != "$(strip "$tmp/thr.log")" ]]; then
  echo "FAIL: the threaded executor's run differs from the sequential one:"
  diff <(strip "$tmp/seq.log") <(strip "$tmp/thr.log")
  exit 1
fi
# Whole lines bucketed by length (32, 64, 128; longer ones cut), all
# buckets planned up front, learn too.
"$loom_train" "${common[@]}" --threaded=false --buckets 32,64,128 > "$tmp/lines.log" 2>&1 || { cat "$tmp/lines.log"; exit 1; }
cat "$tmp/lines.log"
grep -q "batches of 8 lines in buckets 32 (.*) 64 (.*) 128 (.*)" "$tmp/lines.log" || { echo "FAIL: no bucket summary"; exit 1; }
lines_loss=$(sed -n 's/^loom_train: held-out loss \([0-9.]*\).*/\1/p' "$tmp/lines.log")
if ! awk "BEGIN{exit !($lines_loss < 2.6)}"; then echo "FAIL: bucketed held-out loss $lines_loss >= 2.6"; exit 1; fi
echo "PASS: held-out loss $loss (bucketed lines: $lines_loss); threaded and sequential runs agree"
