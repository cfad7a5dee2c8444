#!/bin/sh
# `gcheap waste` on real V8 heap snapshots written by Node.js.
#   sh test_waste_node.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
#
# tests/node/waste_plant.js plants 300 empty WasteMap, 200 empty WasteSet
# and 250 empty Arrays, each held by a WasteHolder property, writes the
# snapshot, then reads it back as JSON and counts the empty collections of
# every type itself (the oracle: counts and self sizes straight from the
# nodes and edges arrays). Checked: every empty-collections row of `waste
# --threshold 0` equals the oracle's line for its type (count, bytes), the
# planted types have exactly the planted counts, the holders are the planted
# properties; a run that plants nothing shows no section above the default
# thresholds; json has the same rows.
#
# Needs Node.js: installed with apt-get when missing (as root); skipped, with
# a message, only where that is impossible.
set -u
. "$(dirname "$0")/need.sh"
scratch waste_node "$1" "${3:-}" || exit 1
need test_waste_node nodejs node || exit 0
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

(cd "$tmp" && node "$root/tests/node/waste_plant.js" "$tmp/planted.heapsnapshot" &&
    node "$root/tests/node/waste_plant.js" "$tmp/clean.heapsnapshot" clean) ||
    { echo "FAIL: node could not write the snapshots"; exit 1; }

"$bin" waste -q --holders --threshold 0 --format tsv "$tmp/planted.heapsnapshot" > "$tmp/waste.tsv" ||
    bad "waste exited $?"
# section id count bytes wasted copy length fill detail type domain
awk -F '\t' 'NR > 1 && $1 == "empty-collections" { print $10 "\t" $3 "\t" $4 }' "$tmp/waste.tsv" | sort > "$tmp/rows"
sort "$tmp/planted.oracle" > "$tmp/oracle"
if cmp -s "$tmp/rows" "$tmp/oracle"; then ok; else
    bad "empty-collections rows differ from the oracle:"
    diff "$tmp/oracle" "$tmp/rows" | head -20
fi
awk -F '\t' 'NR > 1 && $1 != "empty-collections"' "$tmp/waste.tsv" | grep -q . && bad "sections other than empty-collections" || ok

# row TYPE: count and detail of the type's row.
row() { awk -F '\t' -v t="$1" 'NR > 1 && $10 == t { print $3 "\t" $9 }' "$tmp/waste.tsv"; }
[ "$(row WasteMap)" = "$(printf '300\theld by WasteHolder.m (300)')" ] && ok || bad "WasteMap: $(row WasteMap)"
[ "$(row WasteSet)" = "$(printf '200\theld by WasteHolder.s (200)')" ] && ok || bad "WasteSet: $(row WasteSet)"
arrays=$(row Array)
case $arrays in
*"held by WasteHolder.list (250)") ok ;;
*) bad "Array: $arrays" ;;
esac
[ "${arrays%%	*}" -ge 250 ] && ok || bad "Array: fewer than the 250 planted: $arrays"

"$bin" waste -q --threshold 0 --format json "$tmp/planted.heapsnapshot" > "$tmp/waste.json" || bad "json exited $?"
n=$(grep -o '"section":"empty-collections"' "$tmp/waste.json" | wc -l | tr -d ' ')
[ "$n" = "$(wc -l < "$tmp/rows" | tr -d ' ')" ] && ok || bad "json has $n rows, tsv $(wc -l < "$tmp/rows")"

"$bin" waste -q --format tsv "$tmp/clean.heapsnapshot" > "$tmp/clean.tsv" || bad "waste (clean) exited $?"
[ "$(wc -l < "$tmp/clean.tsv" | tr -d ' ')" = 1 ] && ok || { bad "rows on the clean snapshot:"; cat "$tmp/clean.tsv"; }

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
