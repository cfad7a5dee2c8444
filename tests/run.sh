#!/bin/sh
# Builds gcheap and runs the whole test suite. On Debian/Ubuntu it first
# installs what is missing (tests/setup.sh: cmocka, a JDK, Node.js, Chromium).
#   sh tests/run.sh              # Release build in build/, then ctest
#   sh tests/run.sh --sanitize   # AddressSanitizer + UBSan build in build-asan/
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

build=build
flags="-DCMAKE_BUILD_TYPE=Release"
if [ "${1:-}" = "--sanitize" ]; then
    build=build-asan
    flags="-DCMAKE_BUILD_TYPE=RelWithDebInfo -DGCHEAP_SANITIZE=ON"
fi

sh "$root/tests/setup.sh"

jobs=$(nproc 2> /dev/null || echo 2)
# shellcheck disable=SC2086
cmake -S . -B "$build" $flags -DGCHEAP_TESTS=ON -DGCHEAP_WERROR=ON > /dev/null
cmake --build "$build" -j "$jobs" > /dev/null
if [ -n "${ASAN_OPTIONS:-}" ]; then :; else
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
    export ASAN_OPTIONS
fi
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export UBSAN_OPTIONS
status=0
ctest --test-dir "$build" -j "$jobs" --output-on-failure || status=$?
# No test may write beside the dumps it reads (testdata/, the shared corpus):
# an index left there would change what every later test sees.
left=$(find "$root/testdata" "$root/../shared/corpus" -name '*.gcx' 2> /dev/null)
if [ -n "$left" ]; then
    echo "tests/run.sh: a test wrote beside the test dumps:" >&2
    echo "$left" >&2
    status=1
fi
exit $status
