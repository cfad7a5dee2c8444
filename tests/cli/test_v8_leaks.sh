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
#   - --fail-on-leak exits 1 on the leaking series.
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
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
