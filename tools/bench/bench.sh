#!/usr/bin/env bash
# Side-by-side benchmark of Loom and ONNX Runtime 1.30 (BENCHMARKS.md):
# the same ONNX models, inputs, thread count, warm-up and timed runs in both,
# in one invocation. Prints per model: Loom median ms, ONNX Runtime median ms,
# their ratio (Loom / ONNX Runtime) and the largest output difference.
#
#   tools/bench/bench.sh [THREADS=2] [WARMUP=2] [RUNS=10]
#
# ONNX Runtime comes from npm into ~/.cache/loom-ort (its post-install
# download is skipped: the native library ships in the package); models are
# generated into ~/.cache/loom-bench by tools/bench/make_bench_models.
set -euo pipefail
cd "$(dirname "$0")/../.."
THREADS=${1:-2} WARMUP=${2:-2} RUNS=${3:-10}
ORT_DIR=${LOOM_ORT_DIR:-$HOME/.cache/loom-ort}
MODELS=${LOOM_BENCH_DIR:-$HOME/.cache/loom-bench}
./scripts/setup.sh
command -v node >/dev/null || { echo "bench: node is required (apt-get install nodejs npm)"; exit 1; }
if [[ ! -f "$ORT_DIR/node_modules/onnxruntime-node/package.json" ]]; then
  mkdir -p "$ORT_DIR"
  (cd "$ORT_DIR" && ONNXRUNTIME_NODE_INSTALL=skip npm install --silent onnxruntime-node@1.30.0)
fi
bazel build //tools:loom_run //tools/bench:make_bench_models >/dev/null 2>&1 || bazel build //tools:loom_run //tools/bench:make_bench_models
mkdir -p "$MODELS"
[[ -f "$MODELS/mobilenet.onnx" ]] || bazel-bin/tools/bench/make_bench_models "$MODELS"

printf '%-22s %14s %14s %8s %14s\n' model "Loom ms" "ORT ms" ratio "max |diff|"
row() {  # label model [loom_run flags...]
  local label=$1 model=$2; shift 2
  local out="$MODELS/out/$label"
  rm -rf "$out" && mkdir -p "$out/loom"
  local loom
  loom=$(bazel-bin/tools/loom_run "$MODELS/$model.onnx" "X=$MODELS/$model.X.pb" --warmup "$WARMUP" \
           --iterations "$RUNS" --num_threads "$THREADS" --output_dir "$out/loom" --output_raw "$@" |
         sed -n 's/.*p50 \([0-9.]*\) ms.*/\1/p')
  local ort
  ort=$(node tools/bench/ort_run.js "$ORT_DIR" "$MODELS/$model.onnx" "$MODELS/$model.X.bin" "$THREADS" "$WARMUP" "$RUNS" \
          "$out/ort" "$out/loom")
  local ort_ms diff
  ort_ms=$(sed 's/.*"median_ms":\([0-9.e+-]*\).*/\1/' <<<"$ort")
  diff=$(sed 's/.*"max_abs_diff":\([^}]*\)}.*/\1/' <<<"$ort")
  printf '%-22s %14.3f %14.3f %8.2f %14s\n' "$label" "$loom" "$ort_ms" "$(awk "BEGIN{print $loom/$ort_ms}")" "$diff"
}
row mlp mlp
row resnet18_b1 resnet18
row mobilenet_b1 mobilenet
row lstm4_dnnl lstm4
row lstm4_stepnet lstm4 --engine STEPNET
echo "threads $THREADS, warm-up $WARMUP, timed runs $RUNS; ratio < 1 means Loom is faster"
