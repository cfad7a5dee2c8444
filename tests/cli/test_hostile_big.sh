#!/bin/sh
# Big hostile inputs, generated here (never committed), checked at the command
# level with exact totals:
#   - a 10,000,000-object chain (about 200 MB): info and stat --live must work
#     (nothing may recurse along the chain);
#   - one object with 1,000,000 references (an 8 MB line, read from stdin);
#   - a 10 MB type name;
#   - out of memory (ulimit -v) must exit 2 with "out of memory", not crash
#     (skipped when the program cannot start under the limit, as with ASan).
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

# 1. A chain of 10,000,000 objects: 1 -> 2 -> ... -> 10000000, root on 1.
awk 'BEGIN {
    print "a 2 chain"; print "t 1 Node"; n = 10000000
    for (i = 1; i < n; i++) printf "o %x 1 8 %x\n", i, i + 1
    printf "o %x 1 8\nr 1 1 0\nc chain\n", n
}' >"$work/chain.gclog"
check "chain: info totals" \
    "objects=10000000 bytes=80000000 references=9999999 live_objects=10000000 live_bytes=80000000 unreachable_objects=0" \
    "$(info_keys "$work/chain.gclog" objects bytes references live_objects live_bytes unreachable_objects)"
check "chain: info stderr empty" "" "$(cat "$work/err")"
out=$("$bin" stat --live --format tsv "$work/chain.gclog" 2>&1 | cut -f1-3) # the last column is the domain
check "chain: stat --live" "$(printf 'count\tbytes\ttype\n10000000\t80000000\tNode')" "$out"

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
out=$("$bin" stat --format tsv "$work/longname.gclog" | awk -F '\t' 'NR == 2 { print $1, $2, length($3) }')
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

[ "$fails" -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all checks passed"
