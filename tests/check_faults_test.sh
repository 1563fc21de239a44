#!/usr/bin/env bash
# loom_inspect --check on plugins that crash, hang or exit() in LoomPluginInit
# (tests/plugins/bad_plugin.cc): each is loaded in a child process, the report
# says what happened, a hang is killed after --check_timeout_s, and the tool
# lives on to check the next plugin.
# A plugin that loads is then checked for kernels whose attribute getters
# disagree with their schemas, and for symbols it exports besides
# LoomPluginInit.
#   $1 loom_inspect  $2 SIGSEGV  $3 hang  $4 exit(3)  $5 exit(0)  $6 abort()  $7 example (good)
#   $8 a kernel reading an int attribute as a float  $9 an extra export
set -uo pipefail
inspect=$1 segv=$2 hang=$3 ex=$4 ex0=$5 abrt=$6 example=$7 misread=$8 exports=$9
# Under AddressSanitizer (scripts/sanitize.sh asan) its SIGSEGV handler would
# turn the plugin's crash into an abort: let the signal through, as it is
# what the report must name.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0"
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi; }
now() { date +%s.%N; }
elapsed() { python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$1" "$2"; }
between() { python3 -c "import sys; v, lo, hi = map(float, sys.argv[1:]); sys.exit(0 if lo <= v <= hi else 1)" "$@"; }
# No process may still have the plugin loaded (the killed child, its group).
nobody_maps() { ! grep -qs "$(basename "$1")" /proc/[0-9]*/maps; }

out=$("$inspect" --check "$segv"); rc=$?; echo "$out"
check "SIGSEGV in init is reported with its signal" \
  "[[ $rc -eq 1 ]] && grep -q \"FAIL plugin '.*libbad_segv.so' crashed while loading: signal 11 (Segmentation fault)\" <<<\"\$out\""

out=$("$inspect" --check "$abrt"); rc=$?; echo "$out"
check "abort() in init is reported with its signal" \
  "[[ $rc -eq 1 ]] && grep -q 'crashed while loading: signal 6 (Aborted)' <<<\"\$out\""

t0=$(now); out=$("$inspect" --check "$hang" --check_timeout_s=2); rc=$?; t1=$(now); echo "$out"
dt=$(elapsed "$t0" "$t1"); echo "hang checked in $dt s"
check "a hang in init (all signals blocked) is killed after --check_timeout_s and reported" \
  "[[ $rc -eq 1 ]] && grep -q \"FAIL plugin '.*libbad_hang.so' timed out after 2 s while loading (killed\" <<<\"\$out\""
check "the hang report comes after the timeout (counted from the load), not much later" "between $dt 1.9 15"
check "the hung child is gone" "nobody_maps $hang"

t0=$(now); out=$("$inspect" --check "$hang"); rc=$?; t1=$(now); echo "$out"
dt=$(elapsed "$t0" "$t1"); echo "hang checked in $dt s (default timeout)"
check "the default timeout is 5 s" "[[ $rc -eq 1 ]] && grep -q 'timed out after 5 s' <<<\"\$out\" && between $dt 4.9 20"

out=$("$inspect" --check "$ex"); rc=$?; echo "$out"
check "exit(3) in init is reported with its code" \
  "[[ $rc -eq 1 ]] && grep -q \"FAIL plugin '.*libbad_exit.so' exited with code 3 during init\" <<<\"\$out\""

out=$("$inspect" --check "$ex0"); rc=$?; echo "$out"
check "exit(0) in init is a failure too" \
  "[[ $rc -eq 1 ]] && grep -q 'exited with code 0 during init' <<<\"\$out\""

out=$("$inspect" --check "$example"); rc=$?; echo "$out"
check "a good plugin still checks OK" "[[ $rc -eq 0 ]] && grep -q \"OK plugin 'example'\" <<<\"\$out\""
check "a plugin built with loom_plugin exports nothing but LoomPluginInit" "! grep -q warning <<<\"\$out\""

out=$("$inspect" --check "$misread"); rc=$?; echo "$out"
check "a kernel reading an attribute as another type than its schema declares fails the check" \
  "[[ $rc -eq 1 ]] && grep -q \"FAIL plugin 'misread': 1 kernel(s) read attributes as other types than their schemas declare\" <<<\"\$out\" && grep -q \"the kernel reads attribute 'n' as float, but the schema of com.acme.AcmeMisread declares it int (the value is the schema's default)\" <<<\"\$out\""

out=$("$inspect" --check "$exports"); rc=$?; echo "$out"
check "a plugin exporting another symbol checks OK with a warning naming it" \
  "[[ $rc -eq 0 ]] && grep -q \"OK plugin 'exports'\" <<<\"\$out\" && grep -q \"warning: '.*libbad_exports.so' exports [0-9]* symbol(s) besides LoomPluginInit.*AcmeHelper\" <<<\"\$out\""

# A plugin on LOOM_PLUGIN_PATH that crashes takes down the child's setup, not
# the tool, and the report says the checked plugin was not checked.
dir=$(mktemp -d); cp "$segv" "$dir/libsetup_segv.so"
out=$(LOOM_PLUGIN_PATH=$dir "$inspect" --check "$example"); rc=$?; echo "$out"
check "a crash while setting up the default plugins is reported as such" \
  "[[ $rc -eq 1 ]] && grep -q \"FAIL plugin '.*libloom_example.so': not checked: setting up the registry (the default plugins) crashed: signal 11\" <<<\"\$out\""

# Several in one invocation (comma-separated and as arguments): each gets its
# line, in order; the bad ones do not stop the good one; a summary ends it.
t0=$(now)
out=$("$inspect" --check_timeout_s=2 --check "$segv,$hang,$example" "$ex" "$abrt"); rc=$?
t1=$(now); echo "$out"
dt=$(elapsed "$t0" "$t1"); echo "five plugins checked in $dt s"
check "several plugins: one line each, in order, and a summary" "[[ $rc -eq 1 ]] && python3 -c '
import sys
lines = sys.argv[1].splitlines()
assert len(lines) == 6, lines
assert \"libbad_segv.so\" in lines[0] and \"signal 11\" in lines[0], lines[0]
assert \"libbad_hang.so\" in lines[1] and \"timed out after 2 s\" in lines[1], lines[1]
assert lines[2].startswith(\"OK plugin \x27example\x27\"), lines[2]
assert \"libbad_exit.so\" in lines[3] and \"exited with code 3\" in lines[3], lines[3]
assert \"signal 6\" in lines[4], lines[4]
assert lines[5] == \"checked 5 plugins: 1 OK, 4 failed\", lines[5]
' \"\$out\""
check "several plugins: one timeout's worth of waiting" "between $dt 1.9 20"
check "no checked child is left" "nobody_maps $hang && nobody_maps $segv"

exit $fail
