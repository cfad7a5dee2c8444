#!/bin/sh
# `gcheap report --waste` embeds the rows of `gcheap waste --threshold 0`
# (section, type, count, bytes, wasted) in the page's data, and a report
# without --waste has no "waste" key (its data stays as it was).
#   sh test_waste_report.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -u
bin=$1
d=$2/hprof/waste.hprof
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

"$bin" report -q --waste "$d" -o "$tmp/page.html" || bad "report --waste exited $?"
"$bin" report -q "$d" -o "$tmp/plain.html" || bad "report exited $?"
# The rows of the page: one line each, "section type count bytes wasted".
# (the array ends at the first "}]": type names hold "[]" but no "}")
awk '{ i = index($0, "\"waste\":["); if (i) { r = substr($0, i); print substr(r, 1, index(r, "}]")) } }' "$tmp/page.html" |
    sed 's/},{/}\n{/g' |
    sed -n 's/.*"section":"\([^"]*\)".*"type":"\([^"]*\)","count":\([0-9]*\),"bytes":\([0-9]*\),"wasted":\([0-9]*\).*/\1 \2 \3 \4 \5/p' > "$tmp/page"
"$bin" waste -q --threshold 0 --format tsv "$d" |
    awk -F '\t' 'NR > 1 { print $1, $10, $3, $4, $5 }' > "$tmp/waste"
[ -s "$tmp/waste" ] && ok || bad "waste printed no row"
cmp -s "$tmp/page" "$tmp/waste" && ok || { bad "the page's rows differ from waste's:"; diff "$tmp/waste" "$tmp/page"; }
grep -q '"waste":' "$tmp/plain.html" && bad "a report without --waste has a waste key" || ok
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
