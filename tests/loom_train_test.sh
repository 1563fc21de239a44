#!/usr/bin/env bash
# loom_train's first job, end to end: make_mlp writes a 64-64-10 MLP,
# loom_train trains it on scikit-learn's handwritten digits (Debian
# python3-sklearn) for 20 epochs and must reach 95% held-out accuracy; a run
# of 10 epochs with a checkpoint, resumed for 10 more, must print the same
# final test loss and accuracy as the 20 epochs in one go (the in-process
# bitwise check is //tests:training_test);
# the loss plot must be a PNG. Skips (passes with a message) when the data
# set is not installed.
set -uo pipefail
make_mlp=$1 loom_train=$2 fake_device=$PWD/$3
data=/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz
if [[ ! -f $data ]]; then
  echo "SKIP: $data not found (scripts/setup.sh installs python3-sklearn)"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$make_mlp" --sizes 64,64,10 --out "$tmp/mlp.pb" || exit 1
common=(--model "$tmp/mlp.pb" --data "$data" --scale 0.0625 --num_threads 1 --log_every 1000)
"$loom_train" "${common[@]}" --epochs 20 --plot "$tmp/loss.png" > "$tmp/full.log" 2>&1 || { cat "$tmp/full.log"; exit 1; }
cat "$tmp/full.log"
acc=$(sed -n 's/^loom_train: test accuracy \([0-9.]*\)%.*/\1/p' "$tmp/full.log")
if ! awk "BEGIN{exit !($acc >= 95)}"; then echo "FAIL: accuracy $acc% < 95%"; exit 1; fi
if [[ $(head -c 8 "$tmp/loss.png" | od -An -tx1 | tr -d ' \n') != 89504e470d0a1a0a ]]; then
  echo "FAIL: $tmp/loss.png is not a PNG"; exit 1
fi
"$loom_train" "${common[@]}" --epochs 10 --checkpoint_dir "$tmp/ckpt" > "$tmp/first.log" 2>&1 || { cat "$tmp/first.log"; exit 1; }
"$loom_train" "${common[@]}" --epochs 20 --checkpoint_dir "$tmp/ckpt" --resume > "$tmp/second.log" 2>&1 ||
  { cat "$tmp/second.log"; exit 1; }
grep -q "resumed from .* at step 440" "$tmp/second.log" || { echo "FAIL: did not resume at step 440"; cat "$tmp/second.log"; exit 1; }
strip() { sed -n 's/^\(loom_train: test accuracy .*after [0-9]* steps\).*/\1/p' "$1"; }
if [[ "$(strip "$tmp/full.log")" != "$(strip "$tmp/second.log")" ]]; then
  echo "FAIL: resumed run differs:"; strip "$tmp/full.log"; strip "$tmp/second.log"; exit 1
fi
# --plugin loads a plugin after the default ones (a custom op's); a plugin
# that cannot be loaded stops the run before training, naming it.
"$loom_train" "${common[@]}" --epochs 1 --plugin "$tmp/no_such_plugin.so" > "$tmp/plugin.log" 2>&1 &&
  { echo "FAIL: a missing --plugin did not fail"; exit 1; }
grep -q "no_such_plugin.so" "$tmp/plugin.log" || { echo "FAIL: the error does not name the plugin:"; cat "$tmp/plugin.log"; exit 1; }
"$loom_train" "${common[@]}" --epochs 1 --plugin "$fake_device" > "$tmp/plugin_ok.log" 2>&1 ||
  { echo "FAIL: training with --plugin $fake_device:"; cat "$tmp/plugin_ok.log"; exit 1; }
echo "PASS: accuracy $acc%, resume reproduces the 20-epoch result, --plugin loads a plugin or names it"
