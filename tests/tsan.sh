#!/bin/sh
# ThreadSanitizer run of the library's threaded paths: builds build-tsan/
# with clang -fsanitize=thread (the thread shim, src/util/threading.c, then
# uses POSIX threads, whose creation and locks TSan intercepts; glibc's C11
# thrd_create bypasses it) and runs the unit tests that start threads. Those
# tests force the parallel paths on small inputs through the tuning knobs.
# Installs clang when it is missing (Debian/Ubuntu). About a minute on 2 cores.
#   sh tests/tsan.sh
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
sudo=""
[ "$(id -u)" -ne 0 ] && command -v sudo > /dev/null && sudo=sudo
if ! command -v clang > /dev/null; then
    echo "tests/tsan.sh: installing clang" >&2
    $sudo apt-get -o DPkg::Lock::Timeout="${GCHEAP_APT_LOCK_TIMEOUT:-900}" update -qq > /dev/null
    DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout="${GCHEAP_APT_LOCK_TIMEOUT:-900}" install -y -qq clang > /dev/null
fi
if ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.tsan-x86_64.a > /dev/null 2>&1 &&
   ! clang -print-file-name=libclang_rt.tsan-x86_64.a | grep -q /; then
    ver=$(clang --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -1)
    echo "tests/tsan.sh: installing libclang-rt-$ver-dev" >&2
    $sudo apt-get -o DPkg::Lock::Timeout="${GCHEAP_APT_LOCK_TIMEOUT:-900}" update -qq > /dev/null
    DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout="${GCHEAP_APT_LOCK_TIMEOUT:-900}" install -y -qq "libclang-rt-$ver-dev" > /dev/null
fi
# The tests that start threads: the shim itself, loading (.gclog pipeline,
# id index, resolution), the Ruby reader's pieces, the V8 reader's look-ahead and
# DevTools' steps, reachability, the dominator build,
# the analysis's views built on two threads (the index's build), the index's checks,
# the index written as a stream (a writer thread, the views' chunks on two), suspects,
# the program's big-page allocator (test_platform).
tests="test_threads test_gclog_reader test_ruby_reader test_v8_lean test_id_index test_objsize test_dominators test_analysis test_index test_index_write test_suspects test_platform"
jobs=$(nproc 2> /dev/null || echo 2)
CC=clang cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGCHEAP_TSAN=ON \
    -DGCHEAP_TESTS=ON -DGCHEAP_WERROR=ON -DGCHEAP_BENCH=OFF > /dev/null
# shellcheck disable=SC2086
cmake --build build-tsan -j "$jobs" --target $tests > /dev/null
# Every 8th case of the long randomized loops (tests/support/thin.h).
GCHEAP_TEST_THIN=8
export GCHEAP_TEST_THIN
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
export TSAN_OPTIONS
status=0
for t in $tests; do
    start=$(date +%s)
    if ./build-tsan/tests/"$t" > "build-tsan/$t.log" 2>&1; then
        echo "tsan: $t ok ($(($(date +%s) - start)) s)"
    else
        echo "tsan: $t FAILED ($(($(date +%s) - start)) s); log: build-tsan/$t.log" >&2
        tail -40 "build-tsan/$t.log" >&2
        status=1
    fi
done
exit $status
