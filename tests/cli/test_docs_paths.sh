#!/bin/sh
# Every path under src/, include/, tests/ or bench/ that docs/architecture.md
# or docs/conventions.md names exists in the tree (a trailing `*` or `.*`
# stands for any ending, as the docs write `src/model/id_index.*`), so the
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
    for p in $paths; do
        case $p in *NAME*) continue ;; esac # a placeholder (src/cli/cmd_NAME.c)
        stem=${p%\*}
        stem=${stem%.}
        # a glob of the stem: exactly the path, or (for `*`, `.*`) any ending
        if [ "$stem" = "$p" ]; then
            found=$(ls -d "$root/$p" 2>/dev/null)
        else
            found=$(ls -d "$root/$stem"* 2>/dev/null)
        fi
        if [ -n "$found" ]; then pass=$((pass + 1)); else
            echo "FAIL: $doc names $p, which does not exist"; fail=$((fail + 1)); fi
    done
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
