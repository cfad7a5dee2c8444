#!/bin/sh
# The index reader's growth: `gcheap index --check` (every chunk checked:
# checksums, bounds, the preorder's distinct objects, the path parents'
# cycle walk, the id order) and `top` from the index on generated dumps of
# n, 2n, 4n and 8n objects. The CPU time (user+sys, the best of three runs)
# of one run at 8n must stay under 3 x that of 8 runs at n: linear, with
# room for caches and a shared machine. A ratio, never an absolute time.
#
#   sh tests/cli/test_index_scaling.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -u
G=$1
GENDUMP=${GENDUMP:-$(dirname "$3")/gendump}
if [ ! -x "$GENDUMP" ] || [ ! -x /usr/bin/time ]; then
    echo "SKIP: needs $GENDUMP and /usr/bin/time"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_index_scaling.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
failed=0
base=250000
# cpu REPS CMD...: the best user+sys seconds of three runs of CMD done REPS
# times in a row (one process timing them all: its children's time).
cpu() {
    reps=$1
    shift
    best=
    for _ in 1 2 3; do
        /usr/bin/time -f '%U %S' -o "$tmp/t" sh -c 'r=$1; shift; i=0
            while [ $i -lt "$r" ]; do "$@" > /dev/null 2>&1 || exit 1; i=$((i + 1)); done' sh "$reps" "$@" ||
            { echo "FAIL - $*"; failed=1; }
        t=$(awk '{ printf "%.3f", $1 + $2 }' "$tmp/t")
        best=$(awk -v a="$t" -v b="${best:-$t}" 'BEGIN { print (a < b) ? a : b }')
    done
    echo "$best"
}
# Each size is timed over the same number of objects in all: n objects 8
# times, 2n 4 times, ..., 8n once. Linear growth gives equal times, and the
# small end is 8 runs long, well above the timer's 10 ms.
for k in 1 2 4 8; do
    n=$((base * k))
    reps=$((8 / k))
    "$GENDUMP" --objects "$n" --seed 3 -o "$tmp/d$k.gclog" 2> /dev/null || exit 1
    "$G" index "$tmp/d$k.gclog" > /dev/null || { echo "FAIL - index of $n objects"; exit 1; }
    eval "check$k=\$(cpu $reps \"\$G\" index --check \"\$tmp/d\$k.gclog.gcx\")"
    eval "top$k=\$(cpu $reps \"\$G\" top \"\$tmp/d\$k.gclog\")"
    rm -f "$tmp/d$k.gclog"
done
for what in check top; do
    eval "a=\$${what}1 b=\$${what}8"
    echo "$what: $a s for 8 runs at $base objects, $b s for one at $((base * 8))"
    # Linear: about 1; 3 leaves room for caches and a shared machine (quadratic: 8).
    if awk -v a="$a" -v b="$b" 'BEGIN { if (a < 0.02) a = 0.02; exit !(b / a <= 3) }'; then
        echo "ok   - $what grows linearly (x$(awk -v a="$a" -v b="$b" 'BEGIN { if (a < 0.02) a = 0.02; printf "%.2f", b / a }') for the same objects)"
    else
        echo "FAIL - $what grows faster than linearly: $a -> $b"
        failed=1
    fi
done
exit $failed
