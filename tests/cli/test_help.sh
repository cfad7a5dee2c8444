#!/bin/sh
# Every command listed by 'gcheap --help' answers 'gcheap CMD --help' (and
# 'gcheap help CMD', the same text) with its usage line and exit 0, and the
# README documents it; 'gcheap -h', '--help' and 'help' list the commands; no
# arguments is exit 2.
#   sh test_help.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -u
bin=$1
readme=$(dirname "$2")/README.md
pass=0
fail=0
check() {
    if eval "$2"; then pass=$((pass + 1)); else echo "FAIL: $1"; fail=$((fail + 1)); fi
}
commands=$("$bin" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }')
check "gcheap --help lists commands" '[ -n "$commands" ]'
for c in $commands; do
    out=$("$bin" "$c" --help); rc=$?
    check "$c --help exits 0" '[ $rc -eq 0 ]'
    check "$c --help starts with its usage" 'printf "%s\n" "$out" | head -1 | grep -q "^usage: gcheap $c "'
    check "$c --help lists the common options" 'printf "%s\n" "$out" | grep -q -- "--format FMT"'
    check "README documents gcheap $c" 'grep -q "gcheap $c" "$readme"'
done
for form in "-h" "--help" "help"; do
    out=$("$bin" $form); rc=$?
    check "gcheap $form exits 0" '[ $rc -eq 0 ]'
    check "gcheap $form lists the commands" 'printf "%s\n" "$out" | grep -q "^Commands:"'
done
for c in $commands; do
    check "gcheap help $c is gcheap $c --help" '[ "$("$bin" help "$c")" = "$("$bin" "$c" --help)" ]'
done
err=$("$bin" help stta 2>&1); rc=$?
check "gcheap help with a typo exits 2" '[ $rc -eq 2 ]'
check "gcheap help with a typo suggests" 'printf "%s\n" "$err" | grep -q "did you mean .stat."'
"$bin" > /dev/null 2>&1; rc=$?
check "no arguments exits 2" '[ $rc -eq 2 ]'
"$bin" --version | grep -q '^gcheap [0-9]'; rc=$?
check "--version prints the version" '[ $rc -eq 0 ]'
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
