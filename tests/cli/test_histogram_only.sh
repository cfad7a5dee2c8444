#!/bin/sh
# `stat` without --live/--retained loads .gclog dumps histogram-only (objects
# counted per type, not stored: gch_load_options.histogram_only). Its output
# (every format), warnings and exit status must equal those of the stored
# path, forced with the test hook GCHEAP_TEST_STORE_OBJECTS=1, on every
# .gclog in testdata, on gendump dumps (one and two sections), and on dumps
# crafted to leave the increasing-id fast path: ids out of order, duplicate
# objects (same and other type/size, before and after the first id that does
# not increase), id 0, undeclared types, roots on absent objects.
#
#   sh test_histogram_only.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -u
bin=$1
data=$2
GENDUMP=${GENDUMP:-$(dirname "$3")/gendump}
pass=0
fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_histogram_only.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# same NAME ARGS...: histogram-only and stored runs agree (stdout, stderr, status).
same() {
    name=$1
    shift
    "$bin" "$@" > "$tmp/h.out" 2> "$tmp/h.err"
    hs=$?
    GCHEAP_TEST_STORE_OBJECTS=1 "$bin" "$@" > "$tmp/s.out" 2> "$tmp/s.err"
    ss=$?
    if [ "$hs" = "$ss" ] && cmp -s "$tmp/h.out" "$tmp/s.out" && cmp -s "$tmp/h.err" "$tmp/s.err"; then
        pass=$((pass + 1))
    else
        echo "FAIL: $name: $* (status $hs vs $ss)"
        diff "$tmp/s.out" "$tmp/h.out" | head -5
        diff "$tmp/s.err" "$tmp/h.err" | head -5
        fail=$((fail + 1))
    fi
}

check_dump() {
    f=$1
    for fmt in table tsv csv json; do
        same "$f" stat --format "$fmt" "$f"
    done
    same "$f" stat --threads 1 "$f"
    same "$f" stat --sort name --top 3 "$f"
    same "$f (pipe)" stat --format tsv - < "$f"
}

# Crafted: the first duplicate comes while ids still increase? It cannot (a
# repeat does not increase); so one dump repeats an id right away, one after
# an out-of-order id, one repeats id 0, and each has undeclared types and
# absent roots.
cat > "$tmp/dup_early.gclog" <<'EOF'
a 2 dup.exe 10
t 1 App.A
t 2 App.B
o 100 1 10
o 100 2 30
o 110 1 10
o 120 9 4
o 110 9 7
r 100 1 0
r 999 1 0
c dup.exe 20
EOF
cat > "$tmp/dup_late.gclog" <<'EOF'
a 2 dup.exe 10
t 1 App.A
t 2 App.A
o 0 1 10
o 8 2 16
o 18 7 5
o 10 1 3
o 0 2 99
o 18 1 1
o 30 7 2
o 10 7 4
r 0 1 0
r 18 1 0
r 20 1 0
r 10 2 0
c dup.exe 20
EOF
cat > "$tmp/two_sections.gclog" <<'EOF'
a 2 one.exe 10
t 1 App.A
o 30 1 10
o 20 1 10
o 30 5 1
r 40 1 0
c one.exe 20
a 2 two.exe 10
t 1 App.A
o 30 1 10
o 40 1 10
r 30 1 0
r 20 1 0
c two.exe 20
EOF
# Sizes near 2^64: a repeat must not count towards the overflow check (found
# by fuzz_gclog), and a real overflow must still be refused.
printf 'a 2 big.exe 10\no 1 1 ffffffffffffffff\no 1 1 1\no 2 2 1\nc big.exe 20\n' > "$tmp/dup_size.gclog"
printf 'a 2 big.exe 10\no 1 1 ffffffffffffffff\no 2 1 1\nc big.exe 20\n' > "$tmp/overflow.gclog"
for f in "$data"/*.gclog "$data"/*/*.gclog "$tmp"/*.gclog; do
    [ -f "$f" ] && check_dump "$f"
done

if [ -x "$GENDUMP" ]; then
    "$GENDUMP" --objects 300000 -o "$tmp/g1.gclog" 2> /dev/null
    "$GENDUMP" --objects 300000 --sections 2 --seed 3 -o "$tmp/g2.gclog" 2> /dev/null
    # Out of order and repeated: every 7th object line moves behind the next
    # one, every 1000th comes again (same line), every 1500th again with
    # another type and size; big enough for the parallel parser's runs.
    awk '$1 == "o" && NR % 7 == 0 { held = $0; next }
         { print }
         $1 == "o" && held != "" { print held; held = "" }
         $1 == "o" && NR % 1000 == 0 { print }
         $1 == "o" && NR % 1500 == 0 { print "o " $2 " ffff 3" }' \
        "$tmp/g1.gclog" > "$tmp/g1_shuffled.gclog"
    for f in "$tmp"/g1.gclog "$tmp"/g2.gclog "$tmp"/g1_shuffled.gclog; do
        check_dump "$f"
    done
    # The shuffled dump must really leave the fast path: duplicates reported.
    if "$bin" stat "$tmp/g1_shuffled.gclog" 2>&1 > /dev/null | grep -q "duplicate object"; then
        pass=$((pass + 1))
    else
        echo "FAIL: g1_shuffled.gclog reports no duplicate"
        fail=$((fail + 1))
    fi
else
    echo "note: $GENDUMP not found; generated dumps skipped"
fi

echo "histogram_only: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
