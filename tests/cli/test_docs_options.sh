#!/bin/sh
# Every long option that a command's --help lists is documented in the man
# page (docs/gcheap.1, where '-' is written '\-') and in the README, so the
# three cannot drift apart.
#   sh test_docs_options.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -u
bin=$1
root=$(dirname "$2")
man=$root/docs/gcheap.1
readme=$root/README.md
pass=0
fail=0
commands=$("$bin" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }')
[ -n "$commands" ] || { echo "FAIL: gcheap --help lists no command"; exit 1; }
options=$(for c in $commands; do "$bin" "$c" --help | grep -o -- '--[a-z][a-z0-9-]*'; done | sort -u)
[ "$(printf '%s\n' "$options" | wc -l)" -ge 30 ] || { echo "FAIL: too few options found: $options"; exit 1; }
for o in $options; do
    in_man=$(printf '%s' "$o" | sed 's/-/\\\\-/g')
    if grep -q -- "$in_man" "$man"; then pass=$((pass + 1)); else
        echo "FAIL: the man page does not document $o"; fail=$((fail + 1)); fi
    if grep -q -- "$o" "$readme"; then pass=$((pass + 1)); else
        echo "FAIL: the README does not document $o"; fail=$((fail + 1)); fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
