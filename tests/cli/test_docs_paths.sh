#!/bin/sh
# Every path under src/, include/, tests/ or bench/ that docs/architecture.md
# or docs/conventions.md names exists in the tree (a `*` is a glob that must
# match, as the docs write `src/model/id_index.*` or `src/cli/cmd_*.c`), so the
# map of the code cannot drift from the code. It also checks that it found a
# good number of paths, so that a broken pattern cannot pass by finding none.
# Placeholders (`src/formats/NAME/`) are skipped.
#   sh test_docs_paths.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -u
root=$(cd "$(dirname "$2")" && pwd)
pass=0
fail=0
for doc in docs/architecture.md docs/conventions.md; do
    paths=$(grep -oE '(src|include|tests|bench)/[A-Za-z0-9_./*-]*[A-Za-z0-9_*/]' "$root/$doc" | sort -u)
    n=$(printf '%s\n' "$paths" | grep -c .)
    [ "$n" -ge 15 ] || { echo "FAIL: only $n paths found in $doc"; fail=$((fail + 1)); }
    set -f # the list is split into words, not expanded against the current folder
    for p in $paths; do
        case $p in *NAME*) continue ;; esac # a placeholder (src/cli/cmd_NAME.c)
        # A `*` in a path is a glob (`src/cli/cmd_*.c`, `src/model/id_index.*`):
        # expanded in the tree, it must match something.
        set +f
        found=$(ls -d "$root"/$p 2> /dev/null)
        set -f
        if [ -n "$found" ]; then pass=$((pass + 1)); else
            echo "FAIL: $doc names $p, which does not exist"; fail=$((fail + 1)); fi
    done
    set +f
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
