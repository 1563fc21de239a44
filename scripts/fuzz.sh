#!/usr/bin/env bash
# Builds Loom's libFuzzer targets (tools/fuzz, clang + ASan + UBSan, in its
# own Bazel output base), makes their seed corpora and runs each one.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET | -runs=N] [TARGET...]
#
# TARGET: onnx_import netdef_binary netdef_text tensor_proto net_plan
# (default: all). Default time: 60 s per target. A finding does not end
# the run (time mode uses libFuzzer's -fork=1 with -ignore_crashes).
# Prints per target: executions, exec/s, new corpus units,
# edges covered, corpus size, crash inputs (distinct reports); the same table
# goes to $WORK/summary.md, the findings to $WORK/findings.md.
#
# Crash inputs (crash-*, leak-*, timeout-*, oom-*), the first of each
# distinct report, go to tools/fuzz/regressions/<target>/: the replay tests
# (bazel test //tools/fuzz/...) run them; list a reported but unfixed one in
# that folder's KNOWN_OPEN (tools/fuzz/README.md).
# Corpora live in $WORK/corpus/<target> (default ~/.cache/loom-fuzz; not
# committed). Environment: LOOM_FUZZ_OUTPUT_BASE (Bazel output base, default
# ~/.cache/loom-fuzz-bazel), LOOM_FUZZ_WORK, LOOM_FUZZ_JOBS (Bazel --jobs),
# LOOM_FUZZ_FLAGS (more libFuzzer flags), LOOM_FUZZ_NO_BUILD=1,
# LOOM_FUZZ_SUMMARY / LOOM_FUZZ_FINDINGS (output files).
set -eu  # no pipefail: `grep | head` pipelines end early by design
cd "$(dirname "$0")/.."
ROOT=$PWD

ALL_TARGETS=(onnx_import netdef_binary netdef_text tensor_proto net_plan)
BUDGET=${1:-60}
[[ $# -gt 0 ]] && shift
TARGETS=("$@")
[[ ${#TARGETS[@]} -eq 0 ]] && TARGETS=("${ALL_TARGETS[@]}")
for t in "${TARGETS[@]}"; do
  [[ " ${ALL_TARGETS[*]} " == *" $t "* ]] || { echo "unknown target '$t' (${ALL_TARGETS[*]})" >&2; exit 2; }
done
if [[ $BUDGET == -runs=* ]]; then MODE=runs; else MODE=time; [[ $BUDGET =~ ^[0-9]+$ ]] || { echo "usage: $0 [SECONDS|-runs=N] [TARGET...]" >&2; exit 2; }; fi

# What the build needs, plus clang-14 with libFuzzer and its sanitizer
# runtimes, and the ONNX test data for the seeds (Debian packages).
./scripts/setup.sh
missing=()
for p in clang libclang-rt-14-dev libonnx-testdata; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO=sudo
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

OUTPUT_BASE=${LOOM_FUZZ_OUTPUT_BASE:-$HOME/.cache/loom-fuzz-bazel}
WORK=${LOOM_FUZZ_WORK:-$HOME/.cache/loom-fuzz}
BAZEL=(bazel --output_base="$OUTPUT_BASE")
ONNX_DATA=/usr/share/libonnx-testdata/data

# --- build ----------------------------------------------------------------
if [[ -z ${LOOM_FUZZ_NO_BUILD:-} ]]; then
  "${BAZEL[@]}" build --config=fuzz --symlink_prefix=/ ${LOOM_FUZZ_JOBS:+--jobs=$LOOM_FUZZ_JOBS} \
    //tools/fuzz:all_fuzzers //tools/fuzz:make_seeds //tools:default_model
fi
BIN=$("${BAZEL[@]}" info --config=fuzz bazel-bin 2>/dev/null)

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
export OMP_NUM_THREADS=1
export LOOM_FUZZ_CPU_PLUGIN=$BIN/plugins/cpu/libloom_cpu.so

# --- seed corpora -----------------------------------------------------------
SEEDS="$WORK/seeds.$$"  # per invocation: several may run at once
mkdir -p "$SEEDS" "$WORK/logs"
ASAN_OPTIONS=detect_leaks=0 "$BIN/tools/fuzz/make_seeds" "$SEEDS" "$BIN/tools/models/default_cnn.pb" >/dev/null
mkdir -p "$SEEDS/onnx_import" "$SEEDS/net_plan"
if [[ -d $ONNX_DATA ]]; then
  # ONNX models (libonnx-testdata) under 64 KiB, and their tensors (with the
  # tensor_proto target's format byte 1 = ONNX) under 16 KiB.
  while IFS= read -r f; do
    name=$(basename "$(dirname "$f")")
    cp "$f" "$SEEDS/onnx_import/$name.onnx"
  done < <(find "$ONNX_DATA" -name model.onnx -size -64k)
  while IFS= read -r f; do
    name=$(echo "${f#"$ONNX_DATA"/}" | tr '/' '_')
    { printf '\001'; cat "$f"; } > "$SEEDS/tensor_proto/$name"
  done < <(find "$ONNX_DATA" -name '*put_*.pb' -size -16k | head -400)
else
  echo "note: $ONNX_DATA missing (apt-get install libonnx-testdata): no ONNX seeds" >&2
fi
# net_plan is structure-aware: any bytes make a net; a few random starts.
for i in $(seq 1 16); do head -c $((64 * i)) /dev/urandom > "$SEEDS/net_plan/random_$i"; done

# --- run --------------------------------------------------------------------
# Time mode runs libFuzzer with -fork=1 -ignore_crashes/ooms/timeouts: a
# finding ends one job, not the run. Artifacts go to $WORK/artifacts/<target>;
# afterwards each is replayed once and the first of each distinct report
# (sanitizer error + top frames) is copied into tools/fuzz/regressions/<target>/
# and described in $WORK/findings.md.
SUMMARY=${LOOM_FUZZ_SUMMARY:-$WORK/summary.md}
FINDINGS=${LOOM_FUZZ_FINDINGS:-$WORK/findings.md}
{
  echo "| target | executions | exec/s | seconds | new units | edges (cov) | corpus size | crash inputs (distinct) |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
} > "$SUMMARY"

# A report's signature: the first error line (addresses removed) and the
# first three frames in Loom or in a system library.
signature() {
  local out
  out=$("$1" -runs=1 "$2" 2>&1 || true)
  {
    echo "$out" | grep -aE 'ERROR: |runtime error:|LOOM_FUZZ_CHECK|out-of-memory|timeout' | head -1 |
      sed -E 's/==[0-9]+==//; s/0x[0-9a-f]+/ADDR/g; s/ \(pc .*//; s/^.*(runtime error:)/\1/'
    echo "$out" | grep -aE '^ +#[0-9]+ ' | grep -avE 'libFuzzer|fuzzer::|__sanitizer|__asan|__ubsan|compiler-rt|libc\.so|LoomFuzzOne|LLVMFuzzer|/fuzz_main' |
      head -3 | sed -E 's/^ +#[0-9]+ 0x[0-9a-f]+ in //; s/ \(BuildId.*//; s/\+0x[0-9a-f]+\)/)/'
  }
}

for t in "${TARGETS[@]}"; do
  corpus="$WORK/corpus/$t"
  regress="$ROOT/tools/fuzz/regressions/$t"
  arts="$WORK/artifacts/$t"
  fuzzer="$BIN/tools/fuzz/${t}_fuzzer"
  mkdir -p "$corpus" "$regress" "$arts"
  rm -f "$arts"/*
  for d in "$SEEDS/$t" "$ROOT/tools/fuzz/seeds/$t"; do
    [[ -d $d ]] && find "$d" -type f -exec cp -n {} "$corpus/" \;
  done
  before=$(find "$corpus" -type f | wc -l)
  log="$WORK/logs/$t.log"
  start=$(date +%s)
  common=(-timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 -artifact_prefix="$arts/")
  set +e
  if [[ $MODE == runs ]]; then
    "$fuzzer" "$BUDGET" "${common[@]}" ${LOOM_FUZZ_FLAGS:-} "$corpus" > "$log" 2>&1
  else
    "$fuzzer" -fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1 -max_total_time="$BUDGET" \
      "${common[@]}" ${LOOM_FUZZ_FLAGS:-} "$corpus" > "$log" 2>&1
  fi
  set -e
  secs=$(($(date +%s) - start)); ((secs > 0)) || secs=1
  if [[ $MODE == runs ]]; then
    execs=$(grep -a '^stat::number_of_executed_units:' "$log" | tail -1 | awk '{print $2}' || true)
  else
    execs=$(grep -aoE '^#[0-9]+: cov' "$log" | tail -1 | tr -dc '0-9' || true)
  fi
  execs=${execs:-0}
  cov=$(grep -aoE '^#[0-9]+.*cov: [0-9]+' "$log" | tail -1 | sed -E 's/.*cov: //' || true)
  size=$(find "$corpus" -type f | wc -l)
  # Triage.
  n_art=0; n_new=0
  declare -A seen=()
  for f in "$arts"/*; do
    [[ -f $f ]] || continue
    n_art=$((n_art + 1))
    ((n_art <= 40)) || continue
    sig=$(signature "$fuzzer" "$f")
    key=$(echo "$sig" | head -2 | md5sum | cut -c1-12)
    [[ -n ${seen[$key]:-} ]] && continue
    seen[$key]=1
    n_new=$((n_new + 1))
    dest="$regress/$(basename "$f")"
    cp "$f" "$dest"
    { echo "### $t: ${dest#"$ROOT"/}"; echo '```'; echo "$sig"; echo '```'; } >> "$FINDINGS"
    echo "  $t finding: ${dest#"$ROOT"/}"; echo "$sig" | sed 's/^/      /'
  done
  unset seen
  echo "| $t | $execs | $((execs / secs)) | $secs | $((size - before)) | ${cov:-?} | $size | $n_art ($n_new) |" >> "$SUMMARY"
  echo "$t: $execs executions, $((execs / secs)) exec/s, ${secs}s, $((size - before)) new units, cov ${cov:-?}, corpus $size, crash inputs $n_art ($n_new distinct)"
done
rm -rf "$SEEDS"
echo
cat "$SUMMARY"
