#!/bin/sh
# Smoke test of the benchmark dump generator (bench/gendump.c).
#
#   sh tests/cli/test_gendump.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
#
# The generator is BUILD_TESTS_DIR/../gendump (or $GENDUMP). Checks that the
# output is deterministic for a seed, differs across seeds, and - with an
# independent awk reader - that the dump is well formed: every reference and
# root names an object of its section, the counts match gendump's summary,
# every root kind 0-5 appears, with a weak root and a static root whose
# container is a declared type.
set -u

if [ $# -lt 3 ]; then
    echo "usage: sh $0 GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR" >&2
    exit 2
fi
BUILD_TESTS_DIR=$3
GENDUMP=${GENDUMP:-$(dirname "$BUILD_TESTS_DIR")/gendump}

if [ ! -x "$GENDUMP" ]; then
    echo "SKIP: $GENDUMP not built (configure with -DGCHEAP_BENCH=ON)"
    echo "0 passed, 0 failed (skipped)"
    exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_gendump.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   - $1"; }
bad() { failed=$((failed + 1)); echo "FAIL - $1"; }
# expect DESC ACTUAL EXPECTED
expect() {
    if [ "$2" = "$3" ]; then ok "$1"; else bad "$1 (got '$2', expected '$3')"; fi
}
# field NAME FILE: the value after NAME in a "key value key value" line
field() {
    awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }' "$2"
}

# check DUMP: prints "key value" lines describing the dump, read independently.
check() {
    awk '
    function hexgt(a, b) { return length(a) > length(b) || (length(a) == length(b) && (a "") > (b "")) }
    FNR == 1 { pass++ }
    pass == 1 && $1 == "a" { sec++ }
    pass == 1 && $1 == "o" { obj[sec SUBSEP $2] = 1 }
    pass == 1 && $1 == "t" { typ[sec SUBSEP $2] = 1 }
    pass == 2 && $1 == "a" { s++; open++; sections++; last = "" }
    pass == 2 && $1 == "c" { open--; closes++ }
    pass == 2 && ($1 == "o" || $1 == "r") {
        if (open != 1) outside++
        for (i = 2; i <= NF; i++) if ($i !~ /^[0-9a-f]+$/) badhex++
    }
    pass == 2 && $1 == "t" {
        types++
        if ($2 !~ /^[0-9a-f]+$/) badhex++
        if ((s SUBSEP $2) in declared_early) dup_types++
        if ((s SUBSEP $2) in used) late_types++
        declared_early[s SUBSEP $2] = 1
        if ($0 ~ /, /) generic_names++
    }
    pass == 2 && $1 == "o" {
        objects++
        if (last != "" && !hexgt($2, last)) unordered++
        last = $2
        used[s SUBSEP $3] = 1
        if (!((s SUBSEP $3) in typ)) undeclared++
        n = NF - 4
        if (n > maxrefs) maxrefs = n
        for (i = 5; i <= NF; i++) {
            refs++
            if (!((s SUBSEP $i) in obj)) dangling++
        }
    }
    pass == 2 && $1 == "r" {
        roots++
        kind[$3]++
        if (!((s SUBSEP $2) in obj)) dangling_roots++
        if ($4 ~ /^[2367]$/) weak++
        if ($4 ~ /^[1357]$/) pinned++
        if ($3 == "4") {
            if (NF == 5) { statics++; if (!((s SUBSEP $5) in typ)) bad_containers++ }
            else missing_containers++
        } else if (NF != 4) bad_root_fields++
    }
    END {
        kinds = ""
        for (k = 0; k <= 5; k++) if (kind[k] > 0) kinds = kinds k
        printf "objects %d references %d types %d roots %d sections %d closes %d\n",
            objects, refs, types, roots, sections, closes
        printf "dangling %d dangling_roots %d undeclared %d unordered %d badhex %d outside %d\n",
            dangling, dangling_roots, undeclared, unordered, badhex, outside
        printf "kinds %s weak %d pinned %d statics %d bad_containers %d missing_containers %d bad_root_fields %d\n",
            kinds, weak, pinned, statics, bad_containers, missing_containers, bad_root_fields
        printf "late_types %d dup_types %d generic_names %d maxrefs %d\n",
            late_types, dup_types, generic_names, maxrefs
    }' "$1" "$1"
}

# --- determinism -----------------------------------------------------------
N=20000
"$GENDUMP" --objects $N --seed 42 >"$tmp/a.gclog" 2>"$tmp/a.err"
expect "gendump --objects $N --seed 42 exits 0" "$?" 0
"$GENDUMP" --objects $N --seed 42 >"$tmp/b.gclog" 2>"$tmp/b.err"
if cmp -s "$tmp/a.gclog" "$tmp/b.gclog"; then ok "same seed: byte-identical output"
else bad "same seed: outputs differ"; fi
if cmp -s "$tmp/a.err" "$tmp/b.err"; then ok "same seed: identical summary"
else bad "same seed: summaries differ"; fi
"$GENDUMP" --objects $N --seed 42 -o "$tmp/c.gclog" 2>/dev/null
if cmp -s "$tmp/a.gclog" "$tmp/c.gclog"; then ok "-o FILE writes what stdout gets"
else bad "-o FILE differs from stdout"; fi
"$GENDUMP" --objects $N --seed 43 >"$tmp/d.gclog" 2>/dev/null
if cmp -s "$tmp/a.gclog" "$tmp/d.gclog"; then bad "different seed: output identical"
else ok "different seed: output differs"; fi

# --- the dump, read independently -----------------------------------------
check "$tmp/a.gclog" >"$tmp/a.check"
sed 's/^/    # /' "$tmp/a.err" "$tmp/a.check"
expect "object count matches the summary" "$(field objects "$tmp/a.check")" "$(field objects "$tmp/a.err")"
expect "object count is --objects" "$(field objects "$tmp/a.check")" "$N"
expect "reference count matches the summary" "$(field references "$tmp/a.check")" "$(field references "$tmp/a.err")"
expect "root count matches the summary" "$(field roots "$tmp/a.check")" "$(field roots "$tmp/a.err")"
expect "type record count matches the summary" "$(field types "$tmp/a.check")" "$(field types "$tmp/a.err")"
expect "byte count matches the summary" "$(wc -c <"$tmp/a.gclog" | tr -d ' ')" "$(field bytes "$tmp/a.err")"
expect "every reference names an existing object" "$(field dangling "$tmp/a.check")" 0
expect "every root names an existing object" "$(field dangling_roots "$tmp/a.check")" 0
expect "every object type is declared" "$(field undeclared "$tmp/a.check")" 0
expect "object ids strictly increase" "$(field unordered "$tmp/a.check")" 0
expect "numbers are lowercase hex" "$(field badhex "$tmp/a.check")" 0
expect "one section, closed" "$(field sections "$tmp/a.check") $(field closes "$tmp/a.check") $(field outside "$tmp/a.check")" "1 1 0"
expect "every root kind 0-5 appears" "$(field kinds "$tmp/a.check")" 012345
weak=$(field weak "$tmp/a.check")
if [ "${weak:-0}" -ge 1 ]; then ok "weak roots: $weak"; else bad "no weak root"; fi
statics=$(field statics "$tmp/a.check")
if [ "${statics:-0}" -ge 1 ]; then ok "static roots with a container: $statics"; else bad "no static root with a container"; fi
expect "static containers are declared types" "$(field bad_containers "$tmp/a.check") $(field missing_containers "$tmp/a.check")" "0 0"
expect "only static roots have a container" "$(field bad_root_fields "$tmp/a.check")" 0
late=$(field late_types "$tmp/a.check")
if [ "${late:-0}" -ge 1 ]; then ok "types declared after their objects: $late"; else bad "no type declared after use"; fi
expect "type ids declared once per section" "$(field dup_types "$tmp/a.check")" 0
gen=$(field generic_names "$tmp/a.check")
if [ "${gen:-0}" -ge 1 ]; then ok "type names with ', ': $gen"; else bad "no generic type name with spaces and commas"; fi
maxrefs=$(field maxrefs "$tmp/a.check")
if [ "${maxrefs:-0}" -ge 1000 ]; then ok "a huge array: $maxrefs references on one line"
else bad "no object with >= 1000 references (max $maxrefs)"; fi
refs=$(field references "$tmp/a.check")
if [ "${refs:-0}" -ge $((N * 23 / 10)) ] && [ "${refs:-0}" -le $((N * 27 / 10)) ]; then
    ok "about 2.5 references per object ($refs)"
else bad "references per object not about 2.5 ($refs for $N objects)"; fi

# --- several sections, other density ----------------------------------------
"$GENDUMP" --objects $N --seed 5 --sections 3 --refs-per-object 4 -o "$tmp/s.gclog" 2>"$tmp/s.err"
expect "gendump --sections 3 exits 0" "$?" 0
check "$tmp/s.gclog" >"$tmp/s.check"
expect "3 sections, all closed" "$(field sections "$tmp/s.check") $(field closes "$tmp/s.check") $(field outside "$tmp/s.check")" "3 3 0"
expect "sections: counts match the summary" \
    "$(field objects "$tmp/s.check") $(field references "$tmp/s.check") $(field roots "$tmp/s.check")" \
    "$(field objects "$tmp/s.err") $(field references "$tmp/s.err") $(field roots "$tmp/s.err")"
expect "sections: references stay inside their section" "$(field dangling "$tmp/s.check") $(field dangling_roots "$tmp/s.check")" "0 0"
refs=$(field references "$tmp/s.check")
if [ "${refs:-0}" -ge $((N * 37 / 10)) ] && [ "${refs:-0}" -le $((N * 43 / 10)) ]; then
    ok "--refs-per-object 4 gives about 4 ($refs)"
else bad "--refs-per-object 4 gives $refs for $N objects"; fi

# --- options -----------------------------------------------------------------
"$GENDUMP" --objects 10 --bogus >/dev/null 2>&1
expect "unknown option exits 2" "$?" 2
"$GENDUMP" --objects ten >/dev/null 2>&1
expect "bad number exits 2" "$?" 2
"$GENDUMP" --objects 0 >"$tmp/z.gclog" 2>"$tmp/z.err"
expect "--objects 0 exits 0" "$?" 0
expect "--objects 0: no object" "$(field objects "$tmp/z.err")" 0

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
