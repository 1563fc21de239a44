#!/bin/bash
# The core keeps no per-thread or process environment state (issue 31): no
# thread_local (a kernel's pool and limits travel with its context, a
# nested net's with its parent's) and no getenv (the harness and the tools
# set options; core/net.h's SetPoisonReleasedMemoryByDefault). A
# per-thread cache may be declared only right below a comment line that
# says so with "per-thread cache:" and why. Arguments: the core's source
# files.
set -u
failures=0
for f in "$@"; do
  while IFS= read -r hit; do
    echo "FAIL: $f:$hit"
    failures=$((failures + 1))
  done < <(grep -nE -B1 '\b(thread_local|getenv|secure_getenv)\b' "$f" |
           awk '/per-thread cache:/ { skip = 1; next } /^[0-9]+:/ { if (!skip) print; skip = 0; next } { skip = 0 }')
done
if [[ $# -lt 20 ]]; then
  echo "FAIL: only $# source files given; expected the whole core"
  exit 1
fi
if [[ $failures -gt 0 ]]; then
  echo "$failures thread_local or getenv use(s) in core/ (see tests/layering/core_globals_test.sh)"
  exit 1
fi
echo "no thread_local or getenv in $# core sources"
