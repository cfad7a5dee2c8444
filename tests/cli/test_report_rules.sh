#!/bin/sh
# `gcheap report --suspects` has a section per leak rule that found
# something. The dump: testdata/rules/android-leak.hprof, a real JVM running
# tests/java/rules/LeakyApp.java "leak" (classes with AOSP's names and
# fields, see test_rules_android.sh). What the program planted, by hand: one
# finished MainActivity (mDestroyed = true) kept by its anonymous listener
# (MainActivity$1, field this$0) in the static list LeakyApp$EventBus.listeners
# (an ArrayList: elementData, slot [0]); its fragment, view and window are
# reached only through it (folded). So the page's data holds exactly one
# finding: destroyed-activity, one LeakyApp$MainActivity, whose trace runs
# ArrayList -> Object[] -> MainActivity$1 -> MainActivity held by
# "static LeakyApp$EventBus.listeners", elementData, [0], this$0, labelled
# unknown, unknown, unknown, yes (no step says "no": the window is steps 0-3).
# Its retained bytes and id are those `objects --retained` gives the one
# MainActivity (the dominator tree; the page takes the rule's). A dump
# without fields (.gclog) says why no rule ran; without --suspects the data
# has no "rules" key.
#   sh test_report_rules.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -u
bin=$1
d=$2/rules/android-leak.hprof
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

"$bin" report -q --suspects "$d" -o "$tmp/page.html" || bad "report --suspects exited $?"
# The rules' data: from "rules": to the end of the line (the keys below
# occur nowhere before it).
awk '{ i = index($0, "\"rules\":{"); if (i) print substr($0, i) }' "$tmp/page.html" > "$tmp/rules"
[ -s "$tmp/rules" ] && ok || bad "no rules data in the page"
n=$(grep -o '"rule":"[^"]*"' "$tmp/rules" | wc -l)
[ "$n" -eq 1 ] && ok || bad "$n findings, expected 1: $(grep -o '"rule":"[^"]*"' "$tmp/rules")"
line=$("$bin" objects -q --retained --format tsv --type 'LeakyApp$MainActivity' "$d" | awk -F '\t' 'NR == 2 { print $1 " " $5 }')
id=${line% *}
retained=${line#* }
[ -n "$id" ] && [ "$retained" -gt 0 ] 2> /dev/null && ok || bad "objects --retained gave '$line'"
want="\"rule\":\"destroyed-activity\",\"reason\":\"Activity.mDestroyed is true\",\"type\":\"LeakyApp\$MainActivity\",\"id\":\"$id\",\"count\":1,\"retained\":$retained,"
grep -qF "$want" "$tmp/rules" && ok || bad "finding head not '$want' in: $(head -c 400 "$tmp/rules")"
grep -qF '"library_leak":false,"window":{"from":0,"to":3},"path":[' "$tmp/rules" && ok || bad "window not 0-3"
steps=$(grep -o '"type":"[^"]*","bytes":[0-9]*,"holder":"[^"]*","leaking":"[^"]*"' "$tmp/rules" |
    sed 's/"type":"\([^"]*\)","bytes":[0-9]*,"holder":"\([^"]*\)","leaking":"\([^"]*\)"/\2 > \1 \3/')
want_steps='static LeakyApp$EventBus.listeners > java.util.ArrayList unknown
elementData > java.lang.Object[] unknown
[0] > LeakyApp$MainActivity$1 unknown
this$0 > LeakyApp$MainActivity yes'
[ "$steps" = "$want_steps" ] && ok || bad "trace:
$steps
expected:
$want_steps"

# No fields to read: the page says why, and no finding.
"$bin" report -q --suspects "$2/basic.gclog" -o "$tmp/gclog.html" || bad "report --suspects on .gclog exited $?"
grep -qF '"rules":{"why_none":"its format records no field values","findings":[]}' "$tmp/gclog.html" && ok ||
    bad "the .gclog page does not say why no rule ran"
"$bin" report -q "$d" -o "$tmp/plain.html" || bad "report exited $?"
grep -q '"rules":' "$tmp/plain.html" && bad "a report without --suspects has a rules key" || ok
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
