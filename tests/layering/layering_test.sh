#!/bin/bash
# Checks the dependency rules of tests/layering/BUILD. Each argument is a
# genquery output, <name>_deps: the labels a root target depends on,
# transitively.
set -u
OUTSIDE_CORE='^//(ops|plugins|frontend|transforms|session|tools|testing|python)[/:]'
# name;root;forbidden labels (regex);why
RULES="
core_ir;//core:ir;^//core(:(registry|planning|executors|plugin_api|loom)$|/autodiff);the IR layer is the lowest
core_registry;//core:registry;^//core(:(planning|executors|plugin_api|loom)$|/autodiff);the registry is below planning
core_planning;//core:planning;^//core(:(executors|plugin_api|loom)$|/autodiff);planning is below the executors
core_executors;//core:executors;^//core(:(plugin_api|loom)$|/autodiff);the executors are below the plugin boundary
core_plugin_api;//core:plugin_api;^//core/autodiff;autodiff is above the plugin boundary
core_autodiff;//core/autodiff:autodiff;^$;
session;//session:session;^//(tools|plugins|testing|python)[/:];the Session is the library the tools and Python use
frontend_onnx;//frontend/onnx:onnx_importer;^//(transforms|ops|plugins|session|tools)[/:];the ONNX frontend only converts
transforms;//transforms:transforms;^//(frontend|plugins|session|tools)[/:];transforms rewrite NetDefs, whatever made them
"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# forbid <deps file> <root label> <regex of forbidden labels> <why>
forbid() {
  local bad
  bad=$(grep -E "$3" "$1" | grep -vx "$2")
  if [[ -n "$bad" ]]; then fail "$2 depends on $(echo "$bad" | tr '\n' ' ')($4)"; fi
}

declare -A files
for f in "$@"; do files[$(basename "$f")]=$f; done
checked=0
while IFS=';' read -r name root pattern why; do
  [[ -z "$name" ]] && continue
  file=${files[${name}_deps]:-}
  if [[ -z "$file" ]]; then fail "no dependency list ${name}_deps among the arguments"; continue; fi
  # A list without its own root is not the query this test expects.
  if ! grep -qx "$root" "$file"; then fail "$file does not list its root $root"; continue; fi
  forbid "$file" "$root" "$pattern" "$why"
  if [[ $name == core_* ]]; then forbid "$file" "$root" "$OUTSIDE_CORE" "core/ stands on nothing outside it"; fi
  checked=$((checked + 1))
done <<<"$RULES"
if [[ $failures -gt 0 ]]; then
  echo "$failures layering rule(s) broken"
  exit 1
fi
echo "all layering rules hold over $checked targets"
