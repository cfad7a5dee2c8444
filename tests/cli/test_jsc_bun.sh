#!/bin/sh
# Real JavaScriptCore heap snapshots written by Bun (tests/bun/plant.js plants
# a known heap: LEAKY instances of class Leaky in an array of a Holder held
# from the global by keep.holder, a Pair per 10 of them, Maps and Sets) and,
# in the same pause, Bun's own count (heapStats().objectTypeCounts of
# bun:jsc) and the V8-format snapshot of the same heap:
#   - stat: the program's classes have the counts it made; every class that
#     heapStats() names has heapStats()' count (but the classes the calls
#     themselves allocate between the two: see SKIPPED below); the V8-format
#     snapshot agrees on the program's classes;
#   - retained sizes (objects --retained, with and without --include-weak)
#     equal an independent computation by the definition
#     (tests/tools/jsc_dom_oracle.c) on the same graph;
#   - retainers of a Leaky names the global object and .keep .holder .items;
#   - the same output from gzip and from stdin as from the file; every command runs;
#   - a truncated snapshot is an input error (exit 2, with an offset).
#   sh test_jsc_bun.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
# Needs Bun: installed from npm (tests/bun/install_bun.sh) into
# BUILD_TESTS_DIR/bun-npm (or $GCHEAP_BUN_DIR); skipped, with a message,
# only where that is impossible.
set -u
. "$(dirname "$0")/need.sh"
. "$(dirname "$0")/../bun/install_bun.sh"
scratch jsc_bun "$1" "${3:-}" || exit 1
build_tests=$(cd "${3:-$tmp}" && pwd)
bun_install test_jsc_bun "${GCHEAP_BUN_DIR:-$build_tests/bun-npm}" || exit 0
oracle=$build_tests/jsc_dom_oracle
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

LEAKY=1000
"$bun" "$root/tests/bun/plant.js" "$tmp" $LEAKY || { echo "FAIL: bun could not write the snapshots"; exit 1; }
snap=$tmp/jsc.json
head -c 41 "$snap" | grep -q '^{"version":3,"type":"Inspector","nodes":\[' && ok ||
    bad "Bun $("$bun" --version) writes another layout: $(head -c 60 "$snap")"

# stat against what the program made and what heapStats() counted
"$bin" stat --format tsv "$snap" > "$tmp/stat.tsv" || bad "stat exit $?"
while IFS='	' read -r cls made; do
    got=$(awk -F'\t' -v c="$cls" '$3 == c { print $1 }' "$tmp/stat.tsv")
    case $cls in
    Map|Set) [ "${got:-0}" -ge "$made" ] && ok || bad "$cls: $got, fewer than the $made the program made" ;;
    *) [ "$got" = "$made" ] && ok || bad "$cls: $got, the program made $made" ;;
    esac
done < "$tmp/made.tsv"
# heapStats() returns {"Class":count,...}: one pair a line
tr '{},' '\n\n\n' < "$tmp/stats.json" | sed -n 's/^"\(.*\)":\([0-9]*\)$/\1	\2/p' > "$tmp/stats.tsv"
# Allocated by the heapStats() call and the snapshot's own machinery between
# the two counts (the result objects, their structures and property tables),
# and Object: heapStats() counts every plain object as "Object" (its
# ClassInfo) where the snapshot names it by its constructor (Leaky, Pair).
SKIPPED=" Object Array Function NativeExecutable Structure PropertyTable "
compared=0
while IFS='	' read -r cls n; do
    case $SKIPPED in *" $cls "*) continue ;; esac
    got=$(awk -F'\t' -v c="$cls" '$3 == c { print $1 }' "$tmp/stat.tsv")
    compared=$((compared + 1))
    [ "$got" = "$n" ] && ok || bad "class $cls: stat counts ${got:-none}, heapStats() $n"
done < "$tmp/stats.tsv"
[ $compared -ge 40 ] && ok || bad "only $compared classes compared with heapStats()"
for cls in Leaky Pair Holder Map Set; do
    grep -q "	$cls	" "$tmp/stats.tsv" && [ "$cls" != Map ] && [ "$cls" != Set ] &&
        bad "heapStats() names $cls: then it is compared above"
    a=$(awk -F'\t' -v c="$cls" '$3 == c { print $1 }' "$tmp/stat.tsv")
    b=$("$bin" stat --format tsv "$tmp/v8.heapsnapshot" | awk -F'\t' -v c="$cls" '$3 == c { print $1 }')
    [ -n "$a" ] && [ "$a" = "$b" ] && ok || bad "$cls: $a in the JSC snapshot, $b in the V8-format one"
done

# retained sizes against the oracle, both root sets
"$oracle" "$snap" weak | sort > "$tmp/oracle_weak.tsv" || bad "oracle exit $?"
"$bin" objects --retained --include-weak --format tsv "$snap" | awk -F'\t' 'NR > 1 { print $1 "\t" $5 }' |
    sort > "$tmp/gcheap_weak.tsv"
[ -s "$tmp/oracle_weak.tsv" ] && cmp -s "$tmp/oracle_weak.tsv" "$tmp/gcheap_weak.tsv" && ok ||
    bad "retained sizes (--include-weak) differ from the oracle: $(diff "$tmp/oracle_weak.tsv" "$tmp/gcheap_weak.tsv" | head -5)"
"$oracle" "$snap" | sort > "$tmp/oracle.tsv"
"$bin" objects --retained --format tsv "$snap" | awk -F'\t' 'NR > 1 && $5 != "" { print $1 "\t" $5 }' |
    sort > "$tmp/gcheap.tsv"
[ -s "$tmp/oracle.tsv" ] && cmp -s "$tmp/oracle.tsv" "$tmp/gcheap.tsv" && ok ||
    bad "retained sizes differ from the oracle: $(diff "$tmp/oracle.tsv" "$tmp/gcheap.tsv" | head -5)"

# retainers of a kept object: the global and the property path
leaky=$("$bin" objects --type Leaky --format tsv --sort id "$snap" | sed -n 2p | cut -f1)
"$bin" retainers "$snap" "$leaky" > "$tmp/ret.out"
grep -q -- '-> [0-9]* GlobalObject$' "$tmp/ret.out" && grep -q -- '-> \.keep [0-9]* Object$' "$tmp/ret.out" &&
    grep -q -- '-> \.holder [0-9]* Holder$' "$tmp/ret.out" && grep -q -- '-> \.items [0-9]* Array$' "$tmp/ret.out" &&
    grep -q -- "-> \[[0-9]*\] $leaky Leaky\$" "$tmp/ret.out" && ok ||
    { bad "retainers does not name GlobalObject .keep .holder .items [i]"; cat "$tmp/ret.out"; }

# gzip and stdin give what the file gives
gzip -c "$snap" > "$tmp/jsc.json.gz"
for cmd in "stat --format tsv" "top --format tsv --top 50" "info" "roots --format tsv"; do
    # shellcheck disable=SC2086
    "$bin" $cmd "$snap" > "$tmp/file.out" 2>&1
    # shellcheck disable=SC2086
    "$bin" $cmd - < "$snap" > "$tmp/pipe.out" 2>&1
    # shellcheck disable=SC2086
    "$bin" $cmd "$tmp/jsc.json.gz" 2>&1 | grep -v '^compression' > "$tmp/gz.out"
    grep -v '^compression' "$tmp/file.out" > "$tmp/file2.out"
    cmp -s "$tmp/file.out" "$tmp/pipe.out" && ok || bad "$cmd: stdin differs from the file"
    cmp -s "$tmp/file2.out" "$tmp/gz.out" && ok || bad "$cmd: gzip differs from the file"
done

# every command
holder=$("$bin" objects --type Holder --format tsv "$snap" | sed -n 2p | cut -f1)
for cmd in "info" "roots" "top" "dom --top 20" "stat --live --retained" "objsize @ $holder" "objects --top 5" \
           "refs @ $holder" "retainers --all @ $leaky" "retainers --dominators @ $leaky" "suspects" "check" \
           "report -o $tmp/r.html"; do
    case $cmd in
    *@*) args=$(echo "$cmd" | sed "s|@|$snap|") ;;
    *) args="$cmd $snap" ;;
    esac
    # shellcheck disable=SC2086
    "$bin" $args > "$tmp/cmd.out" 2> "$tmp/cmd.err" && ok || bad "$cmd: exit $? $(cat "$tmp/cmd.err")"
done
"$bin" --input-format jsc stat "$snap" > /dev/null 2>&1 || "$bin" stat --input-format jsc "$snap" > /dev/null &&
    ok || bad "--input-format jsc refused"

# truncated real files
size=$(wc -c < "$snap")
for cut in 20 300 $((size / 3)) $((size / 2)) $((size - 100)) $((size - 2)); do
    head -c "$cut" "$snap" > "$tmp/cut.json"
    "$bin" stat "$tmp/cut.json" > /dev/null 2> "$tmp/cut.err"
    st=$?
    [ $st -eq 2 ] && grep -q 'offset [0-9]*:' "$tmp/cut.err" && ok ||
        bad "cut at $cut: exit $st, $(cat "$tmp/cut.err")"
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
