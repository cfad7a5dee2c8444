#!/bin/sh
# gcheap report on a series (three dumps or more) and the type rows that
# open, checked against the commands that compute the same another way:
#   - the page's leak rows are `gcheap leaks --format json`'s on the same
#     series (rows, files, each section's members), with and without
#     --stable-ids (the memlab rule, the growth rules); the path of each row
#     is `gcheap retainers`' path of its id in the last dump (root kind,
#     holder, every step's id, size, type and field);
#   - each type row that opens lists the biggest instances of
#     `gcheap objects --live --type T --retained --sort retained --top K`, in
#     that order, and the path of the first is `gcheap retainers`' (a .gclog
#     and an HPROF dump with field names and static holders);
#   - a path longer than REPORT_PATH_MAX (40) keeps its first and last 20
#     steps, with the whole length, as retainers shows them;
#   - a hand-made series with hostile names (</script>, <img onerror>, a
#     bidi override) leaks the counts leaks finds, and its page data stays
#     inert (report_data.js: no raw <, >, &, U+2028/9; two <script> elements);
#   - a series of mixed formats or sections is refused as leaks refuses it;
#   - one and two dumps still make their pages (no "leaks").
# The page in a browser: tests/cli/test_report_open_browser.sh.
#   sh tests/cli/test_report_leaks.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -u
. "$(dirname "$0")/need.sh"
scratch report_leaks "$1" "${3:-}" || exit 1
T=$2
need test_report_leaks nodejs node || exit 0
RD=$root/tests/browser/report_data.js
G=$bin
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
same() { # WHAT FILE1 FILE2
    if cmp -s "$2" "$3"; then ok; else bad "$1"; diff "$2" "$3" | head -8; fi
}

. "$(dirname "$0")/retainers_paths.sh"

# check_series NAME OPTIONS -- DUMP...: rows = leaks', paths = retainers'.
check_series() {
    name=$1
    shift
    opts=
    while [ "$1" != "--" ]; do
        opts="$opts $1"
        shift
    done
    shift
    for last in "$@"; do :; done
    # shellcheck disable=SC2086 # the options split on purpose
    "$G" report -q $opts "$@" -o "$tmp/$name.html" || { bad "$name: report exited $?"; return; }
    # shellcheck disable=SC2086
    "$G" leaks -q $opts --format json "$@" > "$tmp/$name.json" || { bad "$name: leaks exited $?"; return; }
    r=$(node "$RD" "$tmp/$name.html" leaksjson "$tmp/$name.json")
    if [ "$r" = same ]; then ok; else bad "$name: the page's leaks differ from leaks --format json: $r"; fi
    node "$RD" "$tmp/$name.html" leakrows > "$tmp/$name.rows"
    n=$(wc -l < "$tmp/$name.rows")
    if [ "$n" -gt 0 ]; then ok; else bad "$name: no leak row"; fi
    node "$RD" "$tmp/$name.html" leakpaths | sort -u > "$tmp/$name.paths"
    # shellcheck disable=SC2046 # one id per word
    retainers_paths "$G" "$last" $(cut -f7 "$tmp/$name.rows" | sort -u) | sort -u > "$tmp/$name.want"
    same "$name: each leak row's path = retainers' in $last" "$tmp/$name.paths" "$tmp/$name.want"
}

L=$T/leaks
check_series gclog-ids --stable-ids -- "$L/leak-1.gclog" "$L/leak-2.gclog" "$L/leak-3.gclog"
check_series gclog-growth -- "$L/leak-1.gclog" "$L/leak-2.gclog" "$L/leak-3.gclog"
check_series gcdump-ids --stable-ids -- "$L/leak-1.gcdump" "$L/leak-2.gcdump" "$L/leak-3.gcdump"
check_series dart -- "$L/leak-1.dartheap" "$L/leak-2.dartheap" "$L/leak-3.dartheap"
# By hand (testdata/leaks/README.md): 200 leaked objects, 100 heads, whose
# path from the static App.Holder is Holder -> ListenerList -> Listener[] -> Listener.
first=$(head -1 "$tmp/gclog-ids.rows" | cut -f1-4)
[ "$first" = "$(printf 'leak\t200\t7200\t100')" ] && ok || bad "gclog-ids: first row '$first'"
id=$(head -1 "$tmp/gclog-ids.rows" | cut -f7)
steps=$(awk -F'\t' -v id="$id" '$1 == id && $2 != "root" { printf "%s,", $5 }' "$tmp/gclog-ids.paths")
[ "$steps" = "App.Holder,App.ListenerList,App.Listener[],App.Listener," ] && ok || bad "gclog-ids: path $steps"

# Type rows that open: the instances are objects', the path retainers'.
check_instances() { # NAME DUMP K N
    "$G" report -q --instances "$3" --instance-types "$4" "$2" -o "$tmp/$1.html" || { bad "$1: report exited $?"; return; }
    node "$RD" "$tmp/$1.html" instances > "$tmp/$1.inst"
    cut -f1 "$tmp/$1.inst" | uniq > "$tmp/$1.types"
    nt=$(wc -l < "$tmp/$1.types")
    if [ "$nt" -ge "$4" ] && [ "$nt" -le $(($4 * 2)) ]; then ok; else bad "$1: $nt types open (--instance-types $4)"; fi
    : > "$tmp/$1.want"
    while IFS= read -r t; do
        "$G" objects -q --live --type "$t" --retained --sort retained --top "$3" --format tsv "$2" |
            awk -F'\t' -v t="$t" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
                { print t "\t" $c["id"] "\t" $c["size"] "\t" $c["retained"] }' >> "$tmp/$1.want"
    done < "$tmp/$1.types"
    same "$1: instances = objects --live --type T --retained --sort retained --top $3" "$tmp/$1.inst" "$tmp/$1.want"
    node "$RD" "$tmp/$1.html" instpaths | sort > "$tmp/$1.paths"
    # shellcheck disable=SC2046
    retainers_paths "$G" "$2" $(awk -F'\t' '!seen[$1]++ { print $2 }' "$tmp/$1.inst") | sort > "$tmp/$1.rpaths"
    same "$1: the first instance's path = retainers'" "$tmp/$1.paths" "$tmp/$1.rpaths"
}
check_instances shop "$T/report/shop.gclog" 4 3
check_instances hprof "$T/hprof/leak.hprof" 3 4
awk -F'\t' '$2 == "root" && $3 == "static" && $4 ~ /^java\./' "$tmp/hprof.paths" | grep -q . && ok || bad "hprof: no static holder named in the paths"
awk -F'\t' '$2 != "root" && $6 != ""' "$tmp/hprof.paths" | grep -q . && ok || bad "hprof: no field named in the paths"
# The defaults: 10 instances of the 100 + 100 rows.
"$G" report -q "$T/report/shop.gclog" -o "$tmp/default.html"
m=$(node "$RD" "$tmp/default.html" instances | cut -f1 | uniq -c | awk '$1 > m { m = $1 } END { print m }')
[ "$m" = 10 ] && ok || bad "default: at most $m instances per type, expected 10"
"$G" report -q --instances 0 "$T/report/shop.gclog" -o "$tmp/none.html"
[ "$(node "$RD" "$tmp/none.html" instances | wc -l)" = 0 ] && ok || bad "--instances 0 lists instances"

# A long path: a static root, 100 Link objects in a chain, one Big at its end.
{
    printf 'a 2 chain.exe 1\nt 1 Root\nt 2 Link\nt 3 Big\no 10 1 16 1000\n'
    i=0
    while [ $i -lt 100 ]; do
        printf 'o %x 2 24 %x\n' $((4096 + i)) $((4097 + i))
        i=$((i + 1))
    done
    printf 'o %x 3 5000\nr 10 4 0 1\nc chain.exe 2\n' $((4096 + 100))
} > "$tmp/chain.gclog"
"$G" report -q --instances 1 --instance-types 3 "$tmp/chain.gclog" -o "$tmp/chain.html"
node "$RD" "$tmp/chain.html" instpaths > "$tmp/chain.paths"
big=$(printf '%x' $((4096 + 100)))
awk -F'\t' -v b="$big" '$1 == b' "$tmp/chain.paths" > "$tmp/chain.big"
kept=$(awk -F'\t' '$2 != "root"' "$tmp/chain.big" | wc -l)
[ "$kept" = 40 ] && ok || bad "chain: $kept steps kept, expected 40"
retainers_paths "$G" "$tmp/chain.gclog" "$big" | awk -F'\t' '$2 == "root" || $2 < 20 || $2 > 81' > "$tmp/chain.want"
same "chain: the first and last 20 steps of retainers' 102" "$tmp/chain.big" "$tmp/chain.want"
len=$(node -e '
  const h = require("fs").readFileSync(process.argv[1], "utf8");
  const a = h.indexOf("id=\"gcheap-data\">") + 17, d = JSON.parse(h.slice(a, h.indexOf("</script>", a)));
  const s = d.dumps[0].sections[0];
  console.log(s.instances.find((x) => s.types.name[x.row] === "Big").path.length);' "$tmp/chain.html")
[ "$len" = 102 ] && ok || bad "chain: length $len, expected 102"

# A hand-made series with hostile names: k items are added to a static
# holder in dump k (ids stable), each holding a payload.
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
check_series hostile --stable-ids -- "$tmp/h1.gclog" "$tmp/h2.gclog" "$tmp/h3.gclog"
# 2 items and their payloads leak: 4 objects, 2 heads, 2 x (0x32 + 0x100) bytes.
first=$(head -1 "$tmp/hostile.rows" | cut -f1-4)
[ "$first" = "$(printf 'leak\t4\t612\t2')" ] && ok || bad "hostile: first row '$first'"
c=$(grep -a -o -i '<script' "$tmp/hostile.html" | wc -l)
[ "$c" = 2 ] && ok || bad "hostile: $c <script in the page, expected the template's 2"
grep -a -q "$(printf '\342\200\256')" "$tmp/hostile.html" && bad "hostile: a raw bidi override in the page" || ok

# Refused as leaks refuses them: mixed formats, other sections.
"$G" report -q "$L/leak-1.gclog" "$L/leak-2.gcdump" "$L/leak-3.gclog" -o "$tmp/mixed.html" 2> "$tmp/err"
st=$?
[ $st = 2 ] && ok || bad "mixed formats: exit $st, expected 2"
grep -q 'a series must be dumps of one process, in one format' "$tmp/err" && ok || bad "mixed formats: $(cat "$tmp/err")"
[ -e "$tmp/mixed.html" ] && bad "mixed formats: a page was written" || ok
"$G" report -q "$L/leak-1.gclog" "$L/leak-2.gclog" "$T/sections.gclog" -o "$tmp/sec.html" 2> "$tmp/err"
st=$?
[ $st = 2 ] && ok || bad "other sections: exit $st, expected 2"
grep -q 'sections, but' "$tmp/err" && ok || bad "other sections: $(cat "$tmp/err")"
"$G" report -q --stable-ids "$L/leak-1.gclog" "$L/leak-3.gclog" -o "$tmp/usage.html" 2> "$tmp/err"
st=$?
[ $st = 2 ] && grep -q 'applies to a series' "$tmp/err" && ok || bad "--stable-ids with two dumps: exit $st: $(cat "$tmp/err")"
# One and two dumps: no leaks.
"$G" report -q "$L/leak-1.gclog" "$L/leak-3.gclog" -o "$tmp/two.html"
node "$RD" "$tmp/two.html" leakrows > /dev/null 2>&1 && bad "two dumps: leaks in the page" || ok

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
