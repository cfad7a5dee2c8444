#!/bin/sh
# gcheap report: the HTML's structure and data, checked against the other
# commands that compute the same things another way (stat --retained walks the
# dominator tree's children lists, top ranks every live object, dom lists the
# root's children, diff compares types), on testdata of every format, a
# dump with hostile type names and a generated 200,000-object dump; usage
# errors. The page in a browser: tests/cli/test_report_browser.sh.
#
#   sh tests/cli/test_report.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -uf
if [ $# -lt 3 ]; then
    echo "usage: sh $0 GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR" >&2
    exit 2
fi
G=$1
T=$2
here=$(cd "$(dirname "$0")" && pwd)
RD=$here/../browser/report_data.js
GENDUMP=${GENDUMP:-$(dirname "$3")/gendump}
if ! command -v node > /dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null 2>&1; then
        apt-get -o DPkg::Lock::Timeout="${GCHEAP_APT_LOCK_TIMEOUT:-900}" update -qq > /dev/null 2>&1
        DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout="${GCHEAP_APT_LOCK_TIMEOUT:-900}" \
            install -y -qq nodejs > /dev/null 2>&1
    fi
fi
if ! command -v node > /dev/null 2>&1; then
    echo "SKIP: Node.js (node) is missing and could not be installed: it reads the report's JSON"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_report.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   - $1"; }
bad() { failed=$((failed + 1)); echo "FAIL - $1"; }
expect() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1 (got '$2', expected '$3')"; fi; }
same_file() {
    if cmp -s "$2" "$3"; then ok "$1"; else bad "$1"; diff "$2" "$3" | head -10; fi
}

# check_dump DUMP NAME [--nodes N]: the report of DUMP against stat, top, dom.
check_dump() {
    d=$1 name=$2
    shift 2
    out=$tmp/$name.html
    "$G" report -q "$@" "$d" -o "$out"
    expect "$name: exit status" "$?" 0
    node "$RD" "$out" nodes > "$tmp/nodes" || { bad "$name: structure"; return; }
    ok "$name: structure (one data element, JSON, tree sums)"
    # Types: count, bytes, retained per type, as stat --retained computes them.
    # (Numbers only where names need tsv escapes: the hostile dump.)
    cols=1-4
    [ "$name" = hostile ] && cols=1-3
    "$G" stat -q --retained --format tsv "$d" | tail -n +2 | cut -f$cols | sort > "$tmp/stat"
    node "$RD" "$out" types | cut -f$cols | sort > "$tmp/types"
    same_file "$name: types = stat --retained" "$tmp/types" "$tmp/stat"
    # Kept objects: the retained sizes of the K that top ranks first, and the
    # same ids wherever the retained size is not tied with the last one.
    k=$(cut -f2 "$tmp/nodes")
    node "$RD" "$out" kept > "$tmp/kept"
    "$G" top -q --top "$k" --format tsv "$d" | tail -n +2 | cut -f3 > "$tmp/top"
    same_file "$name: kept objects retain what top's first $k do" "$tmp/kept" "$tmp/top"
    last=$(tail -1 "$tmp/top")
    node "$RD" "$out" keptids | awk -F'\t' -v l="$last" '$2 > l' | sort > "$tmp/keptids"
    "$G" top -q --top "$k" --format tsv "$d" | tail -n +2 | awk -F'\t' -v l="$last" '$3 > l { print $1 "\t" $3 }' |
        sort > "$tmp/topids"
    same_file "$name: kept ids = top's ids (above ties)" "$tmp/keptids" "$tmp/topids"
    # The root's kept children are dom's depth-1 rows; the merged node holds the rest.
    "$G" dom -q --depth 1 --format tsv "$d" | awk -F'\t' '$1 == 1 { print $2 "\t" $4 }' | sort > "$tmp/dom1"
    node "$RD" "$out" rootkids > "$tmp/rk"
    grep -v '^merged' "$tmp/rk" | sort > "$tmp/rk_kept"
    missing=$(comm -23 "$tmp/rk_kept" "$tmp/dom1" | wc -l)
    expect "$name: the root's kept children are among dom's" "$missing" 0
    rest=$(comm -13 "$tmp/rk_kept" "$tmp/dom1" | awk -F'\t' '{ s += $2; n++ } END { printf "%d\t%d\n", s, n }')
    expect "$name: the root's merged node = dom's other children" "$(grep '^merged' "$tmp/rk" | cut -f2-)" "$rest"
}

check_dump "$T/why/graph.gclog" graph
check_dump "$T/basic.gclog" basic
check_dump "$T/report/shop.gclog" shop
check_dump "$T/report/shop.gclog" shop-nodes100 --nodes 100
check_dump "$T/dart/twin.dartheap" dart
check_dump "$T/gcdump/twin.gcdump" gcdump
check_dump "$T/why/graph.gclog" graph-nodes3 --nodes 3
# By hand: App.Root, App.Cache, App.Node kept; merged: the root's System.String,
# App.Root's other App.Node, App.Cache's and App.Node's System.Object[].
expect "graph --nodes 3: 3 kept, 4 merged" "$(node "$RD" "$tmp/graph-nodes3.html" nodes)" "$(printf '8\t3')"

# --suspects: each single-object suspect and its accumulation point retain
# what top says they retain; none without --suspects.
"$G" report -q --suspects "$T/report/shop.gclog" -o "$tmp/sus.html"
expect "--suspects: exit status" "$?" 0
node "$RD" "$tmp/sus.html" suspects > "$tmp/sus"
"$G" top -q --top 100000 --format tsv "$T/report/shop.gclog" | awk -F'\t' 'NR > 1 { print $1 "\t" $3 }' |
    sort > "$tmp/top-all"
if [ -s "$tmp/sus" ]; then ok "--suspects: $(wc -l < "$tmp/sus") suspect(s)"; else bad "--suspects: none"; fi
awk -F'\t' '$1 == 0 { print $2 "\t" $3; print $4 "\t" $5 }' "$tmp/sus" | sort -u > "$tmp/sus-ret"
expect "--suspects: retained sizes = top's" "$(comm -23 "$tmp/sus-ret" "$tmp/top-all" | wc -l)" 0
expect "no --suspects: no suspects" "$(node "$RD" "$tmp/shop.html" suspects | wc -l)" 0

# Several sections: one per section, totals as info reports them.
"$G" report -q "$T/sections.gclog" -o "$tmp/sections.html"
node "$RD" "$tmp/sections.html" sections | cut -f2- > "$tmp/secs"
"$G" info --format tsv "$T/sections.gclog" | awk -F'\t' '
    $1 == "objects" { o = $2 } $1 == "bytes" { b = $2 } $1 == "live_objects" { lo = $2 }
    $1 == "live_bytes" { print o "\t" b "\t" lo "\t" $2 }' > "$tmp/info"
same_file "sections: totals per section = info" "$tmp/secs" "$tmp/info"

# Anomalies: one name each (src/cli/anomalies.c), the same as info's, with
# info's counts, on a dump that has most of them.
"$G" report -q "$T/anomalies.gclog" -o "$tmp/anomalies.html"
node "$RD" "$tmp/anomalies.html" anomalies | sort > "$tmp/an-report"
"$G" info -q --format tsv "$T/anomalies.gclog" | cut -f1-2 | sort > "$tmp/an-info"
expect "anomalies: 9 in the report" "$(wc -l < "$tmp/an-report")" 9
nz=$(awk -F'\t' '$2 > 0' "$tmp/an-report" | wc -l)
if [ "$nz" -gt 0 ]; then ok "anomalies: $nz of them counted"; else bad "anomalies: none counted"; fi
expect "anomalies: the report's names and counts are info's" "$(comm -23 "$tmp/an-report" "$tmp/an-info" | wc -l)" 0

# Hostile names: inert in the data, the title and the JSON.
h=$T/report/hostile.gclog
"$G" report -q "$h" -o "$tmp/hostile.html"
expect "hostile: exit status" "$?" 0
check_dump "$h" hostile
expect "hostile: no raw <script in the page beyond the template's two" \
    "$(grep -a -o -i '<script' "$tmp/hostile.html" | wc -l)" 2
# The file name goes into the page's <title>: HTML-escaped.
cp "$h" "$tmp/a<b>&\"c'.gclog"
"$G" report -q "$tmp/a<b>&\"c'.gclog" -o "$tmp/title.html"
title=$(grep -a -o '<title>.*</title>' "$tmp/title.html")
expect "hostile: the file name in the title is escaped" "$title" \
    "<title>gcheap report: $tmp/a&lt;b&gt;&amp;&quot;c&#39;.gclog</title>"

# Two dumps: the comparison rows are diff's on live objects with retained
# sizes; the first row has the biggest retained change.
"$G" report -q "$T/diff/base.gclog" "$T/diff/new.gclog" -o "$tmp/cmp.html"
expect "compare: exit status" "$?" 0
node "$RD" "$tmp/cmp.html" compare > "$tmp/cmp.rows"
sort "$tmp/cmp.rows" > "$tmp/cmp"
"$G" diff --live --retained --format tsv "$T/diff/base.gclog" "$T/diff/new.gclog" | awk -F'\t' '
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { print $c["type"] "\t" $c["base_count"] "\t" $c["new_count"] "\t" $c["base_bytes"] "\t" $c["new_bytes"] \
        "\t" $c["base_retained"] "\t" $c["new_retained"] }' | sort > "$tmp/diff"
same_file "compare: rows = diff --live --retained" "$tmp/cmp" "$tmp/diff"
first=$(head -1 "$tmp/cmp.rows" | cut -f1)
want=$(awk -F'\t' '{ d = $7 - $6; if (d < 0) d = -d; if (d > best) { best = d; name = $1 } } END { print name }' "$tmp/diff")
expect "compare: the first row changes retained the most" "$first" "$want"

# A generated 200,000-object dump: bounded tree, small file.
if [ -x "$GENDUMP" ]; then
    "$GENDUMP" --objects 200000 --seed 7 -o "$tmp/g.gclog" 2> /dev/null
    check_dump "$tmp/g.gclog" gen200k --nodes 2000
    n=$(node "$RD" "$tmp/gen200k.html" nodes | cut -f1)
    if [ "$n" -le 4002 ]; then ok "gen200k: $n nodes <= 2 * 2000 + 2"; else bad "gen200k: $n nodes"; fi
    # The same through standard input.
    "$G" report -q - < "$tmp/g.gclog" --nodes 2000 > "$tmp/stdin.html"
    node "$RD" "$tmp/stdin.html" kept > "$tmp/kept-stdin"
    node "$RD" "$tmp/gen200k.html" kept > "$tmp/kept-file"
    same_file "gen200k: the same report from standard input" "$tmp/kept-stdin" "$tmp/kept-file"
else
    echo "skip - $GENDUMP not built: no generated dump"
fi

# Usage and input errors: exit 2, a message, no output file.
"$G" report > /dev/null 2> "$tmp/err"
expect "no dump: exit 2" "$?" 2
# Three dumps are a series (tests/cli/test_report_leaks.sh): one dump three
# times leaks nothing.
"$G" report -q "$T/basic.gclog" "$T/basic.gclog" "$T/basic.gclog" > "$tmp/three.html" 2> "$tmp/err"
expect "three dumps: exit 0" "$?" 0
expect "three times one dump: no leak row" "$(node "$RD" "$tmp/three.html" leakrows | wc -l)" 0
"$G" report --format json "$T/basic.gclog" > /dev/null 2> "$tmp/err"
expect "--format: exit 2" "$?" 2
cp "$T/basic.gclog" "$tmp/in.gclog"
"$G" report "$tmp/in.gclog" -o "$tmp/in.gclog" 2> "$tmp/err"
expect "-o naming the input: exit 2" "$?" 2
same_file "-o naming the input: the input is untouched" "$tmp/in.gclog" "$T/basic.gclog"
"$G" report "$tmp/missing.gclog" -o "$tmp/m.html" 2> "$tmp/err"
expect "missing dump: exit 2" "$?" 2
expect "missing dump: no output" "$(ls "$tmp/m.html" 2> /dev/null)" ""
"$G" report --nodes 0 "$T/basic.gclog" > /dev/null 2> "$tmp/err"
expect "--nodes 0: exit 2" "$?" 2
"$G" report "$T/basic.gclog" -o "$tmp/nodir/x.html" 2> "$tmp/err"
expect "unwritable output: exit 2" "$?" 2
"$G" report --help > "$tmp/help"
expect "--help: exit 0" "$?" 0
grep -q -- '--nodes N' "$tmp/help" && ok "--help lists --nodes" || bad "--help lists --nodes"

echo "passed $passed, failed $failed"
[ "$failed" -eq 0 ]
