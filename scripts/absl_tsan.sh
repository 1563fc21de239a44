#!/usr/bin/env bash
# Builds Debian's Abseil (the exact version of the installed libabsl-dev,
# from its Debian source package) with ThreadSanitizer, as shared libraries
# with the same sonames, and prints the folder that holds them.
#
# Why: absl::Mutex synchronizes through atomics and futexes inside
# libabsl_synchronization.so. Debian's build of it is not instrumented, so
# ThreadSanitizer never sees its lock and unlock and reports every access to
# data an absl::Mutex guards as a race. scripts/sanitize.sh tsan puts this
# folder on LD_LIBRARY_PATH; the headers are the installed ones (same
# version, same absl/base/options.h), so Loom's objects need no rebuild.
#
# Source: <mirror>/pool/main/a/abseil/ (default mirror http://deb.debian.org/debian,
# LOOM_DEBIAN_MIRROR to change it); the files' SHA-256 sums are checked
# against the .dsc before unpacking. Result cached in
# ${LOOM_ABSL_TSAN_DIR:-$HOME/.cache/loom-absl-tsan-<version>}; about one
# minute of two cores to build. Needs cmake, ninja-build, dpkg-dev, curl
# (installed here when missing).
set -euo pipefail

version=$(dpkg-query -W -f='${Version}' libabsl-dev 2>/dev/null) || {
  echo "absl_tsan.sh: libabsl-dev is not installed (scripts/setup.sh installs it)" >&2; exit 1; }
upstream=${version#*:}
upstream=${upstream%-*}
dir=${LOOM_ABSL_TSAN_DIR:-$HOME/.cache/loom-absl-tsan-$version}
if [[ -f $dir/lib/libabsl_synchronization.so && -f $dir/.complete ]]; then
  echo "$dir/lib"; exit 0
fi

missing=()
for p in cmake ninja-build dpkg-dev curl; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO=sudo
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

mirror=${LOOM_DEBIAN_MIRROR:-http://deb.debian.org/debian}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
dsc="abseil_${version#*:}.dsc"
curl -fsS -O "$mirror/pool/main/a/abseil/$dsc" >&2
# Every file the .dsc lists, checked against its SHA-256 there.
sed -n '/^Checksums-Sha256:/,/^[^ ]/p' "$dsc" | awk 'NF == 3 {print $1, $3}' > sums
[[ -s sums ]] || { echo "absl_tsan.sh: no Checksums-Sha256 in $dsc" >&2; exit 1; }
while read -r _ file; do curl -fsS -O "$mirror/pool/main/a/abseil/$file" >&2; done < sums
awk '{print $1 "  " $2}' sums | sha256sum -c --quiet - >&2
dpkg-source --no-check -x "$dsc" src >/dev/null  # sums checked above
# The headers Loom compiles against are the installed ones: the options
# (std:: types or Abseil's own) must match them.
cmp -s src/absl/base/options.h /usr/include/absl/base/options.h || {
  echo "absl_tsan.sh: absl/base/options.h of the source differs from the installed one" >&2; exit 1; }

cmake -S src -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_STANDARD=17 \
  -DBUILD_SHARED_LIBS=ON -DBUILD_TESTING=OFF \
  -DCMAKE_CXX_FLAGS="-fsanitize=thread -fno-omit-frame-pointer" \
  -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread -DCMAKE_INSTALL_PREFIX="$dir" >&2
ninja -C build install >&2
touch "$dir/.complete"
echo "$dir/lib"
