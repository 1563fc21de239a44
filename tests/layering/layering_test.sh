#!/bin/bash
# Checks the dependency rules of tests/layering/BUILD. Each argument is a
# genquery output: the labels a root target depends on, transitively.
set -u
OUTSIDE_CORE='^//(ops|plugins|frontend|transforms|session|tools|testing|python)[/:]'
failures=0

# forbid <deps file> <root label> <regex of forbidden labels> <why>
forbid() {
  local file=$1 root=$2 pattern=$3 why=$4
  if ! grep -qx "$root" "$file"; then
    echo "FAIL: $file does not list its own root $root: the query is not what this test expects"
    failures=$((failures + 1))
    return
  fi
  local bad
  bad=$(grep -E "$pattern" "$file" | grep -vx "$root")
  if [[ -n "$bad" ]]; then
    echo "FAIL: $root depends on $(echo "$bad" | tr '\n' ' ')($why)"
    failures=$((failures + 1))
  fi
}

for f in "$@"; do
  case "$(basename "$f")" in
    core_ir_deps)
      forbid "$f" //core:ir '^//core(:(registry|planning|executors|plugin_api|loom)$|/autodiff)' \
        "the IR layer is the lowest"
      forbid "$f" //core:ir "$OUTSIDE_CORE" "core/ stands on nothing outside it" ;;
    core_registry_deps)
      forbid "$f" //core:registry '^//core(:(planning|executors|plugin_api|loom)$|/autodiff)' \
        "the registry is below planning"
      forbid "$f" //core:registry "$OUTSIDE_CORE" "core/ stands on nothing outside it" ;;
    core_planning_deps)
      forbid "$f" //core:planning '^//core(:(executors|plugin_api|loom)$|/autodiff)' \
        "planning is below the executors"
      forbid "$f" //core:planning "$OUTSIDE_CORE" "core/ stands on nothing outside it" ;;
    core_executors_deps)
      forbid "$f" //core:executors '^//core(:(plugin_api|loom)$|/autodiff)' \
        "the executors are below the plugin boundary"
      forbid "$f" //core:executors "$OUTSIDE_CORE" "core/ stands on nothing outside it" ;;
    core_plugin_api_deps)
      forbid "$f" //core:plugin_api '^//core/autodiff' "autodiff is above the plugin boundary"
      forbid "$f" //core:plugin_api "$OUTSIDE_CORE" "core/ stands on nothing outside it" ;;
    core_autodiff_deps)
      forbid "$f" //core/autodiff:autodiff "$OUTSIDE_CORE" "core/ stands on nothing outside it" ;;
    session_deps)
      forbid "$f" //session:session '^//(tools|plugins|testing|python)[/:]' \
        "the Session is the library the tools and Python use" ;;
    frontend_onnx_deps)
      forbid "$f" //frontend/onnx:onnx_importer '^//(transforms|ops|plugins|session|tools)[/:]' \
        "the ONNX frontend only converts" ;;
    transforms_deps)
      forbid "$f" //transforms:transforms '^//(frontend|plugins|session|tools)[/:]' \
        "transforms rewrite NetDefs, whatever made them" ;;
    *) echo "FAIL: unexpected argument $f"; failures=$((failures + 1)) ;;
  esac
done
if [[ $# -ne 9 ]]; then
  echo "FAIL: expected 9 dependency lists, got $#"
  failures=$((failures + 1))
fi
if [[ $failures -gt 0 ]]; then
  echo "$failures layering rule(s) broken"
  exit 1
fi
echo "all layering rules hold over $# targets"
