#!/bin/sh
# `gcheap leaks` on real V8 snapshots of one Node.js process
# (tests/node/leak_series.js): V8 node ids are stable, so memlab's rule runs.
#   - with 100 LeakyItem objects kept between the first and the second
#     snapshot (and 100 more before the third), the leak group whose path ends
#     in `.keep -> Array -> LeakyItem` has exactly 100 heads, and its bytes
#     are 100 times the retained size of one leaked LeakyItem as `objsize`
#     computes it from the dominator tree (another algorithm);
#   - the short-lived Churn objects are never reported, and a series that
#     only churns reports no LeakyItem;
#   - --fail-on-leak exits 1 on the leaking series;
#   - a program that puts N = 3000 SessionEntry objects in a global Map
#     between the first and the second snapshot (tests/node/leak_map_series.js):
#     the leak row names the Map (its internal table, the head, is folded into
#     it), and its leak-type row of SessionEntry has exactly N objects, the
#     count the program made; no row names a V8 internal ((system),
#     (compiled code), (object shape), feedback, system / ...), while
#     --internals shows some;
#   - `gcheap report` on the Map series: its leak rows are those of
#     `leaks --format json` (tests/browser/report_data.js compares them), the
#     SessionEntry count is N there too, and the path of the first row is
#     `gcheap retainers`' path of its id in the last snapshot.
#   sh test_v8_leaks.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
# Needs Node.js: installed with apt-get when missing; skipped with a message
# only when that is impossible.
set -u
. "$(dirname "$0")/need.sh"
scratch v8_leaks "$1" "${3:-}" || exit 1
need test_v8_leaks nodejs node || exit 0
here=$root/tests/cli
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

mkdir "$tmp/leak" "$tmp/churn"
node "$here/../node/leak_series.js" "$tmp/leak" 100 && node "$here/../node/leak_series.js" "$tmp/churn" 0 ||
    { echo "FAIL: node could not write the snapshots"; exit 1; }
L=$tmp/leak
"$bin" leaks --format tsv "$L/s1.heapsnapshot" "$L/s2.heapsnapshot" "$L/s3.heapsnapshot" > "$tmp/leaks.tsv" 2> "$tmp/err" ||
    bad "leaks exited $?: $(head -2 "$tmp/err")"
row=$(awk -F'\t' '$1 == "leak" && $8 ~ /-\.keep-> Array -\[\]-> LeakyItem$/' "$tmp/leaks.tsv")
heads=$(printf '%s\n' "$row" | awk -F'\t' 'NF { print $4 }')
bytes=$(printf '%s\n' "$row" | awk -F'\t' 'NF { print $3 }')
if [ "$heads" = 100 ]; then ok; else bad "LeakyItem leak group: heads '$heads', expected 100"; cat "$tmp/leaks.tsv" | head -5; fi
# One leaked LeakyItem: its id is a head of the group (the row's example id).
id=$(printf '%s\n' "$row" | awk -F'\t' 'NF { print $7 }')
one=$("$bin" objsize --format tsv "$L/s3.heapsnapshot" "$id" 2> /dev/null |
    awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "retained") c = i } NR == 2 { print $c }')
if [ -n "$one" ] && [ "$bytes" = $((100 * one)) ]; then ok; else
    bad "LeakyItem leak bytes $bytes, expected 100 x retained $one of $id"
fi
if awk -F'\t' '$8 ~ /Churn$/' "$tmp/leaks.tsv" | grep -q .; then bad "churned objects reported as leaks"; else ok; fi
C=$tmp/churn
"$bin" leaks --format tsv "$C/s1.heapsnapshot" "$C/s2.heapsnapshot" "$C/s3.heapsnapshot" > "$tmp/churn.tsv" 2> /dev/null
if awk -F'\t' '$8 ~ /LeakyItem|Churn$/' "$tmp/churn.tsv" | grep -q .; then bad "a churn-only series reports LeakyItem or Churn"; else ok; fi
"$bin" leaks --fail-on-leak=10KiB "$L/s1.heapsnapshot" "$L/s2.heapsnapshot" "$L/s3.heapsnapshot" > /dev/null 2>&1
st=$?
if [ $st -eq 1 ]; then ok; else bad "--fail-on-leak=10KiB exit $st, expected 1"; fi

N=3000
M=$tmp/map
mkdir "$M"
node "$here/../node/leak_map_series.js" "$M" $N || { echo "FAIL: node could not write the Map snapshots"; exit 1; }
"$bin" leaks --format tsv "$M/s1.heapsnapshot" "$M/s2.heapsnapshot" "$M/s3.heapsnapshot" > "$tmp/map.tsv" 2> "$tmp/err" ||
    bad "leaks (Map) exited $?: $(head -2 "$tmp/err")"
# The leak-type rows that follow the leak row of the Map.
got=$(awk -F'\t' '$1 == "leak" { inmap = ($8 ~ /-\.sessions-> Map$/) } $1 == "leak-type" && inmap && $8 == "SessionEntry" { print $2 }' "$tmp/map.tsv")
if [ "$got" = $N ]; then ok; else bad "Map leak: SessionEntry objects '$got', expected $N"; head -8 "$tmp/map.tsv"; fi
if awk -F'\t' '$1 == "leak" && $8 ~ /\(array\)$/' "$tmp/map.tsv" | grep -q .; then
    bad "a leak head is the Map's internal (array)"
else ok; fi
internal='(\((system|compiled code|code|object shape|feedback|feedback vector)\)|system / [^>]*)$'
if awk -F'\t' -v re="$internal" 'NR > 1 && $8 ~ re' "$tmp/map.tsv" | grep -q .; then
    bad "V8 internal rows reported: $(awk -F'\t' -v re="$internal" 'NR > 1 && $8 ~ re' "$tmp/map.tsv" | head -2)"
else ok; fi
"$bin" leaks --internals --format tsv "$M/s1.heapsnapshot" "$M/s2.heapsnapshot" "$M/s3.heapsnapshot" > "$tmp/all.tsv" 2> /dev/null
if awk -F'\t' -v re="$internal" 'NR > 1 && $8 ~ re' "$tmp/all.tsv" | grep -q .; then ok; else
    bad "--internals shows no internal row"
fi

. "$here/retainers_paths.sh"
RD=$here/../browser/report_data.js
"$bin" report -q "$M/s1.heapsnapshot" "$M/s2.heapsnapshot" "$M/s3.heapsnapshot" -o "$tmp/map.html" 2> "$tmp/err" ||
    bad "report (Map) exited $?: $(head -2 "$tmp/err")"
"$bin" leaks -q --format json "$M/s1.heapsnapshot" "$M/s2.heapsnapshot" "$M/s3.heapsnapshot" > "$tmp/map.json"
r=$(node "$RD" "$tmp/map.html" leaksjson "$tmp/map.json")
if [ "$r" = same ]; then ok; else bad "report (Map): leak rows differ from leaks --format json: $r"; fi
node "$RD" "$tmp/map.html" leakrows > "$tmp/map.rows"
got=$(awk -F'\t' '$1 == "leak" { inmap = ($8 ~ /-\.sessions-> Map$/) } $1 == "leak-type" && inmap && $8 == "SessionEntry" { print $2 }' "$tmp/map.rows")
if [ "$got" = $N ]; then ok; else bad "report (Map): SessionEntry objects '$got', expected $N"; fi
id=$(head -1 "$tmp/map.rows" | cut -f7)
node "$RD" "$tmp/map.html" leakpaths | awk -F'\t' -v id="$id" '$1 == id' | sort -u > "$tmp/map.path"
retainers_paths "$bin" "$M/s3.heapsnapshot" "$id" | sort -u > "$tmp/map.want"
if [ -s "$tmp/map.path" ] && cmp -s "$tmp/map.path" "$tmp/map.want"; then ok; else
    bad "report (Map): the first row's path differs from retainers': $(diff "$tmp/map.path" "$tmp/map.want" | head -4)"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
