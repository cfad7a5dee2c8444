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
# thresholds; json has the same rows. Duplicate strings: the program plants
# 40 copies of one text built at run time; every duplicate-strings row
# (count, bytes, wasted, length) equals the oracle's group of string nodes
# with that text (counted from the snapshot's own nodes and self sizes), the
# planted text's row has count 40 and its text as detail.
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
awk -F '\t' 'NR > 1 && $1 != "empty-collections" && $1 != "duplicate-strings"' "$tmp/waste.tsv" | grep -q . &&
    bad "sections other than empty-collections and duplicate-strings" || ok

# duplicate strings: rows against the oracle's groups (count bytes wasted length)
awk -F '\t' 'NR > 1 && $1 == "duplicate-strings" { print $3 "\t" $4 "\t" $5 "\t" $7 }' "$tmp/waste.tsv" |
    sort > "$tmp/srows"
cut -f 1-4 "$tmp/planted.strings" | sort > "$tmp/soracle"
if [ -s "$tmp/soracle" ] && cmp -s "$tmp/srows" "$tmp/soracle"; then ok; else
    bad "duplicate-strings rows differ from the oracle:"
    diff "$tmp/soracle" "$tmp/srows" | head -20
fi
planted=$(awk -F '\t' '$1 == "duplicate-strings" && $9 == "planted duplicate text 4242" { print $3 }' "$tmp/waste.tsv")
[ "$planted" = 40 ] && ok || bad "planted duplicate text: count '$planted', not 40"
want=$(awk -F '\t' '$5 == "\"planted duplicate text 4242\"" { print $1 "\t" $3 }' "$tmp/planted.strings")
got=$(awk -F '\t' '$9 == "planted duplicate text 4242" { print $3 "\t" $5 }' "$tmp/waste.tsv")
[ -n "$want" ] && [ "$want" = "$got" ] && ok || bad "planted duplicate text: wasted '$got', oracle '$want'"

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
