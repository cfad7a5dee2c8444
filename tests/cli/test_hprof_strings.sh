#!/bin/sh
# String values of real HPROF dumps against the strings the JVM holds.
#   sh test_hprof_strings.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
#
# tests/java/Strings.java keeps known strings (Latin-1, UTF-16 with a
# surrogate pair, quotes and a backslash, empty, long) and writes them in
# UTF-8 to a file: the oracle is what the JVM itself holds. `jcmd PID
# GC.heap_dump` dumps it, with compact strings (Latin-1 byte[] and UTF-16
# byte[] by the coder) and with -XX:-CompactStrings (every byte[] UTF-16).
# Checked: `objects --whole-values --type java.lang.String` shows every one in tsv
# (escaped by the tsv rule: \ as \\), the empty one in json, the long one cut
# after 80 characters in a table and in tsv with --values; from a pipe and from a gzip file there are
# no values and a warning says why.
#
# Needs java, javac and jcmd: installed with apt-get (openjdk-17-jdk-headless)
# when missing; skipped with a message only when that is impossible.
set -u
. "$(dirname "$0")/need.sh"
scratch hprof_strings "$1" "${3:-}" || exit 1
need test_hprof_strings openjdk-17-jdk-headless java javac jcmd || exit 0
fail=0
bad() {
    echo "FAIL: $*"
    fail=1
}

javac -encoding UTF-8 -d "$tmp" "$root/tests/java/Strings.java" || { echo "FAIL: javac"; exit 1; }

# dump NAME [JVM OPTIONS]: runs Strings, writes NAME.hprof and NAME.txt (the oracle).
dump() {
    name=$1
    shift
    rm -f "$tmp/in" "$tmp/out"
    mkfifo "$tmp/in"
    java -Xmx64m "$@" -cp "$tmp" Strings "$tmp/$name.txt" < "$tmp/in" > "$tmp/out" &
    pid=$!
    exec 3> "$tmp/in"
    i=0
    while [ ! -s "$tmp/out" ] && [ $i -lt 300 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    [ -s "$tmp/out" ] || { echo "FAIL: Strings did not start"; exit 1; }
    jcmd "$pid" GC.heap_dump "$tmp/$name.hprof" > /dev/null || bad "jcmd GC.heap_dump ($name)"
    echo >&3
    exec 3>&-
    wait "$pid" 2> /dev/null
    pid=
}

# The value column of a tsv output.
values() {
    awk -F '\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "value") c = i; next } c { print $c }' "$1"
}

check() {
    name=$1
    d=$tmp/$name.hprof
    "$bin" objects --whole-values --type java.lang.String --format tsv "$d" > "$tmp/$name.tsv" \
        2> "$tmp/err" || bad "$name: objects --values exited $?: $(head -2 "$tmp/err")"
    values "$tmp/$name.tsv" > "$tmp/$name.values"
    grep -q "values" "$tmp/err" && bad "$name: unexpected warning: $(head -2 "$tmp/err")"
    n=0
    while IFS= read -r line; do
        [ -n "$line" ] || continue
        n=$((n + 1))
        want=$(printf '%s\n' "$line" | sed 's/\\/\\\\/g')
        grep -Fxq -- "$want" "$tmp/$name.values" || bad "$name: no String with value: $want"
    done < "$tmp/$name.txt"
    [ "$n" -eq 6 ] || bad "$name: the oracle has $n non-empty strings, not 6"
    "$bin" objects --values --type java.lang.String --format json "$d" > "$tmp/$name.json" 2> /dev/null
    grep -q '"value":"","type":"java.lang.String"' "$tmp/$name.json" || bad "$name: no empty String in json"
    long=$(grep '^gcheap long: ' "$tmp/$name.txt")
    cut=$(printf '%s' "$long" | cut -c1-80)
    "$bin" objects --values --type java.lang.String --top 1000000 "$d" > "$tmp/$name.table" 2> /dev/null
    grep -Fq "\"$cut...\"" "$tmp/$name.table" || bad "$name: the long String is not cut after 80 characters"
    grep -Fq "$long" "$tmp/$name.table" && bad "$name: the long String is whole in the table"
    "$bin" objects --values --type java.lang.String --format tsv "$d" > "$tmp/$name.cut.tsv" 2> /dev/null
    grep -Fq "$cut..." "$tmp/$name.cut.tsv" || bad "$name: the long String is not cut after 80 characters in tsv"
    grep -Fq "$long" "$tmp/$name.cut.tsv" && bad "$name: the long String is whole in tsv without --whole-values"
}

dump compact
check compact
dump utf16 -XX:-CompactStrings
check utf16

# No file to read again: a pipe, a gzip file. The values are empty, a
# warning says why, and the rest of the output is the same.
d=$tmp/compact.hprof
"$bin" objects --type java.lang.String --format tsv "$d" > "$tmp/plain.tsv" 2> /dev/null
cat "$d" | "$bin" objects --values --type java.lang.String --format tsv - > "$tmp/pipe.tsv" 2> "$tmp/pipe.err"
grep -q "warning: <stdin>: no values: it was read from a pipe" "$tmp/pipe.err" || bad "pipe: no warning"
[ -z "$(values "$tmp/pipe.tsv" | tr -d '\n')" ] || bad "pipe: values shown"
cut -f1-4,6- "$tmp/pipe.tsv" > "$tmp/pipe-rest.tsv"
cmp -s "$tmp/pipe-rest.tsv" "$tmp/plain.tsv" || bad "pipe: the other columns differ from objects without --values"
gzip -c "$d" > "$tmp/compact.hprof.gz"
"$bin" objects --values --type java.lang.String --format tsv "$tmp/compact.hprof.gz" > /dev/null 2> "$tmp/gz.err"
grep -q "no values: it is compressed" "$tmp/gz.err" || bad "gzip: no warning"
# Without --values nothing changes (the payloads are not recorded).
cut -f1-4,6- "$tmp/compact.tsv" > "$tmp/file-rest.tsv"
cmp -s "$tmp/file-rest.tsv" "$tmp/plain.tsv" || bad "file: the other columns differ from objects without --values"

[ $fail -eq 0 ] && echo "ok: test_hprof_strings"
exit $fail
