#!/bin/sh
# The detached-dom rule on real headless Chromium snapshots (taken over the
# DevTools protocol as DevTools' Memory panel takes them:
# tests/browser/heap_snapshot.js). tests/browser/detached_leak.html removes 8
# <section> subtrees from its document and keeps them in a JavaScript array
# (window.leakHolder, a DetachedHolder, property removed);
# tests/browser/detached_clean.html does the same and keeps nothing. Checked:
#   - leak: exactly one finding, rule detached-dom, on the 8 removed sections
#     (the roots of the detached trees; their children fold into them): its
#     count is 8 and equals what `stat --type 'Detached <section>'` counts
#     (the names DevTools gives them); its path ends ... DetachedHolder
#     (.leakHolder) -> Array (.removed) -> Detached <section> ([0]): the
#     JavaScript holder is named, the holder and the array are the suspect
#     window's, the section is leaking (detachedness 2);
#   - --rules detached-dom alone gives the same finding; --fail-on-rule exits 1;
#   - clean: no finding, --fail-on-rule exits 0;
#   - a Node.js snapshot (Node marks its own natives detached: DevTools names
#     them "Detached Node / BindingData", no DOM nodes): no finding.
#   sh test_rules_dom.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -u
. "$(dirname "$0")/need.sh"
scratch rules_dom "$1" "${3:-}" || exit 1
need test_rules_dom nodejs node || exit 0
need test_rules_dom chromium chromium || exit 0
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

for page in leak clean; do
    if ! timeout 180 node "$root/tests/browser/heap_snapshot.js" chromium "$root/tests/browser/detached_$page.html" \
            "$tmp/$page.heapsnapshot" 2> "$tmp/chromium.err"; then
        echo "SKIP test_rules_dom: headless Chromium gave no snapshot: $(head -c 300 "$tmp/chromium.err")"
        echo "$pass passed, $fail failed (skipped)"
        exit 0
    fi
done

"$bin" suspects -q --format tsv "$tmp/leak.heapsnapshot" > "$tmp/s.tsv" || bad "suspects exited $?"
# columns: suspect row id count bytes percent detail type domain
got=$(awk -F'\t' '$2 == "finding" { print $4 "\t" $7 "\t" $8 }' "$tmp/s.tsv")
[ "$got" = "$(printf '8\tdetached-dom\tDetached <section>')" ] && ok || bad "findings '$got', expected one detached-dom of 8 sections"
n=$("$bin" stat -q --format tsv --type 'Detached <section>' "$tmp/leak.heapsnapshot" | awk -F'\t' 'NR == 2 { print $1 }')
[ "$n" = 8 ] && ok || bad "stat counts '$n' Detached <section>, expected 8"
# the last three trace steps: type, leaking
tail3=$(awk -F'\t' '$2 == "trace" { print $8 "\t" $7 }' "$tmp/s.tsv" | tail -3 | tr '\n' '|')
[ "$tail3" = "$(printf 'DetachedHolder\tunknown|Array\tunknown|Detached <section>\tyes|')" ] && ok ||
    bad "the path does not end DetachedHolder -> Array -> Detached <section>: '$tail3'"
"$bin" suspects -q --format json "$tmp/leak.heapsnapshot" > "$tmp/s.json" || bad "suspects json exited $?"
for h in '"type":"DetachedHolder","bytes":[0-9]*,"holder":".leakHolder"' '"type":"Array","bytes":[0-9]*,"holder":".removed"' \
        '"rule":"detached-dom","reason":"detachedness is 2'; do
    grep -q "$h" "$tmp/s.json" && ok || bad "json has no $h"
done
"$bin" suspects -q --rules detached-dom --format tsv "$tmp/leak.heapsnapshot" > "$tmp/only.tsv" || bad "--rules exited $?"
[ "$(awk -F'\t' '$2 == "finding"' "$tmp/only.tsv")" = "$(awk -F'\t' '$2 == "finding"' "$tmp/s.tsv")" ] && ok ||
    bad "--rules detached-dom differs"
"$bin" suspects -q --fail-on-rule "$tmp/leak.heapsnapshot" > /dev/null 2>&1
[ $? -eq 1 ] && ok || bad "--fail-on-rule on the leak did not exit 1"

"$bin" suspects -q --format tsv "$tmp/clean.heapsnapshot" > "$tmp/c.tsv" || bad "suspects (clean) exited $?"
awk -F'\t' '$2 == "finding"' "$tmp/c.tsv" | grep -q . && bad "findings on the clean page: $(awk -F'\t' '$2 == "finding"' "$tmp/c.tsv")" || ok
"$bin" suspects -q --fail-on-rule "$tmp/clean.heapsnapshot" > /dev/null 2>&1
[ $? -eq 0 ] && ok || bad "--fail-on-rule on the clean page did not exit 0"

(cd "$tmp" && node -e "require('v8').writeHeapSnapshot('$tmp/node.heapsnapshot')") ||
    bad "node could not write a snapshot"
"$bin" stat -q --format tsv --type 'Detached Node*' "$tmp/node.heapsnapshot" | awk -F'\t' 'NR == 2 && $1 > 0' | grep -q . ||
    echo "note: this Node.js marks none of its natives detached"
"$bin" suspects -q --format tsv "$tmp/node.heapsnapshot" > "$tmp/n.tsv" || bad "suspects (node) exited $?"
awk -F'\t' '$2 == "finding"' "$tmp/n.tsv" | grep -q . && bad "findings on a Node.js snapshot: $(awk -F'\t' '$2 == "finding"' "$tmp/n.tsv" | head -3)" || ok

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
