#!/usr/bin/env bash
# Installs what the build needs, builds everything and runs the whole test
# suite, then prints a closing line "N passed, M failed" counted from Bazel's
# per-target results (a build that fails before any test runs counts as one
# failure). Extra arguments go to `bazel test`. Where a CUDA toolkit is
# installed (/usr/local/cuda or $CUDA_PATH), builds with --config=cuda.
set -uo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh || { echo "0 passed, 1 failed"; exit 1; }

# With a CUDA toolkit on the machine the CUDA plugin and its tests are built
# too (they skip at run time when no GPU answers).
config=()
if [[ -x "${CUDA_PATH:-/usr/local/cuda}/bin/nvcc" ]]; then config=(--config=cuda); fi

log=$(mktemp)
bazel test "${config[@]}" //... "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}

passed=$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$log")
failed=$(grep -cE '^//[^ ]+ +(\(cached\) )?(FAILED|TIMEOUT|NO STATUS|INCOMPLETE|FLAKY|FAILED TO BUILD)' "$log")
if [[ $rc -ne 0 && $failed -eq 0 ]]; then failed=1; fi  # the build itself failed
rm -f "$log"
echo "${passed} passed, ${failed} failed"
[[ $rc -eq 0 ]]
