#!/bin/sh
# Values are cut at a documented default length (PAYLOAD_VALUE_CHARS, 80
# characters then "...", src/cli/payload.h) in every output format, and
# `--whole-values` prints them whole (issue 36, finding 6: 100 Strings
# sharing one 16 KiB array made 1.6 MB of tsv from a 22 KB dump).
# testdata/hprof/shared-value.hprof comes from tests/tools/make_hprof_fixtures.c.
#   sh tests/cli/test_values_cut.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -u
G=$1 DATA=$2
D=$DATA/hprof/shared-value.hprof
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   - $1"; }
bad() { failed=$((failed + 1)); echo "FAIL - $1"; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_values_cut.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
in=$(wc -c < "$D")
# The 80 first characters of the shared value, as the dump holds them.
want=$(awk 'BEGIN { for (i = 0; i < 80; i++) printf "%d", i % 10; printf "..." }')
for f in table tsv csv json; do
    "$G" objects --values --format "$f" --top 200 "$D" > "$tmp/out.$f" 2> "$tmp/err" ||
        bad "$f: exit $?: $(head -1 "$tmp/err")"
    out=$(wc -c < "$tmp/out.$f")
    # 101 Strings: each row holds at most 83 characters of value.
    if [ "$out" -lt $((2 * in)) ]; then ok "$f: $out bytes of output from $in of input"
    else bad "$f: $out bytes of output from $in of input (values not cut)"; fi
    n=$(grep -o -- "$want" "$tmp/out.$f" | wc -l)
    [ "$n" -eq 100 ] && ok "$f: 100 values cut at 80 characters" || bad "$f: $n values cut at 80 characters"
    grep -q 'short' "$tmp/out.$f" && ok "$f: a short value whole" || bad "$f: the short value"
done
# --whole-values: the whole 16,384 characters (tsv value column).
"$G" objects --whole-values --format tsv --type java.lang.String --top 200 "$D" > "$tmp/whole" 2> "$tmp/err" ||
    bad "--whole-values: exit $?: $(head -1 "$tmp/err")"
lens=$(awk -F '\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "value") c = i; next }
    { print length($c) }' "$tmp/whole" | sort -n | uniq -c | tr -s ' ' | tr '\n' ';')
[ "$lens" = " 1 5; 100 16384;" ] && ok "--whole-values: 100 values of 16384 characters, one of 5" ||
    bad "--whole-values: value lengths (count length): $lens"
full=$(awk 'BEGIN { for (i = 0; i < 16384; i++) printf "%d", i % 10 }')
grep -qF -- "$full" "$tmp/whole" && ok "--whole-values: the value as the dump holds it" ||
    bad "--whole-values: the value differs"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
