#!/bin/sh
# What the report shows opened, as headless Chromium renders it (--dump-dom:
# the page after its script ran):
#   - a type row opened by the page's address (#open=System.Byte%5B%5D on
#     testdata/report/shop.gclog): one detail row under it, whose instance
#     ids are the data's (those test_report_leaks.sh checks against
#     `gcheap objects`), in order, and whose path has the data's steps, the
#     first naming the static root's holder;
#   - a series (testdata/leaks, --stable-ids): the page opens on the leaks,
#     the first row open on the path that holds its example (App.Holder ->
#     ... -> App.Listener, by hand in testdata/leaks/README.md);
#   - a series with hostile names (</script>, <img onerror>, a bidi
#     override), its hostile type row opened: the names show as text (the
#     DOM holds &lt;...&gt;, the bidi override as its bytes \xe2\x80\xae), no
#     element comes from the data, and check_report.js --render-only sees no
#     script of the data run, no request, no console error.
# Skips when Chromium or Node.js is missing and cannot be installed.
#   sh test_report_open_browser.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -u
. "$(dirname "$0")/need.sh"
scratch report_open_browser "$1" "${3:-}" || exit 1
T=$2
need test_report_open_browser chromium chromium || exit 0
need test_report_open_browser nodejs node || exit 0
CHROMIUM=$(command -v chromium)
RD=$root/tests/browser/report_data.js
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# dom PAGE [#FRAGMENT]: the rendered page, one element a line.
dom() {
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/profile" \
        --dump-dom "file://$1${2:-}" 2> /dev/null |
        sed 's/<\(tr\|td\|li\|p\|table\|ol\|div\|section\|h2\|script\|img\)[ >]/\n&/g'
}

"$bin" report -q --instances 3 "$T/report/shop.gclog" -o "$tmp/shop.html" || bad "report exited $?"
dom "$tmp/shop.html" '#open=System.Byte%5B%5D' > "$tmp/shop.dom"
n=$(grep -c '^<tr class="detail">' "$tmp/shop.dom")
[ "$n" = 1 ] && ok || bad "shop: $n opened rows, expected 1"
# The opened row's instance ids (the rows of table.inst after its header).
got=$(awk '/^<table class="inst">/ { on = 1; next } on && /^<p/ { on = 0 }
    on && /^<tr>/ { first = 1; next } on && first && /^<td>/ { sub(/^<td>/, ""); sub(/<.*/, ""); print; first = 0 }' "$tmp/shop.dom")
want=$(node "$RD" "$tmp/shop.html" instances | awk -F'\t' '$1 == "System.Byte[]" { print $2 }')
[ -n "$got" ] && [ "$got" = "$want" ] && ok || bad "shop: instance ids '$got', expected '$want'"
steps=$(grep -c '^<li value=' "$tmp/shop.dom")
wsteps=$(node "$RD" "$tmp/shop.html" instpaths | awk -F'\t' -v f="$(echo "$want" | head -1)" '$1 == f && $2 != "root"' | wc -l)
[ "$steps" = "$wsteps" ] && [ "$steps" -gt 1 ] && ok || bad "shop: $steps path steps shown, expected $wsteps"
grep -q '^<li value="0">\[static root App.Program\] App.Program (id ' "$tmp/shop.dom" && ok ||
    bad "shop: the root step: $(grep -m1 '^<li value="0">' "$tmp/shop.dom")"
# Without the fragment, nothing is open.
dom "$tmp/shop.html" > "$tmp/closed.dom"
[ "$(grep -c '^<tr class="detail">' "$tmp/closed.dom")" = 0 ] && ok || bad "shop: a row is open without #open="

L=$T/leaks
"$bin" report -q --stable-ids "$L/leak-1.gclog" "$L/leak-2.gclog" "$L/leak-3.gclog" -o "$tmp/series.html" ||
    bad "series: report exited $?"
dom "$tmp/series.html" > "$tmp/series.dom"
grep -q '^<table class="leaks">' "$tmp/series.dom" && ok || bad "series: no leaks table"
path=$(sed -n 's/^<li value="\([0-9]*\)">\(.*\)<\/li>.*/\1 \2/p' "$tmp/series.dom" | head -4)
want='0 [static root App.Holder] App.Holder (id 1000, 24 bytes)
1 App.ListenerList (id 1020, 32 bytes)
2 App.Listener[] (id a00000, 2,416 bytes)
3 App.Listener (id 101f40, 40 bytes)'
[ "$path" = "$want" ] && ok || bad "series: the first leak's path: $path"
grep -q '^<button type="button" role="tab"[^>]*>Leaks</button>' "$tmp/series.dom" ||
    grep -q 'role="tab"[^>]*aria-selected="true">Leaks<' "$tmp/series.dom" && ok || bad "series: no Leaks tab"

# The hostile series of test_report_leaks.sh.
xss='</script><script>window.__gcheap_xss=1</script>'
img='<img src=x onerror="window.__gcheap_xss=3">'
bidi=$(printf 'Evil\342\200\256txt.exe')
for k in 1 2 3; do
    {
        printf 'a 2 hostile %s 1\nt 20 %s\nt 21 %s\nt 22 %s\n' "$xss" "$xss" "$bidi" "$img"
        refs=
        i=1
        while [ $i -le $((k * 2)) ]; do
            refs="$refs $((1000 + i))"
            printf 'o %d 20 32 %d\no %d 21 100\n' $((1000 + i)) $((5000 + i)) $((5000 + i))
            i=$((i + 1))
        done
        printf 'o 100 22 16%s\nr 100 4 0 22\nc hostile %s 2\n' "$refs" "$xss"
    } > "$tmp/h$k.gclog"
done
"$bin" report -q --stable-ids "$tmp/h1.gclog" "$tmp/h2.gclog" "$tmp/h3.gclog" -o "$tmp/hostile.html" ||
    bad "hostile: report exited $?"
frag=$(node -e 'console.log("#open=" + encodeURIComponent(process.argv[1]))' "$xss")
dom "$tmp/hostile.html" "$frag" > "$tmp/hostile.dom"
[ "$(grep -c '^<script' "$tmp/hostile.dom")" = 2 ] && ok || bad "hostile: $(grep -c '^<script' "$tmp/hostile.dom") script elements"
grep -q '^<img' "$tmp/hostile.dom" && bad "hostile: an img element from the data" || ok
grep -q '&lt;/script&gt;&lt;script&gt;window.__gcheap_xss=1&lt;/script&gt;' "$tmp/hostile.dom" && ok ||
    bad "hostile: the script name does not show as text"
grep -q 'Evil\\xe2\\x80\\xaetxt.exe' "$tmp/hostile.dom" && ok || bad "hostile: the bidi name is not shown as its bytes"
grep -q "$(printf '\342\200\256')" "$tmp/hostile.dom" && bad "hostile: a raw bidi override in the page" || ok
# The opened hostile type row: its detail under the type table.
grep -q '^<tr class="detail">' "$tmp/hostile.dom" && ok || bad "hostile: no row opened by #open="
n=$(grep -c '^<li value="0">\[static root &lt;img src=x onerror="window.__gcheap_xss=3"&gt;\]' "$tmp/hostile.dom")
[ "$n" -ge 2 ] && ok || bad "hostile: $n root steps naming the holder as text, expected the leak's and the type's"
if node "$root/tests/browser/check_report.js" "$CHROMIUM" "$tmp/hostile.html" --render-only > "$tmp/check.out" 2>&1; then
    ok
else
    bad "hostile: check_report.js: $(grep FAIL "$tmp/check.out")"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
