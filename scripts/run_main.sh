#!/usr/bin/env bash
# The main job: installs what the build needs, builds the tools and plugins,
# and runs loom_run. With no arguments it runs the default model that ships
# with Loom; arguments are passed to loom_run (see tools/loom_run.cc).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
bazel build //tools:loom_run //tools:loom_inspect
exec bazel-bin/tools/loom_run "$@"
