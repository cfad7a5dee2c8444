#!/bin/sh
# Real HPROF dumps against the JVM's own class histogram.
#   sh test_hprof_jvm.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
#
# tests/java/Leak.java builds a known heap and waits. Oracle: the JVM is
# started with -XX:+HeapDumpBeforeFullGC and -Xlog:gc+classhisto=trace, and
# `jcmd PID GC.run` starts one full collection: HotSpot writes the heap dump
# and then the class histogram in that same pause (CollectedHeap::
# full_gc_dump), so both see exactly the same objects. (Two jcmd commands,
# GC.heap_dump then GC.class_histogram, are two pauses: the attach listener
# allocates between them and a few counts differ.)
#
# Checked: every class of the histogram but java.lang.Class has the same
# instance count in `gcheap stat --format tsv`, and no class is in one list
# only; at least 95% of them have the same bytes; the total bytes without
# java.lang.Class are within 1%. java.lang.Class is the exception: the
# histogram counts every class mirror, a dump holds a CLASS DUMP only for the
# classes HotSpot lists (docs/hprof-format.md).
#
# Then a live dump by `jcmd PID GC.heap_dump` (and its -gz=1 twin) goes
# through every command: each must succeed (the gzip one reads like its
# decompressed twin), and `retainers` of a leaked session
# must name the static field Leak.sessions.
#
# Needs java, javac and jcmd: installed with apt-get (openjdk-17-jdk-headless)
# when missing; skipped with a message only when that is impossible.
set -u
. "$(dirname "$0")/need.sh"
scratch hprof_jvm "$1" "${3:-}" || exit 1
need test_hprof_jvm openjdk-17-jdk-headless java javac jcmd || exit 0
fail=0
bad() {
    echo "FAIL: $*"
    fail=1
}

javac -d "$tmp" "$root/tests/java/Leak.java" || { echo "FAIL: javac"; exit 1; }

# Starts Leak with the given JVM options; sets pid. The program waits for a
# line on its stdin (fd 3 here) before it exits.
start_leak() {
    rm -f "$tmp/in" "$tmp/out"
    mkfifo "$tmp/in"
    java -Xmx256m "$@" --add-opens java.base/java.util.concurrent=ALL-UNNAMED \
        --add-opens java.base/java.util.concurrent.atomic=ALL-UNNAMED -cp "$tmp" Leak 2000 \
        < "$tmp/in" > "$tmp/out" &
    pid=$!
    exec 3> "$tmp/in"
    i=0
    while [ ! -s "$tmp/out" ] && [ $i -lt 300 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    [ -s "$tmp/out" ] || { echo "FAIL: Leak did not start"; exit 1; }
}
stop_leak() {
    echo >&3
    exec 3>&-
    wait "$pid" 2> /dev/null
    pid=
}

# --- same-pause oracle ---------------------------------------------------
start_leak -XX:+HeapDumpBeforeFullGC -XX:HeapDumpPath="$tmp/before.hprof" \
    -Xlog:gc+classhisto=trace:file="$tmp/histo.log"
jcmd "$pid" GC.run > /dev/null || bad "jcmd GC.run"
stop_leak
[ -s "$tmp/before.hprof" ] || { echo "FAIL: no heap dump was written"; exit 1; }

# The first histogram in the log (before the collection), as "count bytes
# name" with the JVM's names turned into Java names: [B -> byte[],
# [Ljava.lang.Object; -> java.lang.Object[], the module suffix dropped.
awk '
/ num +#instances/ { on = 1; next }
on && / Total / { exit }
on && /^\[.*\] GC\([0-9]+\) +[0-9]+: / {
    sub(/^\[[^]]*\]\[[^]]*\]\[[^]]*\] GC\([0-9]+\) +[0-9]+: +/, "")
    count = $1; bytes = $2; name = $3
    dims = ""
    while (substr(name, 1, 1) == "[") { dims = dims "[]"; name = substr(name, 2) }
    if (dims != "") {
        if (name ~ /^L.*;$/) name = substr(name, 2, length(name) - 2)
        else if (name == "Z") name = "boolean"; else if (name == "C") name = "char"
        else if (name == "F") name = "float"; else if (name == "D") name = "double"
        else if (name == "B") name = "byte"; else if (name == "S") name = "short"
        else if (name == "I") name = "int"; else if (name == "J") name = "long"
    }
    print count "\t" bytes "\t" name dims
}' "$tmp/histo.log" | sort -t "$(printf '\t')" -k3 > "$tmp/jvm.tsv"
[ -s "$tmp/jvm.tsv" ] || { echo "FAIL: no class histogram in the JVM log"; exit 1; }

"$bin" stat --format tsv "$tmp/before.hprof" > "$tmp/gcheap.raw" || bad "gcheap stat failed"
tail -n +2 "$tmp/gcheap.raw" | sort -t "$(printf '\t')" -k3 > "$tmp/gcheap.tsv"

# Joined on the class name: name, jvm count, jvm bytes, gcheap count, gcheap bytes.
awk -F '\t' -v report="$tmp/report.txt" '
NR == FNR { jc[$3] = $1; jb[$3] = $2; next }
{ gc[$3] = $1; gb[$3] = $2 }
END {
    classes = 0; same = 0; bad = 0; jt = 0; gt = 0
    for (n in jc) {
        if (n == "java.lang.Class") continue
        classes++
        jt += jb[n]; gt += gb[n]
        if (!(n in gc)) { printf "missing from gcheap: %s (%d objects)\n", n, jc[n]; bad = 1; continue }
        if (gc[n] != jc[n]) { printf "count differs: %s: JVM %d, gcheap %d\n", n, jc[n], gc[n]; bad = 1 }
        if (gb[n] == jb[n]) same++
        else printf "bytes differ: %s: JVM %d, gcheap %d (%d objects)\n", n, jb[n], gb[n], jc[n] > report
    }
    for (n in gc)
        if (!(n in jc) && n != "java.lang.Class") { printf "not in the JVM histogram: %s (%d objects)\n", n, gc[n]; bad = 1 }
    printf "classes %d, same bytes %d (%.2f%%), total bytes without java.lang.Class: JVM %d, gcheap %d (%+.3f%%); java.lang.Class: JVM %d objects, gcheap %d\n", classes, same, 100 * same / classes, jt, gt, 100 * (gt - jt) / jt, jc["java.lang.Class"], gc["java.lang.Class"] > report
    if (same < 0.95 * classes) { print "fewer than 95% of the classes have the same bytes"; bad = 1 }
    d = gt - jt; if (d < 0) d = -d
    if (d > 0.01 * jt) { print "total bytes differ by more than 1%"; bad = 1 }
    exit bad
}' "$tmp/jvm.tsv" "$tmp/gcheap.tsv" || bad "gcheap stat does not match the JVM class histogram"
cat "$tmp/report.txt"

# The classes HotSpot pads for @Contended (src/formats/hprof/hprof_classes.c,
# docs/hprof-format.md "Sizes"): each has exactly the JVM's bytes, and
# each is in the dump (Leak makes them).
for k in java.lang.Thread 'java.lang.ref.Finalizer$FinalizerThread' java.util.concurrent.ForkJoinPool \
    'java.util.concurrent.ForkJoinPool$WorkQueue' 'java.util.concurrent.atomic.Striped64$Cell' \
    'java.util.concurrent.ConcurrentHashMap$CounterCell' 'java.util.concurrent.SubmissionPublisher$BufferedSubscription' \
    'java.util.concurrent.ForkJoinWorkerThread'; do
    j=$(awk -F '\t' -v k="$k" '$3 == k { print $1 " " $2 }' "$tmp/jvm.tsv")
    g=$(awk -F '\t' -v k="$k" '$3 == k { print $1 " " $2 }' "$tmp/gcheap.tsv")
    if [ -z "$j" ]; then bad "$k: not in the JVM histogram"
    elif [ "$j" != "$g" ]; then bad "$k: JVM count and bytes $j, gcheap $g"
    else echo "ok: $k: count and bytes $j"; fi
done

# Hidden classes are named as the JVM names them.
grep -q 'Leak\$\$Lambda\$[0-9]*/0x' "$tmp/gcheap.tsv" || bad "no Leak\$\$Lambda\$N/0x... class"

# --- a live dump by jcmd through every command ----------------------------
start_leak
jcmd "$pid" GC.heap_dump "$tmp/live.hprof" > /dev/null || bad "jcmd GC.heap_dump"
jcmd "$pid" GC.heap_dump -gz=1 "$tmp/live.hprof.gz" > /dev/null || bad "jcmd GC.heap_dump -gz=1"
stop_leak
d=$tmp/live.hprof
for cmd in "stat" "stat --live" "stat --retained" "info" "roots" "top" "dom" "check --max-bytes 1GiB"; do
    # shellcheck disable=SC2086
    "$bin" $cmd "$d" > "$tmp/cmd.out" 2> "$tmp/cmd.err" || bad "gcheap $cmd exited $?: $(head -2 "$tmp/cmd.err")"
done
"$bin" diff "$d" "$tmp/before.hprof" > /dev/null 2> "$tmp/cmd.err" || bad "gcheap diff exited $?"
# The objects held by Leak's static fields: roots name the class and the
# field, and so does `retainers`.
"$bin" roots --format tsv "$d" > "$tmp/roots.tsv" 2> /dev/null || bad "gcheap roots --format tsv"
for field in head sessions byUser; do
    id=$(awk -F '\t' -v f="$field" '$3 == "static" && $6 == "Leak" && $7 == f { print $1; exit }' "$tmp/roots.tsv")
    if [ -z "$id" ]; then
        bad "no static root Leak.$field"
        continue
    fi
    "$bin" objsize "$d" "$id" > /dev/null 2>&1 || bad "gcheap objsize $id"
    "$bin" retainers "$d" "$id" > "$tmp/ret.out" 2>&1 || bad "gcheap retainers $id"
    grep -q "static in Leak, $field" "$tmp/ret.out" || {
        bad "retainers $id does not name Leak.$field"
        cat "$tmp/ret.out"
    }
done
# The -gz=1 dump (concatenated gzip members) reads like its own decompressed
# twin (tests/cli/test_gzip_jcmd.sh compares every command).
gzip -dc "$tmp/live.hprof.gz" > "$tmp/live-gz.hprof" || bad "gzip -dc of the -gz=1 dump"
"$bin" stat "$tmp/live.hprof.gz" > "$tmp/gz.out" 2>&1 || bad "a gzip dump: exit $?"
"$bin" stat "$tmp/live-gz.hprof" > "$tmp/gz-twin.out" 2>&1
cmp -s "$tmp/gz.out" "$tmp/gz-twin.out" || bad "stat of the -gz=1 dump differs from its decompressed twin"

[ $fail -eq 0 ] && echo "ok: test_hprof_jvm"
exit $fail
