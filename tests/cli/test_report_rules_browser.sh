#!/bin/sh
# The leak-rule section of `gcheap report --suspects` as headless Chromium
# renders it (--dump-dom: the page after its script ran): one section for
# destroyed-activity on testdata/rules/android-leak.hprof (the planted leak
# of test_report_rules.sh), its trace's four steps with the last one
# "leaking: yes", the three references of the suspect window marked "~".
# Skips when Chromium is missing and cannot be installed.
#   sh test_report_rules_browser.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -u
bin=$1
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$CHROMIUM" ] && [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null 2>&1; then
    apt-get -o DPkg::Lock::Timeout="${GCHEAP_APT_LOCK_TIMEOUT:-900}" update -qq > /dev/null 2>&1
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout="${GCHEAP_APT_LOCK_TIMEOUT:-900}" \
        install -y -qq chromium > /dev/null 2>&1
    CHROMIUM=$(command -v chromium || true)
fi
[ -n "$CHROMIUM" ] || { echo "SKIP: chromium is not installed and could not be installed"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

"$bin" report -q --suspects "$2/rules/android-leak.hprof" -o "$tmp/page.html" || bad "report exited $?"
timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/profile" \
    --dump-dom "file://$tmp/page.html" > "$tmp/dom.html" 2> /dev/null || bad "chromium exited $?"
# one element a line
sed 's/<\(section\|h2\|div\|p\|li\)[ >]/\n&/g' "$tmp/dom.html" > "$tmp/dom"
n=$(grep -c '^<section class="rule"' "$tmp/dom")
[ "$n" -eq 1 ] && ok || bad "$n rule sections, expected 1"
grep -q '^<section class="rule" data-rule="destroyed-activity">' "$tmp/dom" && ok || bad "no destroyed-activity section"
grep -q '^<h2>Leak rule: destroyed-activity</h2>' "$tmp/dom" && ok || bad "no heading"
grep -q '^<p class="finding">1 object of LeakyApp\$MainActivity, .* retained (12.0% of the live bytes): Activity.mDestroyed is true</p>' "$tmp/dom" &&
    ok || bad "finding line: $(grep '^<p class="finding"' "$tmp/dom")"
steps=$(sed -n 's/^<div class="step leaking-\([a-z]*\)">\([^ ]*\) @.*/\2 \1/p' "$tmp/dom")
want='java.util.ArrayList unknown
java.lang.Object[] unknown
LeakyApp$MainActivity$1 unknown
LeakyApp$MainActivity yes'
[ "$steps" = "$want" ] && ok || bad "steps: $steps"
refs=$(sed -n 's/^<div class="ref window">\(.*\)<\/div>.*/\1/p' "$tmp/dom" | tr '\n' ',')
[ "$refs" = '~ elementData,~ [0],~ this$0,' ] && ok || bad "window references: $refs"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
