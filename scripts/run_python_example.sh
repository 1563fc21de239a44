#!/usr/bin/env bash
# The `loom` Python module on a real model: builds the package
# (//python:package), then python/examples/read_text.py reads a line of
# text ("$1", default "Hello from Python") rendered by ImageMagick with
# PP-OCRv4. Installs what the build needs first (scripts/setup.sh) and
# fetches the models (scripts/fetch_models.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/fetch_models.sh >/dev/null
bazel build //python:package
PYTHONPATH=bazel-bin/python/pkg exec /usr/bin/python3 python/examples/read_text.py "$@"
