#!/bin/sh
# Leak rules on a real JVM heap whose classes carry AOSP's names and fields
# (tests/java/rules: stand-ins for android.app.Activity, android.view.View,
# android.view.Window, androidx.fragment.app.Fragment, android.os.MessageQueue;
# NOT the Android framework, see its README). LeakyApp finishes one activity;
# with "leak" a listener on a static bus keeps it, with "clean" it does not.
# What the program built, by hand:
#   - leak: one finding, destroyed-activity on LeakyApp$MainActivity, whose
#     path runs through the listener LeakyApp$MainActivity$1 and ends
#     "leaking yes"; its view, window and fragment are reached only through
#     it, so they are not reported apart (as LeakCanary folds them), but each
#     rule run alone finds its one object; the message queue was never quit;
#   - clean: no finding (the running SettingsActivity, its attached view and
#     the added fragment are reachable and not finished);
#   - --fail-on-rule exits 1 on the first, 0 on the second.
#   sh test_rules_android.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -u
. "$(dirname "$0")/need.sh"
scratch rules_android "$1" "${3:-}" || exit 1
need test_rules_android openjdk-17-jdk-headless java javac jcmd || exit 0
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# shellcheck disable=SC2046
javac -d "$tmp/classes" $(find "$root/tests/java/rules" -name '*.java') || { echo "FAIL: javac"; exit 1; }
dump() { # MODE: runs LeakyApp MODE and dumps its heap to $tmp/MODE.hprof
    rm -f "$tmp/in" && mkfifo "$tmp/in"
    : > "$tmp/out"
    java -Xmx64m -cp "$tmp/classes" LeakyApp "$1" < "$tmp/in" > "$tmp/out" &
    pid=$!
    exec 3> "$tmp/in"
    i=0
    while ! grep -q ready "$tmp/out" && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
    grep -q ready "$tmp/out" || { echo "FAIL: LeakyApp did not start"; exit 1; }
    jcmd "$pid" GC.heap_dump "$tmp/$1.hprof" > /dev/null || { echo "FAIL: jcmd GC.heap_dump"; exit 1; }
    jcmd "$pid" GC.class_histogram > "$tmp/$1.histo" 2> /dev/null
    exec 3>&-
    wait "$pid" 2> /dev/null
    pid=
}
dump leak
dump clean

findings() { # DUMP [OPTIONS]: "rule<TAB>type" of each finding row
    f=$1
    shift
    "$bin" suspects --format tsv "$@" "$f" 2> /dev/null |
        awk -F'\t' '$2 == "finding" { print $7 "\t" $8 }'
}
got=$(findings "$tmp/leak.hprof")
want=$(printf 'destroyed-activity\tLeakyApp$MainActivity')
if [ "$got" = "$want" ]; then ok; else bad "leak: findings '$got', expected '$want'"; fi

"$bin" suspects --format tsv "$tmp/leak.hprof" > "$tmp/leak.tsv" 2> "$tmp/err" || bad "suspects exited $?: $(head -2 "$tmp/err")"
# The trace: from a root to the activity, through the listener, the last step leaking.
trace=$(awk -F'\t' '$2 == "trace" { print $8 "\t" $7 }' "$tmp/leak.tsv")
last=$(printf '%s\n' "$trace" | tail -1)
if [ "$last" = "$(printf 'LeakyApp$MainActivity\tyes')" ]; then ok; else bad "last trace step '$last'"; fi
if printf '%s\n' "$trace" | grep -q '^LeakyApp\$MainActivity\$1	'; then ok; else bad "trace misses the listener: $trace"; fi

for r in destroyed-activity detached-view detached-fragment destroyed-window; do
    n=$(findings "$tmp/leak.hprof" --rules "$r" | wc -l)
    if [ "$n" -eq 1 ]; then ok; else bad "--rules $r: $n findings, expected 1"; fi
done
n=$(findings "$tmp/leak.hprof" --rules quit-message-queue | wc -l)
if [ "$n" -eq 0 ]; then ok; else bad "quit-message-queue fired on a queue that never quit"; fi
t=$(findings "$tmp/leak.hprof" --rules detached-view | cut -f2)
if [ "$t" = "android.view.View" ]; then ok; else bad "detached-view found '$t'"; fi

n=$(findings "$tmp/clean.hprof" | wc -l)
if [ "$n" -eq 0 ]; then ok; else bad "clean: $n findings: $(findings "$tmp/clean.hprof")"; fi
n=$(findings "$tmp/leak.hprof" --no-rules | wc -l)
if [ "$n" -eq 0 ]; then ok; else bad "--no-rules still reports findings"; fi

"$bin" suspects --fail-on-rule "$tmp/leak.hprof" > /dev/null 2>&1
st=$?
if [ $st -eq 1 ]; then ok; else bad "--fail-on-rule on the leak exited $st, expected 1"; fi
"$bin" suspects --fail-on-rule "$tmp/clean.hprof" > /dev/null 2>&1
st=$?
if [ $st -eq 0 ]; then ok; else bad "--fail-on-rule on the clean run exited $st, expected 0"; fi
"$bin" suspects --rules no-such-rule "$tmp/leak.hprof" > /dev/null 2> "$tmp/err"
st=$?
if [ $st -eq 2 ] && grep -q "no-such-rule" "$tmp/err"; then ok; else bad "unknown rule: exit $st, $(cat "$tmp/err")"; fi

# A class histogram is no dump (issue 29): named as such, exit 2.
"$bin" stat "$tmp/leak.histo" > /dev/null 2> "$tmp/err"
st=$?
if [ $st -eq 2 ] && grep -q "not a heap dump (looks like a JVM class histogram" "$tmp/err"; then ok; else
    bad "jcmd GC.class_histogram output: exit $st, $(head -c 300 "$tmp/err")"
fi

# json: the finding with its reason and per-step labels, and the suspect window.
"$bin" suspects --format json "$tmp/leak.hprof" > "$tmp/leak.json" 2> /dev/null
if grep -q '"rule":"destroyed-activity"' "$tmp/leak.json" &&
    grep -q '"reason":"Activity.mDestroyed is true"' "$tmp/leak.json" &&
    grep -q '"leaking":"yes"' "$tmp/leak.json" && grep -q '"window":' "$tmp/leak.json"; then ok; else
    bad "json finding incomplete: $(head -c 600 "$tmp/leak.json")"
fi
"$bin" suspects --format json "$tmp/clean.hprof" > "$tmp/clean.json" 2> /dev/null
if grep -q '"findings":\[\]' "$tmp/clean.json"; then ok; else bad "clean json has findings: $(head -c 300 "$tmp/clean.json")"; fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
