#!/usr/bin/env bash
# Runs all of Loom's GPU work in one go on a GPU machine (issue 5), from the
# bundle made by scripts/make_gpu_bundle.sh: no Bazel, no registry, no
# internet needed; the CUDA libraries (cudart, cuBLAS, cuBLASLt, cuDNN) come
# from PyTorch's pip wheels (site-packages/nvidia/*/lib).
#
#   bash .gpu_bundle/gpu_run.sh [RESULTS_DIR]
#
# RESULTS_DIR defaults to $OUT/results when $OUT is set (the device runner's
# output folder), else results/ next to this script. Results go into
# RESULTS_DIR/<UTC date>_<GPU name>/: gpu_run.log (everything), one log per
# step, CONFORMANCE_CUDA.md/.json, and SUMMARY.md (tables ready to paste
# into BENCHMARKS.md). Steps, each under a timeout (a failing step is
# reported and the script goes on; the timeouts add up to 7.5 minutes):
#   1. setup: unpack the payload, LD_LIBRARY_PATH, nvidia-smi -L, ldd checks
#   2. the CUDA test binaries (in parallel, 120 s each)
#   3. onnx_conformance --device CUDA (stops starting tests at 90 s)
#   4. the benchmark models (make_bench_models, checked against the bundle's
#      checksums); loom_run lstm4.onnx on the CPU (oneDNN LSTM) and on CUDA
#      (cuDNN LSTM) with the largest output difference; rnn_bench --device
#      CUDA (RecurrentNetwork, 1 stream vs 4 streams); tools/bench/torch_lstm.py
# Knobs (environment): LOOM_GPU_WARMUP (3), LOOM_GPU_RUNS (20),
# LOOM_GPU_WORK (where the payload is unpacked; default a fresh folder in
# $TMPDIR or /tmp, removed at the end unless LOOM_GPU_KEEP=1).
set -uo pipefail  # no -e: every step runs and is reported

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
T0=$(date +%s)
WARMUP=${LOOM_GPU_WARMUP:-3}
RUNS=${LOOM_GPU_RUNS:-20}
ORIG_LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}

# ---- machine and results folder --------------------------------------------
GPU_NAME=$(timeout 20 nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)
MACHINE=${GPU_NAME:-no-GPU}
STAMP=$(date -u +%Y-%m-%dT%H%MZ)
BASE=${1:-${OUT:+$OUT/results}}
BASE=${BASE:-$SCRIPT_DIR/results}
RES="$BASE/${STAMP}_$(tr -c 'A-Za-z0-9._-' '_' <<<"$MACHINE" | sed 's/_*$//')"
mkdir -p "$RES" || { echo "gpu_run: cannot create $RES" >&2; exit 1; }
RES=$(cd "$RES" && pwd)
exec > >(tee -a "$RES/gpu_run.log") 2>&1

STEP_ROWS=()
# step NAME TIMEOUT_S LOG CMD...: runs CMD under a timeout, output to LOG
# (its tail is echoed); records the outcome; returns CMD's status.
step() {
  local name=$1 limit=$2 log=$3
  shift 3
  local s rc status
  s=$(date +%s)
  echo "== [$name] $* (timeout ${limit}s)"
  timeout -k 5 "$limit" "$@" >"$log" 2>&1
  rc=$?
  if ((rc == 124 || rc == 137)); then
    status="TIMEOUT after ${limit}s"
  elif ((rc != 0)); then
    status="FAILED (exit $rc)"
  else
    status="ok"
  fi
  tail -n 6 "$log" | sed 's/^/   | /'
  echo "   -> $status in $(($(date +%s) - s))s"
  STEP_ROWS+=("| $name | $status | $(($(date +%s) - s)) s |")
  return $rc
}

echo "gpu_run: $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(hostname), results in $RES"

# ---- 1. setup -----------------------------------------------------------------
CLEANUP=""
if [[ -f "$SCRIPT_DIR/payload.tar.xz" ]]; then
  if [[ -z "${LOOM_GPU_WORK:-}" && -z "${LOOM_GPU_KEEP:-}" ]]; then CLEANUP=1; fi
  WORK=${LOOM_GPU_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/loom_gpu.XXXXXX")}
  mkdir -p "$WORK"
  echo "gpu_run: unpacking the payload into $WORK"
  if command -v xz >/dev/null; then
    tar -C "$WORK" -xJf "$SCRIPT_DIR/payload.tar.xz"
  else
    python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1], "r:xz").extractall(sys.argv[2])' \
      "$SCRIPT_DIR/payload.tar.xz" "$WORK"
  fi || { echo "gpu_run: cannot unpack $SCRIPT_DIR/payload.tar.xz" >&2; exit 1; }
elif [[ -x "$SCRIPT_DIR/bin/loom_run" ]]; then
  WORK=$SCRIPT_DIR  # run from an unpacked payload
else
  echo "gpu_run: no payload.tar.xz next to this script (make it with scripts/make_gpu_bundle.sh)" >&2
  exit 1
fi
cd "$WORK" || exit 1

echo "== machine"
echo "nvidia-smi -L:"
timeout 20 nvidia-smi -L 2>&1 | sed 's/^/   /' || echo "   (nvidia-smi failed: no driver or no GPU)"
GPU_INFO=$(timeout 20 nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -n1)
CPU_MODEL=$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null)
CORES=$(nproc)
echo "GPU: ${GPU_INFO:-none}; CPU: ${CPU_MODEL:-?}, $CORES cores; $(uname -m); $(ldd --version 2>&1 | head -n1)"

# The CUDA libraries from PyTorch's wheels: every site-packages/nvidia/*/lib.
NV_DIRS=$(timeout 60 python3 - <<'EOF' 2>/dev/null
import glob, os, site
roots = []
try:
    import nvidia
    roots += list(nvidia.__path__)
except Exception:
    pass
try:
    roots += [os.path.join(p, "nvidia") for p in site.getsitepackages() + [site.getusersitepackages()]]
except Exception:
    pass
dirs = []
for r in roots:
    for d in sorted(glob.glob(os.path.join(r, "*", "lib"))):
        if os.path.isdir(d) and d not in dirs:
            dirs.append(d)
print(":".join(dirs))
EOF
)
TORCH_INFO=$(timeout 60 python3 -c 'import torch; print(torch.__version__, "CUDA", torch.version.cuda, "cuDNN", torch.backends.cudnn.version())' 2>/dev/null)
echo "PyTorch: ${TORCH_INFO:-not importable}"
echo "nvidia wheel lib dirs: ${NV_DIRS:-none found}"
export LD_LIBRARY_PATH="$WORK/lib${NV_DIRS:+:$NV_DIRS}${ORIG_LD_LIBRARY_PATH:+:$ORIG_LD_LIBRARY_PATH}"
# The machine's libstdc++ too old for the bundle's binaries: use the bundled one.
if ldd bin/loom_run 2>&1 | grep -q "GLIBCXX\|CXXABI\|libstdc++.*not found"; then
  echo "gpu_run: the system libstdc++ is too old for the bundle: using lib/compat"
  export LD_LIBRARY_PATH="$WORK/lib/compat:$LD_LIBRARY_PATH"
fi
missing() { ldd "$1" 2>&1 | awk '/not found/ {print $1}' | sort -u | tr '\n' ' '; }
if [[ -n "$(missing plugins/cuda/libloom_cuda.so)" ]]; then
  TORCH_LIB=$(timeout 60 python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))' 2>/dev/null)
  [[ -n "$TORCH_LIB" ]] && export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$TORCH_LIB"
  [[ -n "$(missing plugins/cuda/libloom_cuda.so)" ]] && export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$WORK/lib/cudart"
fi
CUDA_MISSING=$(missing plugins/cuda/libloom_cuda.so)
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
echo "libloom_cuda.so resolves: $(ldd plugins/cuda/libloom_cuda.so 2>&1 | awk '/cu(dart|blas|dnn)/ {print $1 " -> " $3}' | tr '\n' ' ')"
if [[ -n "$CUDA_MISSING" ]]; then
  echo "gpu_run: WARNING: libloom_cuda.so cannot find: $CUDA_MISSING (the plugin needs the CUDA 13 libcudart/libcublas/libcublasLt and cuDNN 9; PyTorch's wheels may be built for another CUDA)"
fi
for b in bin/* tests/*; do
  [[ -f "$b" ]] || continue
  m=$(missing "$b")
  [[ -n "$m" ]] && echo "gpu_run: WARNING: $b cannot find: $m"
done
STEP_ROWS+=("| setup (unpack, libraries) | ok | $(($(date +%s) - T0)) s |")

# ---- 2. the CUDA tests --------------------------------------------------------
echo "== [cuda tests] $(ls tests | tr '\n' ' ') (in parallel, timeout 120s each)"
mkdir -p "$RES/cuda_tests"
TS=$(date +%s)
declare -A PIDS=()
for t in tests/*; do
  n=$(basename "$t")
  timeout -k 5 120 "$t" --gtest_color=no >"$RES/cuda_tests/$n.log" 2>&1 &
  PIDS[$n]=$!
done
TEST_ROWS=()
TESTS_FAILED=0
for n in $(printf '%s\n' "${!PIDS[@]}" | sort); do
  wait "${PIDS[$n]}"
  rc=$?
  log="$RES/cuda_tests/$n.log"
  passed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n1)
  skipped=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | tail -n1)
  failed=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n1)
  if ((rc == 124 || rc == 137)); then st="TIMEOUT"; elif ((rc != 0)); then st="FAILED (exit $rc)"; else st="ok"; fi
  [[ "$st" == ok ]] || TESTS_FAILED=1
  # Without a GPU every test skips: say why (the first skip message).
  why=""
  [[ "${skipped:-0}" != 0 ]] && why=$(grep -m1 -o 'cudaError[A-Za-z]*\|found 0 devices' "$log" | head -n1)
  TEST_ROWS+=("| $n | ${passed:-0} | ${skipped:-0} | ${failed:-0} | $st${why:+ (skips: $why)} |")
  echo "   $n: passed ${passed:-0}, skipped ${skipped:-0}, failed ${failed:-0}: $st"
  [[ "$st" == ok ]] || tail -n 15 "$log" | sed 's/^/   | /'
done
STEP_ROWS+=("| CUDA tests | $([[ $TESTS_FAILED == 0 ]] && echo ok || echo 'FAILED (see cuda_tests/)') | $(($(date +%s) - TS)) s |")

# ---- 3. ONNX conformance on CUDA ----------------------------------------------
step "onnx_conformance --device CUDA" 110 "$RES/conformance_cuda.log" \
  bin/onnx_conformance --device CUDA --data_dir "$WORK/data/onnx" --timeout_s 15 --deadline_s 90 \
  --markdown "$RES/CONFORMANCE_CUDA.md" --json "$RES/conformance_cuda.json"
CONFORMANCE=$(grep -m1 '^conformance:' "$RES/conformance_cuda.log")

# ---- 4. the benchmark ----------------------------------------------------------
M="$WORK/models"
step "make_bench_models" 30 "$RES/make_bench_models.log" \
  bash -c "mkdir -p '$M' && bin/make_bench_models '$M' && cd '$M' && sha256sum -c '$WORK/models.sha256'"
p50() { sed -n 's/.*p50 \([0-9.]*\) ms.*/\1/p' "$1" | tail -n1; }
mkdir -p "$RES/lstm4_cpu" "$RES/lstm4_cuda"
step "loom_run lstm4.onnx CPU" 45 "$RES/lstm4_cpu.log" \
  bin/loom_run "$M/lstm4.onnx" "X=$M/lstm4.X.pb" --warmup "$WARMUP" --iterations "$RUNS" --num_threads "$CORES" \
  --output_dir "$RES/lstm4_cpu" --output_raw
step "loom_run lstm4.onnx CUDA" 40 "$RES/lstm4_cuda.log" \
  bin/loom_run "$M/lstm4.onnx" "X=$M/lstm4.X.pb" --device CUDA --warmup "$WARMUP" --iterations "$RUNS" \
  --output_dir "$RES/lstm4_cuda" --output_raw
LSTM_DIFF=$(python3 - "$RES/lstm4_cpu/Y.bin" "$RES/lstm4_cuda/Y.bin" <<'EOF' 2>/dev/null
import array, sys
a, b = array.array("f"), array.array("f")
with open(sys.argv[1], "rb") as f: a.frombytes(f.read())
with open(sys.argv[2], "rb") as f: b.frombytes(f.read())
print("size mismatch" if len(a) != len(b) else "%.3g" % max((abs(x - y) for x, y in zip(a, b)), default=0.0))
EOF
)
step "rnn_bench --device CUDA --streams 1,4" 60 "$RES/rnn_bench_cuda.log" \
  bin/rnn_bench --device CUDA --streams 1,4 --warmup "$WARMUP" --runs "$RUNS"
step "torch_lstm.py" 45 "$RES/torch_lstm.log" \
  env LD_LIBRARY_PATH="$ORIG_LD_LIBRARY_PATH" python3 tools/bench/torch_lstm.py --warmup "$WARMUP" --runs "$RUNS"

# ---- summary -----------------------------------------------------------------
# ms_of LOG REGEX: the last field of the first line matching REGEX (awk ERE).
ms_of() { awk -v re="$2" '$0 ~ re && $NF ~ /^[0-9.]+$/ {print $NF; exit}' "$1" 2>/dev/null; }
CPU_MS=$(p50 "$RES/lstm4_cpu.log")
CUDA_MS=$(p50 "$RES/lstm4_cuda.log")
S1=$(ms_of "$RES/rnn_bench_cuda.log" '^RecurrentNetwork on CUDA, 1 stream ')
S4=$(ms_of "$RES/rnn_bench_cuda.log" '^RecurrentNetwork on CUDA, 4 streams ')
RNN_NOTE=$(grep -m1 '^speedup' "$RES/rnn_bench_cuda.log")
T_STRICT=$(ms_of "$RES/torch_lstm.log" '^torch[.]nn[.]LSTM [(]cuDNN[)], TF32 off  ')
T_DEFAULT=$(ms_of "$RES/torch_lstm.log" '[(]PyTorch default[)]  ')
T_DEFAULT_LABEL=$(grep -m1 -o 'TF32 [a-z]* (PyTorch default)' "$RES/torch_lstm.log")
NA="missing (step failed; see its log)"
ON_CPU=$(grep -m1 -o 'No CUDA kernel (these ops stay on the CPU): .*' "$RES/lstm4_cuda.log" 2>/dev/null | sed 's/.*: //')
{
  echo "### GPU: ${GPU_NAME:-no GPU found}, $(date -u +%Y-%m-%d) (scripts/gpu_run.sh)"
  echo
  echo "Machine: ${GPU_INFO:-no GPU (nvidia-smi failed)}; CPU ${CPU_MODEL:-?}, $CORES cores; PyTorch ${TORCH_INFO:-not importable}."
  echo "4-layer LSTM, hidden 512, input 512, batch 32, T 50, float32; $WARMUP warm-up runs, median of $RUNS timed runs."
  echo
  echo "| 4-layer LSTM | median ms | notes |"
  echo "|---|---|---|"
  echo "| Loom, lstm4.onnx on the CPU (oneDNN LSTM, $CORES threads) | ${CPU_MS:-$NA} | loom_run --num_threads $CORES |"
  echo "| Loom, lstm4.onnx on CUDA (cuDNN LSTM) | ${CUDA_MS:-$NA} | loom_run --device CUDA (weights preloaded; X copied in and Y out every run); largest difference from the CPU output: ${LSTM_DIFF:-n/a}${ON_CPU:+; ops left on the CPU (no CUDA kernel): $ON_CPU} |"
  echo "| Loom, RecurrentNetwork on CUDA, 1 stream | ${S1:-$NA} | rnn_bench --device CUDA: step net of standard ops (MatMul, Add, Split, Sigmoid, Tanh, Mul) |"
  echo "| Loom, RecurrentNetwork on CUDA, 4 streams | ${S4:-$NA} | timestep t on stream t mod 4; ${RNN_NOTE:-} |"
  echo "| PyTorch torch.nn.LSTM (cuDNN), TF32 off | ${T_STRICT:-$NA} | tools/bench/torch_lstm.py |"
  echo "| PyTorch torch.nn.LSTM (cuDNN), ${T_DEFAULT_LABEL:-default} | ${T_DEFAULT:-$NA} | |"
  echo
  echo "CUDA tests:"
  echo
  echo "| test binary | passed | skipped | failed | status |"
  echo "|---|---|---|---|---|"
  printf '%s\n' "${TEST_ROWS[@]}"
  echo
  echo "ONNX conformance on CUDA: ${CONFORMANCE:-$NA} (CONFORMANCE_CUDA.md)."
  echo
  echo "| step | status | time |"
  echo "|---|---|---|"
  printf '%s\n' "${STEP_ROWS[@]}"
  echo
  echo "Total $(($(date +%s) - T0)) s."
} >"$RES/SUMMARY.md"
echo
echo "== SUMMARY ($RES/SUMMARY.md)"
cat "$RES/SUMMARY.md"
cd / && [[ -n "$CLEANUP" ]] && rm -rf "$WORK"
exit 0
