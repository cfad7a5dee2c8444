#!/bin/sh
# Big hostile inputs, generated here (never committed), checked at the command
# level with exact totals:
#   - a 10,000,000-object chain (about 200 MB): info and stat --live must work
#     (nothing may recurse along the chain);
#   - one object with 1,000,000 references (an 8 MB line, read from stdin);
#   - a 10 MB type name;
#   - out of memory (ulimit -v) must exit 2 with "out of memory", not crash
#     (skipped when the program cannot start under the limit, as with ASan);
#   - endless lines: /dev/zero and a 4.3 GB sparse file fail at once, under a
#     400 MB memory limit (where the program starts under one); a line of
#     exactly GCH_GCLOG_MAX_LINE (64 MiB) bytes is read, one byte more is
#     refused with its line number, from a file and from stdin.
# Usage: sh test_hostile_big.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -u
bin=$1
work=$3/hostile-big.$$
mkdir -p "$work" || exit 1
trap 'rm -rf "$work"' EXIT HUP INT TERM
LC_ALL=C
export LC_ALL
fails=0

check() { # NAME EXPECTED ACTUAL
    if [ "$2" = "$3" ]; then
        echo "ok   $1"
    else
        echo "FAIL $1"
        echo "  expected: $2"
        echo "  actual:   $3"
        fails=$((fails + 1))
    fi
}

# Keys of `info --format tsv` joined as key=value on one line.
info_keys() { # FILE KEY...
    f=$1
    shift
    "$bin" info --format tsv "$f" 2>"$work/err" | awk -F '\t' -v keys="$*" '
        BEGIN { n = split(keys, k, " ") }
        { v[$1] = $2 }
        END { for (i = 1; i <= n; i++) printf "%s%s=%s", (i > 1 ? " " : ""), k[i], v[k[i]]; print "" }'
}

# "COUNT BYTES LENGTH-OF-TYPE" of the first row of a stat tsv on stdin. cut
# and wc, not awk: awk's length() of a 64 MB field took 47 s.
first_row_lengths() {
    sed -n 2p >"$work/row"
    printf '%s %s %s\n' "$(cut -f1 "$work/row")" "$(cut -f2 "$work/row")" "$(cut -f3 "$work/row" | tr -d '\n' | wc -c | tr -d ' ')"
}

# 1. A chain of N objects: 1 -> 2 -> ... -> N, root on 1. N is 10,000,000;
# the sanitizer build sets GCHEAP_HOSTILE_N=1000000 (tests/CMakeLists.txt):
# still far deeper than any stack, at a tenth of the sanitized run's time.
n=${GCHEAP_HOSTILE_N:-10000000}
awk -v n="$n" 'BEGIN {
    print "a 2 chain"; print "t 1 Node"
    for (i = 1; i < n; i++) printf "o %x 1 8 %x\n", i, i + 1
    printf "o %x 1 8\nr 1 1 0\nc chain\n", n
}' >"$work/chain.gclog"
check "chain: info totals" \
    "objects=$n bytes=$((n * 8)) references=$((n - 1)) live_objects=$n live_bytes=$((n * 8)) unreachable_objects=0" \
    "$(info_keys "$work/chain.gclog" objects bytes references live_objects live_bytes unreachable_objects)"
check "chain: info stderr empty" "" "$(cat "$work/err")"
out=$("$bin" stat --live --format tsv "$work/chain.gclog" 2>&1 | cut -f1-3) # the last column is the domain
check "chain: stat --live" "$(printf 'count\tbytes\ttype\n%s\t%s\tNode' "$n" $((n * 8)))" "$out"

# 2. One object with 1,000,000 references to 1,000 small objects, on stdin.
awk 'BEGIN {
    print "a 2 wide"; print "t 1 Big"; print "t 2 Small"
    printf "o 1 1 10"
    for (i = 0; i < 1000000; i++) printf " %x", 4096 + i % 1000
    printf "\n"
    for (i = 0; i < 1000; i++) printf "o %x 2 8\n", 4096 + i
    print "r 1 1 0"; print "c wide"
}' >"$work/wide.gclog"
out=$("$bin" info --format tsv - <"$work/wide.gclog" | awk -F '\t' '$1 == "references" || $1 == "live_objects" || $1 == "live_bytes" { printf "%s=%s ", $1, $2 }')
check "1M references: info from stdin" "references=1000000 live_objects=1001 live_bytes=8016 " "$out"

# 3. A 10 MB type name (10,485,760 bytes) comes out whole.
awk 'BEGIN {
    s = "ABCDEFGHIJKLMNOP"; while (length(s) < 10485760) s = s s; s = substr(s, 1, 10485760)
    print "a 2 x"; print "t 1 " s; print "o 1 1 8"; print "r 1 1 0"; print "c x"
}' >"$work/longname.gclog"
out=$("$bin" stat --format tsv "$work/longname.gclog" | first_row_lengths)
check "10 MB type name" "1 8 10485760" "$out"

# 4. Out of memory: the program reports it and exits 2.
if (ulimit -v 150000 && "$bin" --version) >/dev/null 2>&1; then
    (ulimit -v 150000 && exec "$bin" info "$work/chain.gclog") >/dev/null 2>"$work/err"
    status=$?
    check "out of memory: status" 2 "$status"
    check "out of memory: message" "gcheap: $work/chain.gclog: out of memory" "$(cat "$work/err")"
else
    echo "skip out of memory: the program does not start under ulimit -v (sanitizer build?)"
fi

# 5. Endless lines.
limit=
if (ulimit -v 400000 && "$bin" --version) >/dev/null 2>&1; then
    limit="ulimit -v 400000 &&"
fi
# Zeros are refused from their first bytes; an endless line that starts
# like a record stops at the line limit, in bounded memory.
zeros="not a heap dump (looks like binary data)"
(eval "$limit" timeout 120 "$bin" stat /dev/zero) >/dev/null 2>"$work/err"
check "/dev/zero: status" 2 "$?"
check "/dev/zero: message" "gcheap: /dev/zero: $zeros" "$(cat "$work/err")"
(eval "$limit" '{ printf "a 2 x\nt 1 "; tr "\0" N < /dev/zero; }' \| timeout 120 "$bin" stat -) >/dev/null 2>"$work/err"
check "endless line: status" 2 "$?"
check "endless line: message" "gcheap: <stdin>:2: line longer than 67108864 bytes" "$(cat "$work/err")"
if truncate -s 4300M "$work/sparse.gclog" 2>/dev/null; then
    (eval "$limit" timeout 120 "$bin" stat "$work/sparse.gclog") >/dev/null 2>"$work/err"
    check "4.3 GB of zeros: status" 2 "$?"
    check "4.3 GB of zeros: message" "gcheap: $work/sparse.gclog: $zeros" "$(cat "$work/err")"
    rm -f "$work/sparse.gclog"
fi
longest=67108864
for extra in 0 1; do
    { printf 'a 2 x\nt 1 '; head -c $((longest - 4 + extra)) /dev/zero | tr '\0' 'N'; printf '\no 1 1 8\nc x\n'; } >"$work/long.gclog"
    if [ $extra = 0 ]; then
        out=$("$bin" stat --format tsv "$work/long.gclog" | first_row_lengths)
        check "line of $longest bytes: file" "1 8 $((longest - 4))" "$out"
        out=$("$bin" stat --format tsv - <"$work/long.gclog" | first_row_lengths)
        check "line of $longest bytes: stdin" "1 8 $((longest - 4))" "$out"
    else
        "$bin" stat "$work/long.gclog" >/dev/null 2>"$work/err"
        check "line of $((longest + 1)) bytes: file" "2 gcheap: $work/long.gclog:2: line longer than $longest bytes" "$? $(cat "$work/err")"
        "$bin" stat - <"$work/long.gclog" >/dev/null 2>"$work/err"
        check "line of $((longest + 1)) bytes: stdin" "2 gcheap: <stdin>:2: line longer than $longest bytes" "$? $(cat "$work/err")"
    fi
done
rm -f "$work/long.gclog"

[ "$fails" -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all checks passed"
