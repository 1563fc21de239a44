#!/usr/bin/env bash
# Plugins link nothing from the core: no undefined symbol of any plugin may
# name Loom's core (namespace loom, Loom* C functions), Abseil or protobuf.
# Each plugin must export exactly one Loom symbol: LoomPluginInit.
set -euo pipefail
status=0
count=0
for so in "$@"; do
  count=$((count + 1))
  undefined=$(nm -D --undefined-only "$so" | awk '{print $NF}')
  bad=$(grep -E '(_ZN4loom|^Loom|absl|google8protobuf|_ZN6google)' <<<"$undefined" || true)
  if [[ -n "$bad" ]]; then
    echo "FAIL: $so needs core symbols:"; echo "$bad" | c++filt; status=1
  fi
  exported=$(nm -D --defined-only "$so" | awk '{print $NF}' | grep -E '^Loom' || true)
  if [[ "$exported" != "LoomPluginInit" ]]; then
    echo "FAIL: $so exports '$exported' (expected only LoomPluginInit)"; status=1
  fi
  echo "ok: $so"
done
[[ $count -gt 0 ]] || { echo "FAIL: no plugins given"; exit 1; }
exit $status
