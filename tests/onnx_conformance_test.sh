#!/usr/bin/env bash
# Runs the ONNX conformance suite and fails if a test listed in
# tests/conformance_expected_passes.txt no longer passes. Skips (passes with
# a message) when libonnx-testdata is not installed.
set -uo pipefail
runner=$1 expected=$2
if [[ ! -d /usr/share/libonnx-testdata/data ]]; then
  echo "SKIP: /usr/share/libonnx-testdata/data not found (scripts/setup.sh installs libonnx-testdata)"
  exit 0
fi
"$runner" --expected "$expected"
