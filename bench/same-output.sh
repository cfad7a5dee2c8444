#!/bin/bash
# same-output.sh - checks that two gcheap builds print the same bytes (stdout,
# stderr and exit status) for the analyses that run the graph code: top,
# dom, stat --retained and retainers (paths, --all, --dominators, --type),
# on every dump given plus the dumps of testdata/.
#
#   bash bench/same-output.sh BIN_A BIN_B [DUMP...]
#
# Prints one line per difference and a summary; exit 0 when all agree.
set -u
A=$1 B=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
files=("$@")
for f in "$root"/testdata/*.gclog "$root"/testdata/gcdump/* "$root"/testdata/dart/*.dartheap \
         "$root"/testdata/dart/twin.gclog "$root"/testdata/why/*; do
    [ -f "$f" ] && files+=("$f")
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
runs=0 diffs=0
check() {
    runs=$((runs + 1))
    "$A" "$@" > "$tmp/a.out" 2> "$tmp/a.err"; echo "exit $?" >> "$tmp/a.err"
    "$B" "$@" > "$tmp/b.out" 2> "$tmp/b.err"; echo "exit $?" >> "$tmp/b.err"
    if ! cmp -s "$tmp/a.out" "$tmp/b.out" || ! cmp -s "$tmp/a.err" "$tmp/b.err"; then
        diffs=$((diffs + 1))
        echo "DIFFERS: $*"
    fi
}
for f in "${files[@]}"; do
    check top --top 40 "$f"
    check dom --top 30 "$f"
    check stat --retained "$f"
    check stat --retained --live "$f"
    check info "$f"
    # The objects `top` ranks first: the paths to them, and their dominators.
    ids=$("$A" top --top 3 --format tsv "$f" 2> /dev/null | awk -F'\t' 'NR > 1 { print $1 }' | tr '\n' ' ')
    if [ -n "$ids" ]; then
        # shellcheck disable=SC2086
        check retainers "$f" $ids
        # shellcheck disable=SC2086
        check retainers --all "$f" $ids
        # shellcheck disable=SC2086
        check retainers --dominators "$f" $ids
        # shellcheck disable=SC2086
        check dom --top 10 "$f" $(echo $ids | cut -d' ' -f1)
    fi
    check retainers --type 'System.String' --depth 4 "$f"
done
echo "same-output: $runs runs over ${#files[@]} dumps, $diffs differ"
[ "$diffs" -eq 0 ]
