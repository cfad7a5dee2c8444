#!/bin/sh
# gcheap report in a real browser: headless Chromium loads reports of
# testdata and of a generated dump and tests/browser/check_report.js checks
# the page after its script ran (the biggest retainer, as `gcheap top` names
# it, is the widest node under the root; hovering shows its retained size;
# clicking zooms into it; the breadcrumb goes back; the type table sorts and
# filters; a type row opens to its biggest instances and the path of the
# first; hostile type names show as text and run nothing), that it made no
# network request and logged no error, and takes screenshots.
#
#   sh tests/cli/test_report_browser.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
#
# Installs chromium (Debian package) when missing and possible; otherwise
# skips with a message. Screenshots go to BUILD_TESTS_DIR/report-*.png.
set -uf
if [ $# -lt 3 ]; then
    echo "usage: sh $0 GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR" >&2
    exit 2
fi
G=$1
T=$2
OUT=$3
here=$(cd "$(dirname "$0")" && pwd)
CHECK=$here/../browser/check_report.js
GENDUMP=${GENDUMP:-$(dirname "$3")/gendump}

install_missing() {
    [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null 2>&1 || return 1
    apt-get -o DPkg::Lock::Timeout="${GCHEAP_APT_LOCK_TIMEOUT:-900}" update -qq > /dev/null 2>&1
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout="${GCHEAP_APT_LOCK_TIMEOUT:-900}" install -y -qq "$@" > /dev/null 2>&1
}
CHROMIUM=${CHROMIUM:-}
[ -n "$CHROMIUM" ] || CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
    install_missing chromium
    CHROMIUM=$(command -v chromium || true)
fi
command -v node > /dev/null 2>&1 || install_missing nodejs
if [ -z "$CHROMIUM" ]; then
    echo "SKIP: chromium is not installed and could not be installed (apt-get install chromium)"
    exit 0
fi
if ! command -v node > /dev/null 2>&1; then
    echo "SKIP: Node.js (node) is not installed and could not be installed: it drives Chromium"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_report_browser.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

failed=0
# run NAME DUMP... -- CHECK-ARGS...: writes the report, then checks it.
run() {
    name=$1
    shift
    set -- "$@"
    dumps=""
    while [ "$1" != "--" ]; do
        dumps="$dumps $1"
        shift
    done
    extra=""
    case " $* " in *" --suspects "*) extra=--suspects ;; esac
    shift
    # shellcheck disable=SC2086 # the dump list splits on purpose
    if ! "$G" report -q $extra $dumps -o "$tmp/$name.html"; then
        echo "FAIL - $name: gcheap report failed"
        failed=$((failed + 1))
        return
    fi
    echo "== $name"
    if ! node "$CHECK" "$CHROMIUM" "$tmp/$name.html" --screenshot "$OUT/report-$name.png" "$@"; then
        failed=$((failed + 1))
    fi
}

# first_of DUMP: the type and retained size of the live object that retains
# the most, as `gcheap top` reports them.
first_type() { "$G" top -q --top 1 --format tsv "$1" | awk -F'\t' 'NR == 2 { print $4 }'; }
first_retained() { "$G" top -q --top 1 --format tsv "$1" | awk -F'\t' 'NR == 2 { print $3 }'; }

d=$T/why/graph.gclog
run graph "$d" -- --first-type "$(first_type "$d")" --first-retained "$(first_retained "$d")"
d=$T/report/shop.gclog
run shop "$d" -- --first-type "$(first_type "$d")" --first-retained "$(first_retained "$d")" --suspects --open
d=$T/report/hostile.gclog
run hostile "$d" -- --first-type "$(first_type "$d")" --first-retained "$(first_retained "$d")" \
    --text '</script><script>window.__gcheap_xss=1</script>' \
    --text '<!--<script>window.__gcheap_xss=2//' \
    --text '<img src=x onerror="window.__gcheap_xss=3">' \
    --text '<script>window.__gcheap_xss=4</script>.exe'
d=$T/dart/twin.dartheap
run dart "$d" -- --first-type "$(first_type "$d")" --first-retained "$(first_retained "$d")"
run compare "$T/diff/base.gclog" "$T/diff/new.gclog" -- --compare
# A series (three dumps): the page opens on the leaks and draws without an error.
run series --stable-ids "$T/leaks/leak-1.gclog" "$T/leaks/leak-2.gclog" "$T/leaks/leak-3.gclog" -- --render-only
if [ -x "$GENDUMP" ]; then
    "$GENDUMP" --objects 300000 --seed 3 -o "$tmp/g.gclog" 2> /dev/null
    d=$tmp/g.gclog
    run gen300k "$d" -- --first-type "$(first_type "$d")" --first-retained "$(first_retained "$d")"
else
    echo "skip - $GENDUMP not built: no generated dump"
fi
# Edge cases: they draw without an error: an empty section, a heap with no
# root (nothing live), a comparison where --domain finds the section in one
# dump only.
printf 'a 2 empty.exe 1\nc empty.exe 2\n' > "$tmp/empty.gclog"
printf 'a 2 noroots.exe 1\nt 1 A\no 10 1 20\no 20 1 30 10\nc noroots.exe 2\n' > "$tmp/noroots.gclog"
run empty "$tmp/empty.gclog" -- --render-only
run noroots "$tmp/noroots.gclog" -- --render-only
run onesided --domain demo.exe "$T/basic.gclog" "$T/why/graph.gclog" -- --render-only

# The checker itself must catch what it looks for: the graph report with an
# image from the network (and no Content-Security-Policy to block it), then
# with a console error. Both runs must fail.
canary() {
    name=$1
    if node "$CHECK" "$CHROMIUM" "$tmp/$name.html" > "$tmp/$name.out" 2>&1; then
        echo "FAIL - the checker missed $2"
        failed=$((failed + 1))
    elif grep -q "FAIL $3" "$tmp/$name.out"; then
        echo "ok   - the checker catches $2"
    else
        echo "FAIL - the checker failed on $name for another reason:"
        cat "$tmp/$name.out"
        failed=$((failed + 1))
    fi
}
sed 's|<meta http-equiv="Content-Security-Policy"[^>]*>||; s|</main>|<img src="http://127.0.0.1:9/x.png"></main>|' \
    "$tmp/graph.html" > "$tmp/canary-net.html"
canary canary-net "a network request" "no network request"
sed 's|try {|try { console.error("canary");|' "$tmp/graph.html" > "$tmp/canary-console.html"
canary canary-console "a console error" "no console error"

[ "$failed" -eq 0 ] && echo "all browser checks passed"
[ "$failed" -eq 0 ]
