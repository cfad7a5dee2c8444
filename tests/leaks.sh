#!/bin/sh
# Runs every command-level golden case (testdata/cases/*.case) under valgrind:
# a leak, an invalid read/write or use of uninitialised memory fails the case
# (valgrind exits 99, which no case expects).
#
#   sh tests/leaks.sh [BUILD_DIR]      (default: build; a non-sanitizer build)
#
# Sanitizer builds (-DGCHEAP_SANITIZE=ON) need no valgrind: LeakSanitizer is
# part of AddressSanitizer on Linux and runs at every exit, so plain
# `ctest --test-dir build-asan` checks leaks too (as long as ASAN_OPTIONS
# does not say detect_leaks=0).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
bin=$build/gcheap
[ -x "$bin" ] || { echo "leaks: no program at $bin (build first)" >&2; exit 2; }
command -v valgrind >/dev/null 2>&1 || { echo "leaks: valgrind not found" >&2; exit 2; }
if nm "$bin" 2>/dev/null | grep -q __asan_init; then
    echo "leaks: $bin is built with AddressSanitizer: run ctest there instead (LeakSanitizer)" >&2
    exit 2
fi
GCHEAP_WRAP="valgrind -q --leak-check=full --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99"
export GCHEAP_WRAP
pass=0
fail=0
for c in "$top"/testdata/cases/*.case; do
    if sh "$top/tests/cli/run_case.sh" "$bin" "$c" "$top/testdata" >"$build/leaks.out" 2>&1; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "leaks: FAIL ${c##*/}"
        cat "$build/leaks.out"
    fi
done
echo "leaks: $pass cases clean under valgrind, $fail failed"
[ "$fail" -eq 0 ]
