#!/usr/bin/env bash
# Installs what the build needs, builds everything and runs the whole test
# suite, then the out-of-tree example (scripts/example_out_of_tree.sh),
# then the Python wheel in a fresh virtual environment
# (scripts/python_wheel_smoke.sh), then the suite under the sanitizers (scripts/sanitize.sh: asan =
# AddressSanitizer + UndefinedBehaviorSanitizer over every test, tsan =
# ThreadSanitizer over the threaded code's tests, leaks = LeakSanitizer over
# the single-threaded tests), and prints one closing line "N passed, M
# failed" summed over the runs (Bazel's per-target results; a build that
# fails before any test runs counts as one failure).
#
# Extra arguments go to the normal run's `bazel test`. LOOM_SANITIZE picks
# the sanitizer runs (default "asan leaks tsan"; "" for none). Where a CUDA
# toolkit is installed (/usr/local/cuda or $CUDA_PATH), builds with
# --config=cuda.
set -uo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh || { echo "0 passed, 1 failed"; exit 1; }

# With a CUDA toolkit on the machine the CUDA plugin and its tests are built
# too (they skip at run time when no GPU answers).
config=()
if [[ -x "${CUDA_PATH:-/usr/local/cuda}/bin/nvcc" ]]; then config=(--config=cuda); fi

total_passed=0 total_failed=0 rc_all=0
count() {  # count LOG RC: adds LOG's per-target results to the totals
  local passed failed
  passed=$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$1")
  failed=$(grep -cE '^//[^ ]+ +(\(cached\) )?(FAILED|TIMEOUT|NO STATUS|INCOMPLETE|FLAKY|FAILED TO BUILD)' "$1")
  if [[ $2 -ne 0 && $failed -eq 0 ]]; then failed=1; fi  # the build itself failed
  echo "$3: ${passed} passed, ${failed} failed"
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
  if [[ $2 -ne 0 ]]; then rc_all=1; fi
}

# A script's own closing "N passed, M failed" added to the totals.
run_counted() {  # run_counted NAME SCRIPT
  local rc summary p f
  "$2" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  if summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -1) && [[ -n "$summary" ]]; then
    read -r p _ f _ <<<"$summary"
  else
    p=0 f=1
  fi
  echo "$1: ${p} passed, ${f} failed"
  total_passed=$((total_passed + p)) total_failed=$((total_failed + f))
  if [[ $rc -ne 0 ]]; then rc_all=1; fi
}

log=$(mktemp)
# Memory the planner lets go is filled with NaN (core/memory_plan.h): a
# kernel reading after reuse fails its test, conformance and real models
# included.
bazel test "${config[@]}" --test_env=LOOM_POISON_RELEASED_MEMORY=1 //... "$@" 2>&1 | tee "$log"
count "$log" "${PIPESTATUS[0]}" "suite"
# The out-of-tree example (examples/ocr_session): its own workspace analysed,
# then built and run from this one as @ocr_session, on the suite's outputs.
run_counted example ./scripts/example_out_of_tree.sh
# The Python wheel installed with pip into a fresh virtual environment, its
# examples run from there in their smoke modes.
run_counted wheel ./scripts/python_wheel_smoke.sh
for mode in ${LOOM_SANITIZE-asan leaks tsan}; do
  ./scripts/sanitize.sh "$mode" 2>&1 | tee "$log"
  count "$log" "${PIPESTATUS[0]}" "sanitizer $mode"
done
rm -f "$log"
echo "${total_passed} passed, ${total_failed} failed"
[[ $rc_all -eq 0 ]]
