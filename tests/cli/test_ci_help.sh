#!/bin/sh
# diff, check, suspects and leaks --help explain usage, limits, units, globs
# and exit statuses.
set -u
bin=$1
fails=0 passes=0
has() { # has COMMAND TEXT
    if "$bin" "$1" --help 2>&1 | grep -qF -- "$2"; then passes=$((passes + 1)); else
        echo "FAIL: gcheap $1 --help lacks: $2"; fails=$((fails + 1)); fi
}
for t in "usage: gcheap diff [OPTIONS] BASE NEW" "--fail-on-growth" "--fail-on-count-growth" \
         "--fail-on-type " "--fail-on-type-total" "--live" "--retained" "KiB" "PERCENT" \
         "Sort keys" "Exit status: 0" "new (absent from BASE)" "Common options"; do
    has diff "$t"
done
for t in "usage: gcheap check [OPTIONS] DUMP" "--max-bytes" "--max-objects" "--max-type " \
         "--max-type-total" "--live" "MiB" "GLOB" "strictly greater" "Exit status: 0"; do
    has check "$t"
done
for t in "usage: gcheap suspects [OPTIONS] DUMP" "--threshold PCT" "--fail-above PCT" \
         "accumulation" "70%" "Exit status: 0"; do
    has suspects "$t"
done
for t in "usage: gcheap leaks [OPTIONS] DUMP1 DUMP2 [DUMP3 ...]" "--fail-on-leak[=SIZE]" \
         "--stable-ids" "memlab" "V8 node ids" "Exit status: 0"; do
    has leaks "$t"
done
"$bin" diff --help >/dev/null 2>&1 && "$bin" check --help >/dev/null 2>&1 && passes=$((passes + 1)) ||
    { echo "FAIL: --help must exit 0"; fails=$((fails + 1)); }
"$bin" --help | grep -q '^  diff ' && "$bin" --help | grep -q '^  check ' && passes=$((passes + 1)) ||
    { echo "FAIL: gcheap --help does not list diff and check"; fails=$((fails + 1)); }
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
