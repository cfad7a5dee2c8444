#!/bin/sh
# Builds gcheap and runs the whole test suite. On Debian/Ubuntu it installs
# cmocka (libcmocka-dev) first when it is missing.
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

have_cmocka() {
    for d in /usr/include /usr/local/include; do
        [ -f "$d/cmocka.h" ] && return 0
    done
    return 1
}
if ! have_cmocka; then
    echo "tests/run.sh: installing libcmocka-dev" >&2
    sudo=""
    [ "$(id -u)" -ne 0 ] && command -v sudo > /dev/null && sudo=sudo
    $sudo apt-get update -qq > /dev/null
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libcmocka-dev > /dev/null
fi

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
ctest --test-dir "$build" -j "$jobs" --output-on-failure
