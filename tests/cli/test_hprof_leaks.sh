#!/bin/sh
# `gcheap leaks` on real HPROF dumps: a JVM (tests/java/Grow.java) adds 100
# Item objects to a static list before each of three `jcmd GC.heap_dump`
# dumps. HPROF ids are addresses (not stable), so the growth rule runs:
#   - the type row of Grow$Item grew by exactly +100,+100 instances, and its
#     retained bytes by 100 times the retained size of one Item as `objsize`
#     computes it (the dominator tree: another algorithm);
#   - a path row ends in Grow$Item (the static list's array);
#   - the short-lived Grow$Churn objects are never reported;
#   - --fail-on-leak exits 1;
#   - a second JVM, with the Epsilon GC (it never moves an object, so HPROF
#     ids stay stable and --stable-ids may apply memlab's rule), puts
#     N = 3000 Session objects in a static HashMap between the first and the
#     second dump: the leak head (the map's reallocated HashMap$Node[]) is
#     folded into its owner, so the row names java.util.HashMap (not its
#     Node[]), and its leak-type rows count exactly N Grow$Session and N
#     HashMap$Node, the counts the program made; `gcheap report` on that
#     series shows the same rows (tests/browser/report_data.js compares them
#     with leaks --format json), and the sessions row's path from the static
#     Grow.sessions is `gcheap retainers`'.
#   sh test_hprof_leaks.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
# Needs a JDK: installed with apt-get when missing; skipped with a message
# only when that is impossible.
set -u
. "$(dirname "$0")/need.sh"
scratch hprof_leaks "$1" "${3:-}" || exit 1
need test_hprof_leaks openjdk-17-jdk-headless java javac jcmd || exit 0
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

javac -d "$tmp" "$root/tests/java/Grow.java" || { echo "FAIL: javac"; exit 1; }
mkfifo "$tmp/in"
: > "$tmp/out" # wait_for may look before the background java's redirection has made it
java -Xmx128m -cp "$tmp" Grow 100 < "$tmp/in" > "$tmp/out" &
pid=$!
exec 3> "$tmp/in"
wait_for() { # LINES: until the output has that many lines (of $tmp/out)
    i=0
    while [ "$(wc -l < "$tmp/out")" -lt "$1" ] && [ $i -lt 300 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    [ "$(wc -l < "$tmp/out")" -ge "$1" ] || { echo "FAIL: Grow did not answer"; exit 1; }
}
wait_for 1
for k in 1 2 3; do
    echo grow >&3
    wait_for $((k + 1))
    jcmd "$pid" GC.heap_dump "$tmp/d$k.hprof" > /dev/null || { echo "FAIL: jcmd GC.heap_dump"; exit 1; }
done
exec 3>&-
wait "$pid" 2> /dev/null
pid=

D="$tmp/d1.hprof $tmp/d2.hprof $tmp/d3.hprof"
# shellcheck disable=SC2086
"$bin" leaks --format tsv $D > "$tmp/leaks.tsv" 2> "$tmp/err" || bad "leaks exited $?: $(head -2 "$tmp/err")"
row=$(awk -F'\t' '$1 == "type" && $8 == "Grow$Item"' "$tmp/leaks.tsv")
counts=$(printf '%s\n' "$row" | awk -F'\t' 'NF { print $5 }')
growth=$(printf '%s\n' "$row" | awk -F'\t' 'NF { print $6 }')
if [ "$counts" = "+100,+100" ]; then ok; else bad "Grow\$Item count growth '$counts', expected +100,+100"; head -5 "$tmp/leaks.tsv"; fi
id=$("$bin" objects --type 'Grow$Item' --format tsv "$tmp/d3.hprof" 2> /dev/null | awk -F'\t' 'NR == 2 { print $1 }')
one=$("$bin" objsize --format tsv "$tmp/d3.hprof" "$id" 2> /dev/null |
    awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "retained") c = i } NR == 2 { print $c }')
want="+$((100 * one)),+$((100 * one))"
if [ -n "$one" ] && [ "$growth" = "$want" ]; then ok; else bad "Grow\$Item retained growth '$growth', expected $want"; fi
if awk -F'\t' '$1 == "path" && $8 ~ /Grow\$Item$/' "$tmp/leaks.tsv" | grep -q .; then ok; else
    bad "no growing path ending in Grow\$Item"
fi
if awk -F'\t' '$8 ~ /Grow\$Churn/' "$tmp/leaks.tsv" | grep -q .; then bad "churned objects reported"; else ok; fi
# shellcheck disable=SC2086
"$bin" leaks --fail-on-leak $D > /dev/null 2>&1
st=$?
if [ $st -eq 1 ]; then ok; else bad "--fail-on-leak exit $st, expected 1"; fi

# The HashMap leak, ids kept by the Epsilon GC.
N=3000
mkdir "$tmp/map"
rm -f "$tmp/in"
mkfifo "$tmp/in"
: > "$tmp/out"
java -XX:+UnlockExperimentalVMOptions -XX:+UseEpsilonGC -Xmx256m -cp "$tmp" Grow $N < "$tmp/in" > "$tmp/out" 2> /dev/null &
pid=$!
exec 3> "$tmp/in"
wait_for 1
k=0
for cmd in idle map idle; do
    k=$((k + 1))
    echo $cmd >&3
    wait_for $((k + 1))
    jcmd "$pid" GC.heap_dump "$tmp/map/d$k.hprof" > /dev/null || { echo "FAIL: jcmd GC.heap_dump (Epsilon)"; exit 1; }
done
exec 3>&-
wait "$pid" 2> /dev/null
pid=
"$bin" leaks --stable-ids --format tsv "$tmp/map/d1.hprof" "$tmp/map/d2.hprof" "$tmp/map/d3.hprof" > "$tmp/map.tsv" 2> "$tmp/err" ||
    bad "leaks --stable-ids exited $?: $(head -2 "$tmp/err")"
lead=$(awk -F'\t' '$1 == "leak" && $8 ~ /Grow sessions\]/ { print $8 }' "$tmp/map.tsv")
if [ "$lead" = "[static Grow sessions] java.util.HashMap" ]; then ok; else
    bad "HashMap leak row '$lead', expected [static Grow sessions] java.util.HashMap"; head -5 "$tmp/map.tsv"
fi
counts() { # TYPE: objects of the leak-type rows of TYPE under the sessions row
    awk -F'\t' -v t="$1" '$1 == "leak" { on = ($8 ~ /Grow sessions\]/) } $1 == "leak-type" && on && $8 == t { print $2 }' "$tmp/map.tsv"
}
if [ "$(counts 'Grow$Session')" = $N ]; then ok; else bad "Grow\$Session leaked '$(counts 'Grow$Session')', expected $N"; fi
if [ "$(counts 'java.util.HashMap$Node')" = $N ]; then ok; else bad "HashMap\$Node leaked '$(counts 'java.util.HashMap$Node')', expected $N"; fi
# The two-dump report page: live objects and retained growth first (issue 29:
# it opened on byte[] of all objects and the Session row came 9th). In page
# order, Grow$Session (N more, the program's count) is among the first 5
# rows, and the first row's retained growth covers the sessions' own bytes.
if command -v node > /dev/null 2>&1; then
    "$bin" report -q "$tmp/map/d1.hprof" "$tmp/map/d3.hprof" -o "$tmp/map.html" ||
        bad "report of two dumps exited $?"
    node "$root/tests/browser/report_data.js" "$tmp/map.html" compare > "$tmp/cmp.rows" ||
        bad "report_data.js compare"
    at=$(awk -F'\t' '$1 == "Grow$Session" { print NR "|" $3 - $2; exit }' "$tmp/cmp.rows")
    case $at in
    [1-5]"|$N") ok ;;
    *) bad "report: Grow\$Session row '$at' (row|count growth), expected among the first 5 with +$N" ;;
    esac
    sess=$(awk -F'\t' '$1 == "Grow$Session" { print $5 - $4 }' "$tmp/cmp.rows")
    head1=$(awk -F'\t' 'NR == 1 { print $7 - $6 }' "$tmp/cmp.rows")
    if [ -n "$sess" ] && [ "${head1:-0}" -ge "$sess" ]; then ok; else
        bad "report: first row's retained growth '$head1' < the sessions' bytes '$sess'"
    fi
    # The series page (three dumps): its leak rows are leaks --format json's,
    # the sessions row counts N Grow$Session there too, and its path (from
    # the static Grow.sessions, with field names) is retainers' in d3.
    . "$root/tests/cli/retainers_paths.sh"
    RD=$root/tests/browser/report_data.js
    M="$tmp/map/d1.hprof $tmp/map/d2.hprof $tmp/map/d3.hprof"
    # shellcheck disable=SC2086
    "$bin" report -q --stable-ids $M -o "$tmp/series.html" || bad "report of the series exited $?"
    # shellcheck disable=SC2086
    "$bin" leaks -q --stable-ids --format json $M > "$tmp/series.json"
    r=$(node "$RD" "$tmp/series.html" leaksjson "$tmp/series.json")
    if [ "$r" = same ]; then ok; else bad "report series: leak rows differ from leaks --format json: $r"; fi
    node "$RD" "$tmp/series.html" leakrows > "$tmp/series.rows"
    got=$(awk -F'\t' '$1 == "leak" { on = ($8 ~ /Grow sessions\]/) } $1 == "leak-type" && on && $8 == "Grow$Session" { print $2 }' "$tmp/series.rows")
    if [ "$got" = $N ]; then ok; else bad "report series: Grow\$Session leaked '$got', expected $N"; fi
    id=$(awk -F'\t' '$1 == "leak" && $8 ~ /Grow sessions\]/ { print $7; exit }' "$tmp/series.rows")
    node "$RD" "$tmp/series.html" leakpaths | awk -F'\t' -v id="$id" '$1 == id' | sort -u > "$tmp/series.path"
    retainers_paths "$bin" "$tmp/map/d3.hprof" "$id" | sort -u > "$tmp/series.want"
    if [ -n "$id" ] && [ -s "$tmp/series.path" ] && cmp -s "$tmp/series.path" "$tmp/series.want"; then ok; else
        bad "report series: the sessions row's path differs from retainers': $(diff "$tmp/series.path" "$tmp/series.want" | head -4)"
    fi
    grep -q "^$id	root	static	Grow.sessions$" "$tmp/series.path" && ok || bad "report series: holder not Grow.sessions: $(head -1 "$tmp/series.path")"
else
    echo "note: no node: the report's page order is not checked here"
fi
if awk -F'\t' '$1 == "leak" && $8 ~ /HashMap\$Node\[\]$/' "$tmp/map.tsv" | grep -q .; then
    bad "a leak head is a HashMap\$Node[]"
else ok; fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
