#!/bin/sh
# Builds the libFuzzer harnesses (if needed) and runs each for a bounded time.
#
#   tests/fuzz/run.sh [SECONDS_PER_HARNESS]      (default 30)
#
# Environment: GCHEAP_FUZZ_BUILD (build dir, default build-fuzz at the top),
# GCHEAP_FUZZ_JOBS (build parallelism, default 2), GCHEAP_FUZZ_PARALLEL (harnesses
# run at once, default the number of cores), CC (default clang).
# Every tests/fuzz/fuzz_NAME.c harness runs with its seeds: tests/fuzz/seeds/NAME/
# and testdata/**/*.NAME (fuzz_pipeline: all seeds and all testdata dumps), and
# the dictionary tests/fuzz/NAME.dict when it exists. Inputs that grow coverage
# are kept in BUILD/fuzz-corpus/NAME/, crashes go to BUILD/fuzz-artifacts/.
# Exit status: 0 when no harness crashed, 1 otherwise (the log tail is shown).
set -u
secs=${1:-30}
case $secs in '' | *[!0-9]*) echo "usage: $0 [SECONDS_PER_HARNESS]" >&2; exit 2 ;; esac
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${GCHEAP_FUZZ_BUILD:-$top/build-fuzz}
jobs=${GCHEAP_FUZZ_JOBS:-2}

if [ ! -f "$build/CMakeCache.txt" ]; then
    CC=${CC:-clang} cmake -S "$top" -B "$build" -DGCHEAP_FUZZ=ON -DGCHEAP_TESTS=OFF -DGCHEAP_WERROR=ON \
        -DGCHEAP_BENCH=OFF -DCMAKE_BUILD_TYPE=Debug >/dev/null || exit 1
fi
cmake --build "$build" -j "$jobs" >/dev/null || { echo "fuzz: build failed" >&2; exit 1; }

# Leak detection stays on whatever the caller's ASAN_OPTIONS say.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1"
UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1:halt_on_error=1"
export ASAN_OPTIONS UBSAN_OPTIONS

# One harness: its seeds, its run, a result line in $build/fuzz-NAME.result.
run_harness() {
    bin=$1
    name=${bin##*/fuzz_}
    corpus=$build/fuzz-corpus/$name
    seeds=$build/fuzz-seeds/$name
    arts=$build/fuzz-artifacts
    rm -rf "$seeds"
    mkdir -p "$corpus" "$seeds" "$arts"
    if [ "$name" = pipeline ]; then
        find "$top/tests/fuzz/seeds" -type f -exec cp {} "$seeds/" \;
        find "$top/testdata" -type f ! -name '*.case' -exec cp {} "$seeds/" \;
        dict=$top/tests/fuzz/gclog.dict
    else
        [ -d "$top/tests/fuzz/seeds/$name" ] && find "$top/tests/fuzz/seeds/$name" -type f -exec cp {} "$seeds/" \;
        find "$top/testdata" -type f -name "*.$name" -exec cp {} "$seeds/" \;
        dict=$top/tests/fuzz/$name.dict
    fi
    set -- -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 -max_len=65536 \
        -print_final_stats=1 -artifact_prefix="$arts/$name-"
    [ -f "$dict" ] && set -- "$@" -dict="$dict"
    log=$build/fuzz-$name.log
    result=$build/fuzz-$name.result
    echo "fuzz: $name for ${secs}s (seeds: $(ls "$seeds" | wc -l | tr -d ' '), corpus: $(ls "$corpus" | wc -l | tr -d ' '))" >"$result"
    "$bin" "$@" "$corpus" "$seeds" >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    cov=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|INITED)' "$log" | tail -n 1 | sed -n 's/.*\(cov: [0-9]*\).*\(ft: [0-9]*\).*\(corp: [^ ]*\).*/\1 \2 \3/p')
    echo "fuzz: $name: exit $rc, ${execs:-?} executions, $cov" >>"$result"
    if [ "$rc" -ne 0 ]; then
        {
            echo "fuzz: $name FAILED; log $log; last lines:"
            grep -v '^    #' "$log" | tail -n 15
            ls "$arts"/"$name"-* 2>/dev/null | sed 's/^/fuzz: artifact /'
        } >"$result.failed"
    fi
}

# libFuzzer runs one thread: as many harnesses at once as there are cores
# (GCHEAP_FUZZ_PARALLEL), each for the full time.
parallel=${GCHEAP_FUZZ_PARALLEL:-$(nproc 2>/dev/null || echo 1)}
case $parallel in '' | *[!0-9]* | 0) parallel=1 ;; esac
failed=0
found=0
running=0
batch=""
# Prints the results of the harnesses that ran together, as they end.
report_batch() {
    for name in $batch; do
        cat "$build/fuzz-$name.result"
        if [ -f "$build/fuzz-$name.result.failed" ]; then
            failed=1
            cat "$build/fuzz-$name.result.failed" >&2
        fi
    done
    batch=""
    running=0
}
for bin in "$build"/tests/fuzz/fuzz_*; do
    [ -x "$bin" ] || continue
    found=1
    name=${bin##*/fuzz_}
    rm -f "$build/fuzz-$name.result" "$build/fuzz-$name.result.failed"
    batch="$batch $name"
    run_harness "$bin" &
    running=$((running + 1))
    if [ "$running" -ge "$parallel" ]; then
        wait
        report_batch
    fi
done
wait
report_batch
if [ "$found" = 0 ]; then
    echo "fuzz: no harness built in $build/tests/fuzz" >&2
    exit 1
fi
exit $failed
