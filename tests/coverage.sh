#!/bin/sh
# Line and branch coverage of every reader (src/formats/*, src/compress,
# src/load; later the index and server code: add their folders to DIRS) under
# the fast tests (unit tests and command tests, `ctest -L fast`) plus the
# fuzz corpora replayed once through each harness (tests/fuzz/replay_main.c:
# the seeds in tests/fuzz/seeds/NAME/ and testdata/**/*.NAME, as
# tests/fuzz/run.sh starts from them). docs/reliability.md holds the table.
#
#   sh tests/coverage.sh [--uncovered] [--no-run]   (build in build-cov/, gcc's gcov)
#
# Prints one row per file: lines covered/total and %, branches taken at least
# once/total and %. --uncovered also lists each file's unexecuted lines
# (FILE:LINE: text) from the .gcov files, written to build-cov/gcov/.
# --no-run reports what the last run measured (no build, no tests).
# Environment: GCHEAP_COV_BUILD (default build-cov), GCHEAP_COV_JOBS (2).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=${GCHEAP_COV_BUILD:-$top/build-cov}
jobs=${GCHEAP_COV_JOBS:-2}
uncovered=0 run=1
for arg in "$@"; do
    case $arg in
    --uncovered) uncovered=1 ;;
    --no-run) run=0 ;;
    *) echo "usage: $0 [--uncovered] [--no-run]" >&2; exit 2 ;;
    esac
done
DIRS="src/formats/dart src/formats/gcdump src/formats/gclog src/formats/hprof src/formats/v8 src/compress src/load"
for d in "$top"/src/formats/*/; do
    d=${d%/}
    case " $DIRS " in *" src/formats/${d##*/} "*) ;; *) DIRS="$DIRS src/formats/${d##*/}" ;; esac
done
for d in src/json src/index src/mcp; do [ -d "$top/$d" ] && DIRS="$DIRS $d"; done

command -v gcov > /dev/null || { echo "coverage: gcov not found (it comes with gcc)" >&2; exit 2; }
if [ "$run" -eq 1 ]; then
if [ ! -f "$build/CMakeCache.txt" ]; then
    CC=${CC:-gcc} cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DGCHEAP_COVERAGE=ON \
        -DGCHEAP_TESTS=ON -DGCHEAP_WERROR=ON -DGCHEAP_BENCH=OFF > /dev/null || exit 1
fi
cmake --build "$build" -j "$jobs" > /dev/null || { echo "coverage: build failed" >&2; exit 1; }
find "$build" -name '*.gcda' -exec rm -f {} +

echo "coverage: ctest -L fast" >&2
ctest --test-dir "$build" -L fast -j "$jobs" > "$build/coverage-ctest.log" 2>&1 ||
    echo "coverage: some fast tests failed (see $build/coverage-ctest.log); measuring anyway" >&2

# The corpora, once each (a harness that finds a violation aborts: reported).
for bin in "$build"/tests/fuzz/fuzz_*; do
    [ -x "$bin" ] || continue
    name=${bin##*/fuzz_}
    list=$build/coverage-corpus-$name.txt
    if [ "$name" = pipeline ]; then
        { find "$top/tests/fuzz/seeds" -type f; find "$top/testdata" -type f ! -name '*.case'; } > "$list"
    else
        { [ -d "$top/tests/fuzz/seeds/$name" ] && find "$top/tests/fuzz/seeds/$name" -type f
          find "$top/testdata" -type f -name "*.$name"; } > "$list"
    fi
    n=$(wc -l < "$list" | tr -d ' ')
    echo "coverage: fuzz_$name: $n corpus files" >&2
    [ "$n" -gt 0 ] || continue
    tr '\n' '\0' < "$list" | xargs -0 "$bin" > /dev/null 2>&1 ||
        echo "coverage: fuzz_$name failed on its corpus (exit $?)" >&2
done
fi

# gcov per file: the object folder of src/X/Y.c is CMakeFiles/gch_*.dir/src/X/.
mkdir -p "$build/gcov"
printf '%-40s %18s %18s\n' "file" "lines" "branches"
for dir in $DIRS; do
    for src in "$top/$dir"/*.c; do
        [ -f "$src" ] || continue
        rel=${src#"$top"/}
        gcda=$(find "$build/CMakeFiles" -path "*/$rel.gcda" | head -n 1)
        if [ -z "$gcda" ]; then
            printf '%-40s %18s %18s\n' "$rel" "never run" "-"
            continue
        fi
        out=$(cd "$build/gcov" && gcov -b -o "${gcda%.gcda}.o" "$src" 2> /dev/null)
        # The first block of gcov's summary is the source file itself.
        summary=$(printf '%s\n' "$out" | awk -v f="$src" '
            /^File / { on = index($0, "'"'"'" f "'"'"'") > 0; next }
            on && /^Lines executed:/ { split($2, a, ":"); l = a[2]; lt = $4 }
            on && /^Taken at least once:/ { split($4, b, ":"); t = b[2]; tt = $6 }
            on && /^No branches/ { t = "-"; tt = 0 }
            on && /^$/ { on = 0 }
            END { sub(/%/, "", l); sub(/%/, "", t)
                  printf "%d/%d %s%% %d/%d %s%%", int(l * lt / 100 + 0.5), lt, l, int(t * tt / 100 + 0.5), tt, t }')
        set -- $summary
        printf '%-40s %10s %6s %10s %6s\n' "$rel" "$1" "$2" "$3" "$4"
        if [ "$uncovered" -eq 1 ]; then
            g=$build/gcov/$(basename "$src").gcov
            [ -f "$g" ] && awk -F: -v f="$rel" '$1 ~ /#####/ { sub(/^ */, "", $2); t = $0; sub(/^[^:]*:[^:]*:/, "", t); print "    " f ":" $2 ":" t }' "$g"
        fi
    done
done
