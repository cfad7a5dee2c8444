#!/bin/sh
# The "why is it alive" commands on a 10,000,000-object chain: a local root on
# object 1, object i references i+1 (ids hex 1..989680), 16 bytes each, so the
# dominator tree and every shortest path are 10 million levels deep. Nothing
# may recurse. The dump (about 200 MB) is generated here with awk, never
# committed. Expected values by hand:
#   live 10,000,000 objects, 160,000,000 bytes; object i retains 16*(N-i+1)
#   top: 1 (160000000), 2 (159999984), 3 (159999968)
#   dom --depth 5: <root> then objects 1..5, each under the previous one
#   retainers 989680: a path of 10,000,000 objects from the local root
#   retainers --dominators 989680: 10,000,000 rows, retained 160000000 .. 16
#   dom --format folded: capped at 1024 levels: 1025 lines (the last one is
#   '[deeper]' holding 16*(N-1024) bytes), values summing to 160000000
#
#   sh tests/cli/test_why_deep.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -u
G=$1
N=${GCHEAP_DEEP_N:-10000000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_why_deep.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   - $1"; }
bad() { failed=$((failed + 1)); echo "FAIL - $1"; }
expect() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1 (got '$2', expected '$3')"; fi; }

awk -v n="$N" 'BEGIN {
    print "a 2 chain 0"; print "t 1 Node"
    for (i = 1; i < n; i++) printf "o %x 1 10 %x\n", i, i + 1
    printf "o %x 1 10\n", n
    print "r 1 1 0"; print "c chain 0"
}' > "$tmp/chain.gclog"
d=$tmp/chain.gclog
tail_id=$(printf '%x' "$N")
bytes=$((N * 16))

out=$("$G" top --top 3 --format tsv "$d"); rc=$? # rows end with the domain column
expect "top exits 0" "$rc" 0
expect "top: the head retains everything" "$(echo "$out" | sed -n 2p | cut -f1-4)" "1	16	$bytes	Node"
expect "top: then 2 and 3" "$(echo "$out" | sed -n '3p;4p' | cut -f1,3 | tr '\t\n' ', ')" \
    "2,$((bytes - 16)) 3,$((bytes - 32)) "

out=$("$G" dom --depth 5 --format tsv "$d"); rc=$?
expect "dom --depth 5 exits 0" "$rc" 0
expect "dom --depth 5: root and 5 levels" "$(echo "$out" | cut -f1,2 | tail -n +2 | tr '\t\n' ', ')" \
    "0, 1,1 2,2 3,3 4,4 5,5 "

out=$("$G" retainers --format tsv "$d" "$tail_id" | awk -F'\t' 'NR > 1 { n++; last = $5; if (n == 1) first = $5 " " $9 } END { print n, first, last }'); rc=$?
expect "retainers on the tail: one path of N objects" "$out" "$N 1 local $tail_id"

out=$("$G" retainers --dominators --format tsv "$d" "$tail_id" | awk -F'\t' 'NR == 2 { f = $6 } NR > 1 { n++; l = $6 } END { print n, f, l }')
expect "retainers --dominators on the tail" "$out" "$N $bytes 16"

out=$("$G" dom --format folded "$d" | awk '{ n++; s += $NF; if ($1 ~ /\[deeper\]$/) deep = $NF } END { printf "%d %d %d\n", n, s, deep }')
expect "dom --format folded: capped at 1024 levels" "$out" "1025 $bytes $(((N - 1024) * 16))"

out=$("$G" objsize --format tsv "$d" 1 | cut -f3,4,5 | tail -1)
expect "objsize of the head reaches everything" "$out" "$N	$bytes	$bytes"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
