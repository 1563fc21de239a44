#!/usr/bin/env bash
# //python:python_test: runs pytest on python/tests with the package that
# //python:package assembled. $1: the interpreter (@local_python//:python3).
set -euo pipefail
python="$1"
root="${TEST_SRCDIR}/${TEST_WORKSPACE}"
export PYTHONPATH="${root}/python/pkg"
export LOOM_DEFAULT_MODEL="${root}/tools/models/default_cnn.pb"
export LOOM_TEST_PLUGIN="${root}/tests/plugins/libfake_device.so"
# The C++ trainer the Python training loops are compared with.
export LOOM_TRAIN="${root}/tools/loom_train"
export LOOM_MAKE_MLP="${root}/tools/train/make_mlp"
export LOOM_EXAMPLES="${root}/python/examples"
cd "${root}"
exec "${python}" -m pytest -q -p no:cacheprovider python/tests
