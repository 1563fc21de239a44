#!/usr/bin/env bash
# Makes the self-contained GPU bundle (issue 5): everything scripts/gpu_run.sh
# needs on a GPU machine that has no Bazel, no package registry and no
# internet, only a CUDA 13 driver and PyTorch (whose pip wheels provide
# libcudart/libcublas/libcublasLt/libcudnn under site-packages/nvidia/*/lib).
#
#   scripts/make_gpu_bundle.sh [BUNDLE_DIR=.gpu_bundle]
#
# BUNDLE_DIR (git-ignored) holds three files:
#   gpu_run.sh        the run script (a copy of scripts/gpu_run.sh)
#   payload.tar.xz    bin/      loom_run, loom_inspect, onnx_conformance,
#                               rnn_bench, make_bench_models
#                     bin/loom_plugins/  the default plugins (CPU, example, rnn, controlflow)
#                     tests/    every cc_test of plugins/cuda (the CUDA tests
#                               and caching_allocator_test)
#                     plugins/{cpu,cuda,rnn,controlflow,example}/lib*.so  at the
#                               runfiles-relative paths the tests and tools
#                               open from the current folder
#                               (testing/op_runner.cc and
#                               plugins/cuda/cuda_test_util.cc load
#                               "plugins/cpu/libloom_cpu.so" and
#                               "plugins/cuda/libloom_cuda.so"; gpu_run.sh
#                               runs everything from the payload root)
#                     lib/      the non-system shared libraries from ldd
#                               (protobuf, Abseil, onnx/onnx_proto, oneDNN,
#                               libgomp, libOpenCL, zlib, benchmark, and the
#                               test binaries' Bazel-internal _solib libraries)
#                     lib/compat/  libstdc++ and libgcc_s, used by gpu_run.sh
#                               only if the machine's own are too old
#                     lib/cudart/  libcudart.so.13, used only if PyTorch's
#                               wheels do not provide it
#                     data/onnx/   the ONNX backend test data (libonnx-testdata)
#                     tools/bench/torch_lstm.py
#                     models.sha256  checksums of make_bench_models' output
#   MANIFEST.txt      what is in the payload, with sizes
# Not bundled: glibc (libc, libm, libdl, librt, libpthread, ld-linux) and
# the CUDA libraries (cudart/cuBLAS/cuBLASLt/cuDNN come from PyTorch's
# wheels). The benchmark models (about 120 MB of float32 weights, which do
# not compress) are not shipped: make_bench_models is, and gpu_run.sh
# generates them there (deterministic; checked against models.sha256, made
# here at bundle time). Fails if the bundle is 64 MiB or more; prints its
# size.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUNDLE=${1:-.gpu_bundle}
LIMIT=$((64 * 1024 * 1024))
BAZEL_FLAGS=(--config=cuda)

echo "make_gpu_bundle: building (bazel build --config=cuda)"
TESTS=$(bazel query 'kind(cc_test, //plugins/cuda:all)' 2>/dev/null)
[[ -n "$TESTS" ]] || { echo "make_gpu_bundle: bazel query found no cc_test in //plugins/cuda" >&2; exit 1; }
TOOLS=(//tools:loom_run //tools:loom_inspect //tools/onnx:onnx_conformance //tools/bench:rnn_bench
       //tools/bench:make_bench_models)
PLUGINS=(//plugins/cpu:libloom_cpu.so //plugins/cuda:libloom_cuda.so //plugins/rnn:libloom_rnn.so
         //plugins/controlflow:libloom_controlflow.so //plugins/example:libloom_example.so)
# shellcheck disable=SC2086
bazel build "${BAZEL_FLAGS[@]}" $TESTS "${TOOLS[@]}" "${PLUGINS[@]}"
BIN=$(bazel info "${BAZEL_FLAGS[@]}" bazel-bin 2>/dev/null)

STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
P=$STAGE/payload
mkdir -p "$P"/{bin/loom_plugins,tests,lib/compat,lib/cudart,data/onnx,tools/bench}
copy() { cp -L "$1" "$2" && chmod u+w "$2"; }  # -L: bazel-bin entries are symlinks

ORIGINALS=()  # ldd runs on these: the test binaries' rpath is relative to bazel-bin
for t in "${TOOLS[@]}"; do
  rel=${t#//}; rel=${rel/://}
  copy "$BIN/$rel" "$P/bin/${t##*:}"
  ORIGINALS+=("$BIN/$rel")
done
for p in "${PLUGINS[@]}"; do
  rel=${p#//}; rel=${rel/://}
  mkdir -p "$P/$(dirname "$rel")"
  copy "$BIN/$rel" "$P/$rel"
  ORIGINALS+=("$BIN/$rel")
done
for p in cpu/libloom_cpu.so example/libloom_example.so rnn/libloom_rnn.so controlflow/libloom_controlflow.so; do
  copy "$P/plugins/$p" "$P/bin/loom_plugins/$(basename "$p")"
done
for t in $TESTS; do
  rel=${t#//}; rel=${rel/://}
  copy "$BIN/$rel" "$P/tests/$(basename "$rel")"
  ORIGINALS+=("$BIN/$rel")
done

# Shared libraries, from ldd of every binary and plugin (ldd also resolves
# the test binaries' rpath into bazel-bin/_solib_k8).
is_system() {
  case "$1" in
    linux-vdso.so*|ld-linux*|libc.so*|libm.so*|libdl.so*|librt.so*|libpthread.so*|libutil.so*|libresolv.so*) return 0 ;;
    libstdc++.so*|libgcc_s.so*) return 0 ;;  # into lib/compat, used only as a fallback
    libcuda.so*|libcudart.so*|libcublas*.so*|libcudnn*.so*|libnvrtc*|libnvJitLink*|libcufft*|libcurand*|libcusparse*|libcusolver*) return 0 ;;
  esac
  return 1
}
declare -A seen=()
for f in "${ORIGINALS[@]}"; do
  while read -r name arrow path _; do
    [[ "$arrow" == "=>" ]] || continue
    if [[ "$path" == "not" ]]; then
      if ! is_system "$name"; then echo "make_gpu_bundle: $f needs $name, which ldd does not find here" >&2; exit 1; fi
      continue
    fi
    is_system "$name" && continue
    [[ -n "${seen[$name]:-}" ]] && continue
    seen[$name]=1
    copy "$path" "$P/lib/$name"
  done < <(ldd "$f" 2>/dev/null)
done
for l in libstdc++.so.6 libgcc_s.so.1; do
  copy "$(ldconfig -p | awk -v l="$l" '$1 == l && /x86-64/ {print $NF; exit}')" "$P/lib/compat/$l"
done
CUDA_HOME=${CUDA_PATH:-/usr/local/cuda}
copy "$CUDA_HOME/lib64/libcudart.so.13" "$P/lib/cudart/libcudart.so.13"
strip --strip-unneeded "$P"/lib/*.so* 2>/dev/null || true

# The ONNX backend test data (the suites onnx_conformance runs).
DATA=/usr/share/libonnx-testdata/data
for s in node pytorch-converted pytorch-operator simple; do
  [[ -d "$DATA/$s" ]] || { echo "make_gpu_bundle: no $DATA/$s (install libonnx-testdata: scripts/setup.sh)" >&2; exit 1; }
  cp -r "$DATA/$s" "$P/data/onnx/"
done

cp tools/bench/torch_lstm.py "$P/tools/bench/"
cp scripts/gpu_run.sh "$P/gpu_run.sh"

# Models: generated here once to record their checksums (gpu_run.sh
# regenerates them with the bundled make_bench_models and compares).
mkdir -p "$STAGE/models"
"$P/bin/make_bench_models" "$STAGE/models" >/dev/null
(cd "$STAGE/models" && sha256sum lstm4.onnx lstm4.X.pb) > "$P/models.sha256"

rm -rf "$BUNDLE"
mkdir -p "$BUNDLE"
(cd "$P" && find . -type f -printf '%s\t%p\n' | sort -k2) > "$BUNDLE/MANIFEST.txt"
XZ_OPT="-6 -T2" tar -C "$P" -cJf "$BUNDLE/payload.tar.xz" .
cp scripts/gpu_run.sh "$BUNDLE/gpu_run.sh"
chmod +x "$BUNDLE/gpu_run.sh"

size=$(du -sb "$BUNDLE" | cut -f1)
unpacked=$(du -sb "$P" | cut -f1)
printf 'make_gpu_bundle: %s: %d bytes (%.1f MiB; %.1f MiB unpacked), limit 64 MiB\n' "$BUNDLE" "$size" \
  "$(awk "BEGIN{print $size/1048576}")" "$(awk "BEGIN{print $unpacked/1048576}")"
if ((size >= LIMIT)); then
  echo "make_gpu_bundle: the bundle is over 64 MiB" >&2
  exit 1
fi
echo "make_gpu_bundle: run it on the GPU machine with: bash $BUNDLE/gpu_run.sh [RESULTS_DIR]"
