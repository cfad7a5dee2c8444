#!/bin/sh
# `gcheap waste` on a Dart heap snapshot with planted waste, written by
# make_dart_waste from the description in tests/support/dart_waste.c, whose
# oracle computes every row from that description (no Dart VM can be had on
# the build machines: docs/waste.md, "Dart heap snapshots"). Checks each row
# (section, type, count, bytes, wasted; the strings' copy, length, value and
# member), --holders, the same output from a pipe and from gzip,
# `check --max-waste` at the total and one byte below, `report --waste`, and
# that a snapshot without planted waste shows no section at the defaults.
#   sh test_waste_dart.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -u
bin=$1
data=$2
make=$3/make_dart_waste
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

"$make" "$tmp/p.dartheap" "$tmp/p" || { echo "FAIL: make_dart_waste"; exit 1; }
"$make" "$tmp/c.dartheap" "$tmp/c" clean || { echo "FAIL: make_dart_waste clean"; exit 1; }
"$bin" waste -q --threshold 0 --holders --format tsv "$tmp/p.dartheap" > "$tmp/waste.tsv" ||
    bad "waste exited $?"

awk -F '\t' 'NR > 1 { print $1 "\t" $10 "\t" $3 "\t" $4 "\t" $5 }' "$tmp/waste.tsv" | sort > "$tmp/rows"
sort "$tmp/p.rows" > "$tmp/oracle"
[ "$(grep -c . "$tmp/oracle")" -eq 11 ] && ok || bad "the oracle has $(grep -c . "$tmp/oracle") rows, not 11"
cmp -s "$tmp/rows" "$tmp/oracle" && ok || { bad "rows differ from the oracle's:"; diff "$tmp/oracle" "$tmp/rows"; }
# Strings: count, bytes, wasted, copy, length, the member shown and its value.
awk -F '\t' '$1 == "duplicate-strings" { print $3 "\t" $4 "\t" $5 "\t" $6 "\t" $7 "\t" $2 "\t" $9 }' \
    "$tmp/waste.tsv" | sort > "$tmp/dups"
sort "$tmp/p.dups" > "$tmp/odups"
cmp -s "$tmp/dups" "$tmp/odups" && ok || { bad "string groups differ:"; diff "$tmp/odups" "$tmp/dups"; }
awk -F '\t' '$1 == "empty-collections" { print $10 "\t" ($9 == "" ? "-" : $9) }' "$tmp/waste.tsv" |
    sort > "$tmp/holders"
sort "$tmp/p.holders" > "$tmp/oholders"
cmp -s "$tmp/holders" "$tmp/oholders" && ok || { bad "holders differ:"; diff "$tmp/oholders" "$tmp/holders"; }

# From a pipe and from gzip: the same output (the contents are kept in the heap).
"$bin" waste -q --threshold 0 --format tsv "$tmp/p.dartheap" > "$tmp/file.tsv"
cat "$tmp/p.dartheap" | "$bin" waste -q --threshold 0 --format tsv - > "$tmp/pipe.tsv" || bad "pipe: exit $?"
gzip -c "$tmp/p.dartheap" > "$tmp/p.dartheap.gz"
"$bin" waste -q --threshold 0 --format tsv "$tmp/p.dartheap.gz" > "$tmp/gz.tsv" || bad "gzip: exit $?"
cmp -s "$tmp/file.tsv" "$tmp/pipe.tsv" && ok || bad "a pipe gives other rows"
cmp -s "$tmp/file.tsv" "$tmp/gz.tsv" && ok || bad "gzip gives other rows"

# check --max-waste: the oracle's total passes, one byte less fails.
total=$(cat "$tmp/p.total")
"$bin" check -q --max-waste "$total" "$tmp/p.dartheap" > /dev/null
[ $? -eq 0 ] && ok || bad "check --max-waste $total did not pass"
"$bin" check -q --max-waste $((total - 1)) "$tmp/p.dartheap" > /dev/null
[ $? -eq 1 ] && ok || bad "check --max-waste $((total - 1)) did not fail"

# report --waste: the page's rows are waste's.
"$bin" report -q --waste "$tmp/p.dartheap" -o "$tmp/page.html" || bad "report --waste exited $?"
awk '{ i = index($0, "\"waste\":["); if (i) { r = substr($0, i); print substr(r, 1, index(r, "}]")) } }' "$tmp/page.html" |
    sed 's/},{/}\n{/g' |
    sed -n 's/.*"section":"\([^"]*\)".*"type":"\([^"]*\)","count":\([0-9]*\),"bytes":\([0-9]*\),"wasted":\([0-9]*\).*/\1\t\2\t\3\t\4\t\5/p' |
    sort > "$tmp/page"
cmp -s "$tmp/page" "$tmp/oracle" && ok || { bad "the report's rows differ:"; diff "$tmp/oracle" "$tmp/page"; }

# objects --values: the 20 strings recorded as a 128-unit prefix end in "...",
# the 11 recorded whole (128 units) do not.
"$bin" objects -q --values --whole-values --format tsv "$tmp/p.dartheap" > "$tmp/values.tsv"
[ "$(awk -F '\t' 'length($5) >= 128 && $5 ~ /\.\.\.$/' "$tmp/values.tsv" | grep -c .)" -eq 20 ] &&
    [ "$(awk -F '\t' 'length($5) == 128 && $5 ~ /^abc/' "$tmp/values.tsv" | grep -c .)" -eq 11 ] && ok ||
    bad "objects --values: cut strings not marked"

# Without planted waste: no section above MAT's 5%, json without rows.
"$bin" waste -q "$tmp/c.dartheap" > "$tmp/clean.txt" || bad "clean: exit $?"
[ "$(awk 'NR > 1 && $1 != "total" && $1 !~ /^\(/' "$tmp/clean.txt" | grep -c .)" -eq 0 ] && ok ||
    { bad "rows on the clean snapshot:"; cat "$tmp/clean.txt"; }
"$bin" waste -q --format json "$tmp/c.dartheap" | grep -q '"rows":\[\]' && ok || bad "clean json has rows"
# The VM-layout fixture holds no waste either (no two equal strings, no empties).
[ "$("$bin" waste -q --threshold 0 --format tsv "$data/dart/twin.dartheap" | grep -vc '^section')" -eq 0 ] &&
    ok || bad "rows on twin.dartheap"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
