#!/bin/sh
# Answers in words on a real JVM dump (issue 29).
#   sh test_words_jvm.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
#
# tests/java/Words.java builds a service's heap: a static registry
# (OrderService.SESSIONS, a ConcurrentHashMap of 3000 sessions), a thread
# "worker-1" holding a batch in a local of OrderWorker.run, a static linked
# list of 20,000 nodes (Chain.head); `jcmd PID GC.heap_dump` writes the dump.
# The expected words come from elsewhere than gcheap:
# - the holders and field names from the compiled classes themselves
#   (`javap -p`: the static field's class, name and declared type; every
#   field named on a path is declared by the previous step's class or one of
#   its superclasses, JDK classes included);
# - the thread's name and the frame's line from the program (it prints the
#   line its worker waits on, from the JVM's own stack trace);
# - the length of the chain's path from `gcheap objects` (distances by a
#   separate breadth-first search) and the program's list length.
# Needs java, javac, javap and jcmd (openjdk-17-jdk-headless, installed when
# missing); skipped with one message only when that is impossible.
set -u
. "$(dirname "$0")/need.sh"
scratch words_jvm "$1" "${3:-}" || exit 1
need test_words_jvm openjdk-17-jdk-headless java javac javap jcmd || exit 0
json_check=$(cd "$3" && pwd)/json_check
[ -x "$json_check" ] || { echo "FAIL: $json_check not built"; exit 1; }
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() {
    echo "FAIL: $*"
    fail=$((fail + 1))
}

javac -d "$tmp" "$root/tests/java/Words.java" || { echo "FAIL: javac"; exit 1; }
# start_words [JVM OPTIONS]: starts Words, waits for "ready"; sets pid.
start_words() {
    rm -f "$tmp/in" "$tmp/out"
    mkfifo "$tmp/in"
    java -Xmx256m "$@" -cp "$tmp" Words "$tmp" < "$tmp/in" > "$tmp/out" 2> "$tmp/java.err" &
    pid=$!
    exec 3> "$tmp/in"
    i=0
    while ! grep -q '^ready' "$tmp/out" 2> /dev/null && [ $i -lt 300 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    grep -q '^ready' "$tmp/out" || { echo "FAIL: Words did not start: $(head -3 "$tmp/java.err")"; exit 1; }
}
stop_words() {
    echo >&3
    exec 3>&-
    wait "$pid" 2> /dev/null
    pid=
}
start_words
line=$(sed -n 's/^line //p' "$tmp/out")
sed -n 's/^loader //p' "$tmp/out" > "$tmp/loaders"
# The worker's stack as the JVM prints it (jstack's view, a peer tool):
# "Class.method (File.java:N)" per frame, the module prefix dropped.
jcmd "$pid" Thread.print > "$tmp/threads.txt" 2> /dev/null || bad "jcmd Thread.print"
awk '/^"worker-1"/ { on = 1; next } on && /^$/ { exit }
    on && /^[ \t]+at / { sub(/^[ \t]+at /, ""); sub(/\([^\/()]*\//, "("); sub(/\(/, " ("); print }' \
    "$tmp/threads.txt" > "$tmp/jstack.frames"
jcmd "$pid" GC.heap_dump "$tmp/w.hprof" > /dev/null || { echo "FAIL: jcmd GC.heap_dump"; exit 1; }
stop_words
# The same program without the CDS archive (-Xshare:off), for item 5.
lambda1=$(sed -n 's/^lambda //p' "$tmp/out")
start_words -Xshare:off
lambda2=$(sed -n 's/^lambda //p' "$tmp/out")
jcmd "$pid" GC.heap_dump "$tmp/noshare.hprof" > /dev/null || { echo "FAIL: jcmd GC.heap_dump (-Xshare:off)"; exit 1; }
stop_words
dump=$tmp/w.hprof

# declares TYPE FIELD: TYPE or a superclass declares FIELD (javap -p).
declares() {
    _t=$1
    while [ -n "$_t" ] && [ "$_t" != java.lang.Object ]; do
        javap -p -cp "$tmp" "$_t" > "$tmp/javap" 2> /dev/null || return 1
        grep -v '(' "$tmp/javap" | grep -q " $2;\$" && return 0
        _t=$(sed -n '2s/.* extends \([^ <{]*\).*/\1/p' "$tmp/javap")
    done
    return 1
}
# check_fields FILE: FILE holds "TYPE<tab>FIELD" lines (a step's holder type
# and the field it holds the next step through): each must be declared.
check_fields() {
    n=0
    sort -u "$1" > "$1.u"
    while IFS="$(printf '\t')" read -r t f; do
        n=$((n + 1))
        if declares "$t" "$f"; then ok; else bad "$2: $t declares no field '$f' (javap -p)"; fi
    done < "$1.u"
    [ $n -gt 0 ] || bad "$2: no field named on any path"
}

# --- 1. json per path step: field, root_kind, holder ----------------------
decl=$(javap -p -cp "$tmp" OrderService | sed -n 's/.* static final \([^ <]*\).* SESSIONS;$/\1/p')
[ -n "$decl" ] || bad "javap shows no OrderService.SESSIONS"
"$bin" suspects --format json "$dump" > "$tmp/s.json" 2> /dev/null || bad "suspects --format json exited $?"
"$json_check" --rows "$tmp/s.json" > "$tmp/s.tsv" || bad "suspects json does not parse"
# columns: suspect row id count bytes percent detail type field root_kind holder domain
if [ "$(head -1 "$tmp/s.tsv" | cut -f9-11)" = "$(printf 'field\troot_kind\tholder')" ]; then ok; else
    bad "suspects json rows lack field, root_kind, holder: $(head -1 "$tmp/s.tsv")"
fi
got=$(awk -F'\t' '$2 == "path" && $4 == 0 && $11 == "OrderService.SESSIONS" { print $10 "|" $8 }' "$tmp/s.tsv")
if [ "$got" = "static|$decl" ]; then ok; else
    bad "static root step: '$got', expected 'static|$decl' (javap)"
fi
got=$(awk -F'\t' '$2 == "path" && $4 == 0 && $10 == "local" && $11 ~ /thread [0-9]+ "worker-1"/' "$tmp/s.tsv" | wc -l)
if [ "$got" -ge 1 ]; then ok; else bad "no suspect path from a local of thread worker-1"; fi
# every row: the three keys null except on path steps; fields on later steps only
got=$(awk -F'\t' 'NR > 1 && (($2 != "path" && ($9 $10 $11) != "nullnullnull") ||
    ($2 == "path" && $4 == 0 && $9 != "null") || ($2 == "path" && $4 > 0 && ($10 $11) != "nullnull"))' \
    "$tmp/s.tsv" | wc -l)
if [ "$got" -eq 0 ]; then ok; else bad "$got suspects json rows with keys out of place"; fi
awk -F'\t' 'NR > 1 && $2 == "path" { if ($4 > 0 && $9 != "null" && $9 !~ /^\[/ && prev_s == $1) print prev "\t" $9
    prev = $8; prev_s = $1 }' "$tmp/s.tsv" > "$tmp/s.fields"
check_fields "$tmp/s.fields" "suspects"

# merged paths of every Session: the static registry, field by field
"$bin" retainers --type Session --format json "$dump" > "$tmp/m.json" 2> /dev/null || bad "retainers --type exited $?"
"$json_check" --rows "$tmp/m.json" > "$tmp/m.tsv" || bad "retainers --type json does not parse"
# columns: depth paths count kind type field root_kind holder domain
got=$(awk -F'\t' 'NR > 1 && $1 == 0 { print $7 "|" $8 "|" $5 }' "$tmp/m.tsv" | head -1)
if [ "$got" = "static|OrderService.SESSIONS|$decl" ]; then ok; else
    bad "merged paths top node '$got', expected 'static|OrderService.SESSIONS|$decl'"
fi
got=$(awk -F'\t' 'NR > 1 && $1 > 0 && $1 < 4 { printf "%s ", $6 }' "$tmp/m.tsv")
if [ "$got" = "table [] val " ]; then ok; else bad "merged path fields '$got', expected 'table [] val '"; fi
awk -F'\t' 'NR > 1 { type[$1] = $5; if ($1 > 0 && $6 != "null" && $6 !~ /^\[/) print type[$1 - 1] "\t" $6 }' \
    "$tmp/m.tsv" > "$tmp/m.fields"
check_fields "$tmp/m.fields" "retainers --type"

# --- 2. long chains: tables elide, data forms keep up to 1000 steps ------
# The accumulation point by the 70% rule, by hand: node k of the list
# retains (20000 - k) nodes; the walk goes on while the child keeps at least
# 70%: 3/4 >= 0.7 but 2/3 < 0.7, so it stops at the node with 3 left, k =
# 19997. Its distance from the roots by `gcheap objects` (its own BFS).
acc=$(awk -F'\t' '$2 == "accumulation" && $8 == "Node" { print $3 }' "$tmp/s.tsv")
"$bin" objects --type Node --format tsv "$dump" > "$tmp/nodes.tsv" 2> /dev/null
dist=$(awk -F'\t' -v id="$acc" '$1 == id { print $4 }' "$tmp/nodes.tsv")
if [ "$dist" = 19997 ]; then ok; else bad "accumulation point $acc at distance '$dist', expected 19997"; fi
"$bin" suspects "$dump" > "$tmp/s.txt" 2> /dev/null
chain=$(awk '$3 == "'"$acc"'" && $2 == "accumulation" { print $1 }' "$tmp/s.txt")
rows=$(awk -v n="$chain" '$1 == n && $2 == "path"' "$tmp/s.txt" | wc -l)
elided=$(awk -v n="$chain" '$1 == n && $2 == "path" && /steps elided/ { print $5 }' "$tmp/s.txt")
if [ "$rows" -eq 11 ] && [ "$elided" = $((dist + 1 - 10)) ]; then ok; else
    bad "table path of the chain: $rows rows, '$elided' elided; expected 11 rows, $((dist + 1 - 10)) elided"
fi
got=$(awk -F'\t' -v id="$acc" '$2 == "path" && $8 == "Node" { n++; last = $4 } END { print n "|" last }' "$tmp/s.tsv")
if [ "$got" = "1000|$dist" ]; then ok; else bad "json path of the chain '$got', expected '1000|$dist'"; fi

# --- 3. stack roots name their frame and thread ---------------------------
want="Java frame in OrderWorker.run (Words.java:$line), thread "
got=$(awk -F'\t' '$2 == "path" && $4 == 0 && $10 == "local" { print $11 }' "$tmp/s.tsv")
case $got in
"$want"[0-9]*' "worker-1" (0x'*) ok ;;
*) bad "worker's suspect holder '$got', expected '$want<serial> \"worker-1\" (0x...)'" ;;
esac
if grep -q "referenced from local Java frame in OrderWorker.run (Words.java:$line), thread [0-9]* \"worker-1\"" \
    "$tmp/s.txt"; then ok; else bad "suspects' sentence does not name OrderWorker.run (Words.java:$line)"; fi
# every frame gcheap names for worker-1 is a frame of its stack in jstack's view
"$bin" roots --format tsv "$dump" > "$tmp/roots.tsv" 2> /dev/null
awk -F'\t' '$7 ~ /"worker-1"/ && $7 ~ /^Java frame in / { sub(/^Java frame in /, "", $7);
    sub(/, thread [0-9]+ .*/, "", $7); print $7 }' "$tmp/roots.tsv" | sort -u > "$tmp/gcheap.frames"
n=$(wc -l < "$tmp/gcheap.frames")
missing=$(sort -u "$tmp/jstack.frames" | comm -23 "$tmp/gcheap.frames" -)
if [ "$n" -ge 2 ] && [ -z "$missing" ]; then ok; else
    bad "worker-1 frames: $n named; not in jcmd Thread.print: $missing"
fi

# --- 4. a cut dump says so, and how much was read --------------------------
# Cut one byte short, inside HEAP DUMP END: every other record is complete,
# so `gcheap info` of the whole dump gives the counts the message must
# report (records - 1, the heap dump records, the objects).
"$bin" info --format tsv "$dump" > "$tmp/info.tsv" 2> /dev/null
records=$(awk -F'\t' '$1 == "records" { split($2, a, " "); print a[1] - 1 }' "$tmp/info.tsv")
heaps=$(awk -F'\t' '$1 == "records" { sub(/.*\(/, "", $2); split($2, a, " "); print a[1] }' "$tmp/info.tsv")
objects=$(awk -F'\t' '$1 == "objects" { print $2 }' "$tmp/info.tsv")
size=$(wc -c < "$dump")
head -c $((size - 1)) "$dump" > "$tmp/cut.hprof"
"$bin" suspects "$tmp/cut.hprof" > "$tmp/cut.out" 2> "$tmp/cut.err"
st=$?
want="truncated dump? the $records complete records before it hold $heaps heap dump records with $objects objects)"
if [ $st -eq 2 ] && [ ! -s "$tmp/cut.out" ] && grep -qF "$want" "$tmp/cut.err"; then ok; else
    bad "dump cut by one byte: status $st, '$(cat "$tmp/cut.err")'; expected 2 and '...$want'"
fi
# cut in the middle of a heap dump segment
head -c $((size / 2)) "$dump" > "$tmp/cut.hprof"
"$bin" stat "$tmp/cut.hprof" > "$tmp/cut.out" 2> "$tmp/cut.err"
st=$?
if [ $st -eq 2 ] && [ ! -s "$tmp/cut.out" ] && grep -q "exceeds the [0-9]* bytes left (truncated dump? " "$tmp/cut.err"
then ok; else bad "dump cut in half: status $st, '$(cat "$tmp/cut.err")'"; fi

# --- 5. info names the objects holding references to absent objects -------
# With the CDS archive (JDK 17's default) the dump has references to objects
# it does not contain, all from one Object[] held by a JNI global handle;
# without the archive (-Xshare:off), the same program's dump has none. Both
# are the JVM's doing, not the reader's: docs/hprof-format.md.
val() { awk -F'\t' -v k="$1" '$1 == k { print $2 }' "$2"; }
dangling=$(val dangling_references "$tmp/info.tsv")
holders=$(val dangling_reference_holders "$tmp/info.tsv")
held=$(val dangling_references_held_by "$tmp/info.tsv")
case $held in
*" java.lang.Object[] ($dangling references; root: handle JNI global)") ok ;;
*) bad "held_by '$held', expected one java.lang.Object[] holding all $dangling, a JNI global" ;;
esac
if [ "$dangling" -gt 0 ] && [ "$holders" = 1 ]; then ok; else bad "dangling '$dangling', holders '$holders'"; fi
"$bin" info --format tsv "$tmp/noshare.hprof" > "$tmp/info2.tsv" 2> /dev/null
if [ "$(val dangling_references "$tmp/info2.tsv")" = 0 ] && ! grep -q '^dangling_reference_holders' "$tmp/info2.tsv"
then ok; else bad "-Xshare:off dump: dangling '$(val dangling_references "$tmp/info2.tsv")' or holder rows present"; fi
if "$bin" top "$dump" 2>&1 > /dev/null |
    grep -q "references to absent objects (first: [0-9a-f]*, held by 1 object: see gcheap info)"
then ok; else bad "the warning does not point to gcheap info"; fi

# --- 6. --module names the class loader by its class ----------------------
# The loaders' class names as the program's own getClassLoader() gives them:
# Words' (one loader of its class: the name alone) and the two Plugins' (two
# loaders of one class: the name and the loader's address).
app=$(sed -n 1p "$tmp/loaders")
plugin=$(sed -n 2p "$tmp/loaders")
"$bin" stat --module --format tsv "$dump" > "$tmp/mod.tsv" 2> /dev/null
got=$(awk -F'\t' -v t="$app!Session" '$3 == t { print $1 }' "$tmp/mod.tsv")
if [ "$got" = 3000 ]; then ok; else bad "--module: '$app!Session' count '$got', expected 3000"; fi
got=$(awk -F'\t' -v p="$plugin@0x" 'index($3, p) == 1 && $3 ~ /![P]lugin$/ && $1 == 1' "$tmp/mod.tsv" | wc -l)
if [ "$got" = 2 ]; then ok; else bad "--module: $got rows '$plugin@0x...!Plugin', expected 2"; fi

# --- 7. diff pairs run-specific names by their stable form ----------------
# The JVM names the same lambda class differently in two runs (its address;
# here with and without the CDS archive): the names come from the programs.
if [ -n "$lambda1" ] && [ "$lambda1" != "$lambda2" ]; then ok; else
    bad "the two runs' lambda classes are named alike ('$lambda1', '$lambda2'): nothing to pair"
fi
stable=${lambda1%%\$\$Lambda*}\$\$Lambda
"$bin" diff --format tsv "$dump" "$tmp/noshare.hprof" > "$tmp/diff.tsv" 2> /dev/null
got=$(awk -F'\t' -v t="$stable" '$1 == t { print $2 "|" $3 "|" $8 }' "$tmp/diff.tsv")
if [ "$got" = "1|1|same" ]; then ok; else bad "diff row '$stable': '$got', expected '1|1|same'"; fi
"$bin" diff --exact-names --format tsv "$dump" "$tmp/noshare.hprof" > "$tmp/diffx.tsv" 2> /dev/null
got=$(awk -F'\t' -v a="$lambda1" -v b="$lambda2" '($1 == a && $8 == "gone") || ($1 == b && $8 == "new")' \
    "$tmp/diffx.tsv" | wc -l)
if [ "$got" = 2 ]; then ok; else bad "diff --exact-names: $got of the rows '$lambda1' gone, '$lambda2' new"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
