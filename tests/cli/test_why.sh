#!/bin/sh
# Cross-checks the "why is it alive" commands (top, dom, objsize, retainers,
# stat --retained) against each other and against info/stat on generated
# dumps (bench/gendump.c), and checks that their tsv/csv/json parse back.
#
#   sh tests/cli/test_why.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
#
# The generator is BUILD_TESTS_DIR/../gendump (or $GENDUMP).
set -uf  # -f: no pathname expansion (type globs such as System.* are arguments)
if [ $# -lt 3 ]; then
    echo "usage: sh $0 GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR" >&2
    exit 2
fi
G=$1
GENDUMP=${GENDUMP:-$(dirname "$3")/gendump}
JSON_CHECK=$3/json_check
if [ ! -x "$GENDUMP" ]; then
    echo "SKIP: $GENDUMP not built (configure with -DGCHEAP_BENCH=ON)"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_why.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   - $1"; }
bad() { failed=$((failed + 1)); echo "FAIL - $1"; }
expect() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1 (got '$2', expected '$3')"; fi; }
# le DESC A B: A <= B (numbers)
le() { if [ "$2" -le "$3" ] 2>/dev/null; then ok "$1"; else bad "$1 ($2 > $3)"; fi; }
# col NAME: prints column NAME of a tsv on stdin, without the header
col() { awk -F'\t' -v n="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; next } { print $c }'; }
sum() { awk '{ s += $1 } END { printf "%d\n", s }'; }
info_value() { "$G" info --format tsv "$1" | awk -F'\t' -v k="$2" '$1 == k { print $2 }'; }

check_dump() {
    d=$1
    name=$2
    live_bytes=$(info_value "$d" live_bytes)
    live_objects=$(info_value "$d" live_objects)

    # stat --retained: the total's retained is the live bytes; per-type
    # retained never exceeds the live bytes.
    r=$("$G" stat --retained --format json "$d" | sed 's/.*"total":{[^}]*"retained":\([0-9]*\).*/\1/')
    expect "$name: stat --retained total = live_bytes" "$r" "$live_bytes"
    "$G" stat --retained --format tsv "$d" > "$tmp/st.tsv"
    maxr=$(col retained < "$tmp/st.tsv" | sort -n | tail -1)
    le "$name: every type retains <= live bytes" "$maxr" "$live_bytes"
    first=$("$G" stat --retained --sort retained --format tsv "$d" | col retained | head -1)
    expect "$name: --sort retained puts the biggest first" "$first" "$maxr"

    # top: biggest first, first row <= live bytes, --top 5 is a prefix of --top 50.
    "$G" top --top 50 --format tsv "$d" > "$tmp/top.tsv"
    top1=$(col retained < "$tmp/top.tsv" | head -1)
    le "$name: top's first retained <= live bytes" "$top1" "$live_bytes"
    sorted=$(col retained < "$tmp/top.tsv" | sort -rn | tr '\n' ' ')
    expect "$name: top is sorted by retained" "$(col retained < "$tmp/top.tsv" | tr '\n' ' ')" "$sorted"
    expect "$name: top has 50 rows" "$(col id < "$tmp/top.tsv" | wc -l | tr -d ' ')" 50
    "$G" top --top 5 --format tsv "$d" > "$tmp/top5.tsv"
    expect "$name: top --top 5 is a prefix of --top 50" "$(cat "$tmp/top5.tsv")" "$(head -6 "$tmp/top.tsv")"
    # ... and agrees with objsize and retainers --dominators on the same objects.
    ids=$(col id < "$tmp/top.tsv" | head -8 | tr '\n' ' ')
    "$G" objsize --format tsv "$d" $ids > "$tmp/os.tsv"
    expect "$name: objsize retained = top retained" "$(col retained < "$tmp/os.tsv" | tr '\n' ' ')" \
        "$(col retained < "$tmp/top.tsv" | head -8 | tr '\n' ' ')"
    awk -F'\t' 'NR > 1 && $4 < $5 { bad++ } END { exit bad > 0 }' "$tmp/os.tsv" &&
        ok "$name: objsize reach_bytes >= retained (top objects)" ||
        bad "$name: objsize reach_bytes < retained"
    for id in $(echo "$ids" | cut -d' ' -f1-3); do
        "$G" retainers --dominators --format tsv "$d" "$id" > "$tmp/rd.tsv"
        last=$(col retained < "$tmp/rd.tsv" | tail -1)
        want=$(awk -F'\t' -v id="$id" '$1 == id { print $3 }' "$tmp/top.tsv")
        expect "$name: retainers --dominators $id ends with its retained size" "$last" "$want"
        dec=$(col retained < "$tmp/rd.tsv" | sort -rn | tr '\n' ' ')
        expect "$name: dominator chain of $id shrinks" "$(col retained < "$tmp/rd.tsv" | tr '\n' ' ')" "$dec"
        st=$("$G" retainers --format tsv "$d" "$id" | col status | sort -u)
        expect "$name: retainers $id: a live path" "$st" live
    done

    # objsize of strong root objects: reach_bytes >= retained.
    roots=$("$G" roots --list --format tsv "$d" | awk -F'\t' 'NR > 1 && $4 !~ /weak/ { print $1 }' | sort -u | head -40)
    "$G" objsize --format tsv "$d" $roots > "$tmp/ro.tsv"
    n=$(awk -F'\t' 'NR > 1 && $4 >= $5 && $6 == 1 { n++ } END { print n + 0 }' "$tmp/ro.tsv")
    expect "$name: objsize of root objects: live, reach_bytes >= retained" "$n" "$(echo "$roots" | wc -l | tr -d ' ')"

    # dom: folded values and the virtual root's children add up to the live bytes.
    s=$("$G" dom --format folded "$d" | awk '{ s += $NF } END { printf "%d\n", s }')
    expect "$name: dom --format folded sums to live_bytes" "$s" "$live_bytes"
    s=$("$G" dom --depth 1 --format tsv "$d" | awk -F'\t' 'NR > 1 && $1 == 1 { s += $4 } END { printf "%d\n", s }')
    expect "$name: dom --depth 1: children of <root> retain live_bytes" "$s" "$live_bytes"
    s=$("$G" dom --depth 1 --by-type --format tsv "$d" | awk -F'\t' 'NR > 1 && $1 == 1 { s += $4 } END { printf "%d\n", s }')
    expect "$name: dom --by-type --depth 1 sums to live_bytes" "$s" "$live_bytes"
    # the '(K more)' row is in tables only (csv holds data rows): rows under
    # <root> are "id size retained type", the more row "size retained (...)"
    s=$("$G" dom --depth 1 --top 3 "$d" | awk 'NR > 2 { s += /more, / ? $2 : $3 } END { printf "%d\n", s }')
    expect "$name: dom --top 3 table: shown + '(K more)' = live_bytes" "$s" "$live_bytes"
    n=$("$G" dom --depth 1 --top 3 --format csv "$d" | grep -c 'more,')
    expect "$name: dom --top 3 csv: no '(K more)' pseudo-row" "$n" "0"
    s=$("$G" dom --format tsv --depth 100000 "$d" | awk -F'\t' 'NR > 1 { s += $3; n++ } END { printf "%d %d\n", s, n - 1 }')
    expect "$name: dom full depth lists every live object once" "$s" "$live_bytes $live_objects"

    # --type: objsize's retained = stat --retained's; retainers --type's top
    # nodes count the live instances.
    for t in System.String 'System.Int32[]'; do
        a=$("$G" objsize --type "$t" --format tsv "$d" | col retained)
        b=$(awk -F'\t' -v t="$t" '$4 == t { print $3 }' "$tmp/st.tsv")
        expect "$name: objsize --type $t retained = stat --retained" "$a" "$b"
        a=$("$G" retainers --type "$t" --format tsv "$d" | awk -F'\t' 'NR > 1 && $1 == 0 { s += $2 } END { printf "%d\n", s }')
        b=$("$G" stat --live --format tsv "$d" | awk -F'\t' -v t="$t" '$3 == t { print $1 }')
        expect "$name: retainers --type $t: paths = live instances" "$a" "$b"
    done

    # json parses back and has the tsv's rows (json_check --rows prints a
    # report's json rows as tsv).
    for cmd in "top" "dom --depth 2" "dom --by-type" "objsize $ids" "objsize --stat $ids" \
               "objsize --type System.*" "retainers $(echo "$ids" | cut -d' ' -f1-2)" \
               "retainers --all $(echo "$ids" | cut -d' ' -f1)" "retainers --dominators $(echo "$ids" | cut -d' ' -f1)" \
               "retainers --type System.String" "stat --retained"; do
        # The dump goes first: IDs follow it.
        # shellcheck disable=SC2086
        set -- $cmd
        sub=$1
        shift
        "$G" "$sub" --format json "$d" "$@" > "$tmp/o.json"
        "$G" "$sub" --format tsv "$d" "$@" > "$tmp/o.tsv"
        # json rows may add keys tsv has not (merged paths' field, root_kind,
        # holder: docs/schemas.md): only the tsv's columns are compared.
        if "$JSON_CHECK" --rows "$tmp/o.json" > "$tmp/o.all" &&
            awk -F'\t' 'NR == FNR { if (FNR == 1) for (i = 1; i <= NF; i++) keep[$i] = 1; next }
                FNR == 1 { for (i = 1; i <= NF; i++) k[i] = ($i in keep) }
                { s = ""; n = 0; for (i = 1; i <= NF; i++) if (k[i]) s = s (n++ ? "\t" : "") $i; print s }' \
                "$tmp/o.tsv" "$tmp/o.all" > "$tmp/o.rows" && cmp -s "$tmp/o.rows" "$tmp/o.tsv"
        then ok "$name: $cmd: json parses and matches tsv"; else bad "$name: $cmd: json vs tsv"; fi
    done
}

"$GENDUMP" --objects 20000 --seed 7 -o "$tmp/a.gclog" 2> /dev/null
check_dump "$tmp/a.gclog" seed7
"$GENDUMP" --objects 5000 --seed 11 --refs-per-object 4 -o "$tmp/b.gclog" 2> /dev/null
check_dump "$tmp/b.gclog" seed11

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
