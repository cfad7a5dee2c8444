#!/bin/sh
# `gcheap objects` and `gcheap refs` against an oracle computed from the
# .gclog text itself (one awk run per dump: object records, a BFS from the
# strong roots for live and distance, every reference out and in), on
# testdata/ and on generated dumps (bench/gendump.c); and the shell pipeline
# objects -> refs -> retainers on every dump, .gcdump included.
#
#   sh tests/cli/test_explore.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -uf
if [ $# -lt 3 ]; then
    echo "usage: sh $0 GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR" >&2
    exit 2
fi
G=$1 DATA=$2
GENDUMP=${GENDUMP:-$(dirname "$3")/gendump}
CORPUS=${GCHEAP_CORPUS_DIR:-$DATA/../../shared/corpus}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_explore.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   - $1"; }
bad() { failed=$((failed + 1)); echo "FAIL - $1"; }
same() { # DESC FILE_GOT FILE_WANT
    if cmp -s "$2" "$3"; then ok "$1"; else bad "$1"; diff "$3" "$2" | head -20; fi
}

# The oracle: writes $tmp/want_objects (id size live distance type) and
# $tmp/want_refs (object direction field id size live type), both as tsv rows.
# A single-section .gclog without anomalies: hex fields, first record of an
# id wins, references to 0 or to absent ids dropped, weak roots (flag 2) not
# counted.
oracle() {
    rm -f "$tmp/want_objects" "$tmp/want_refs"
    awk -F' ' -v objs="$tmp/want_objects" -v refs="$tmp/want_refs" '
    function hex(s,    i, v, c) {
        v = 0; s = tolower(s)
        for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
        return v
    }
    NR == FNR {
        if ($1 == "t" && !(($2) in tname)) { n = $0; sub(/^t [^ ]+ /, "", n); tname[$2] = n }
        if ($1 == "o" && !(($2) in size)) { size[$2] = hex($4); type[$2] = $3; order[++nobj] = $2 }
        next
    }
    $1 == "o" && !(($2) in seen) {
        seen[$2] = 1
        for (i = 5; i <= NF; i++) if (($i) in size) { nout[$2]++; out[$2, nout[$2]] = $i }
    }
    $1 == "r" && (($2) in size) && int(hex($4) / 2) % 2 == 0 && !(($2) in dist) {
        dist[$2] = 0; queue[++tail] = $2
    }
    END {
        for (i = 1; i <= nobj; i++) if (!((type[order[i]]) in tname)) tname[type[order[i]]] = "<unknown type " type[order[i]] ">"
        for (head = 1; head <= tail; head++) {
            s = queue[head]
            for (k = 1; k <= nout[s]; k++) { t = out[s, k]; if (!(t in dist)) { dist[t] = dist[s] + 1; queue[++tail] = t } }
        }
        for (i = 1; i <= nobj; i++) {
            o = order[i]; live = (o in dist) ? "yes" : "no"
            printf "%s\t%d\t%s\t%s\t%s\n", o, size[o], live, (o in dist) ? dist[o] : "", tname[type[o]] > objs
            for (k = 1; k <= nout[o]; k++) {
                t = out[o, k]
                printf "%s\tout\t\t%s\t%d\t%s\t%s\n", o, t, size[t], (t in dist) ? "yes" : "no", tname[type[t]] > refs
                printf "%s\tin\t\t%s\t%d\t%s\t%s\n", t, o, size[o], live, tname[type[o]] > refs
            }
        }
    }' "$1" "$1"
    sort -o "$tmp/want_objects" "$tmp/want_objects"
    touch "$tmp/want_objects" "$tmp/want_refs"
    sort -o "$tmp/want_refs" "$tmp/want_refs"
}

check_gclog() { # NAME FILE
    oracle "$2"
    # tsv rows end with the section's domain (one schema on every dump): cut it
    "$G" objects --format tsv -q "$2" | tail -n +2 | cut -f1-5 | sort > "$tmp/got_objects"
    same "$1: objects (id, size, live, distance, type) = oracle" "$tmp/got_objects" "$tmp/want_objects"
    cut -f1 "$tmp/want_objects" > "$tmp/ids"
    "$G" refs --format tsv -q "$2" - < "$tmp/ids" | tail -n +2 | cut -f1-7 | sort > "$tmp/got_refs"
    same "$1: refs of every object (out and in) = oracle" "$tmp/got_refs" "$tmp/want_refs"
    # --live / --dead split the objects; --min-size/--max-size filter by size
    l=$("$G" objects --format tsv -q --live "$2" | tail -n +2 | wc -l)
    d=$("$G" objects --format tsv -q --dead "$2" | tail -n +2 | wc -l)
    wl=$(awk -F'\t' '$3 == "yes"' "$tmp/want_objects" | wc -l)
    wd=$(awk -F'\t' '$3 == "no"' "$tmp/want_objects" | wc -l)
    if [ "$l" -eq "$wl" ] && [ "$d" -eq "$wd" ]; then ok "$1: --live $l, --dead $d"; else bad "$1: --live $l/$wl --dead $d/$wd"; fi
    g=$("$G" objects --format tsv -q --min-size 32 --max-size 64 "$2" | tail -n +2 | cut -f1 | sort)
    w=$(awk -F'\t' '$2 >= 32 && $2 <= 64 { print $1 }' "$tmp/want_objects" | sort)
    if [ "$g" = "$w" ]; then ok "$1: --min-size 32 --max-size 64"; else bad "$1: size filter"; fi
}

check_gclog basic "$DATA/basic.gclog"
check_gclog seed "$DATA/seed.gclog"
if [ -x "$GENDUMP" ]; then
    "$GENDUMP" --objects 3000 --seed 5 -o "$tmp/g1.gclog" 2> /dev/null
    check_gclog gendump-3000 "$tmp/g1.gclog"
    "$GENDUMP" --objects 2000 --seed 9 --refs-per-object 4 -o "$tmp/g2.gclog" 2> /dev/null
    check_gclog gendump-2000x4 "$tmp/g2.gclog"
else
    echo "skip - gendump not built"
fi

# The pipeline a person types: stat -> objects --type -> refs -> retainers,
# and the counts of refs agree with each other (every out row is an in row
# of its target) on every dump, the real .gcdump corpus included.
pipeline() { # NAME FILE
    t=$("$G" stat --format tsv -q --top 1 "$2" | tail -n +2 | cut -f3 | head -1)
    "$G" objects --type "$t" --format tsv -q "$2" > "$tmp/objs" || { bad "$1: objects --type"; return; }
    n=$("$G" stat --format tsv -q "$2" | awk -F'\t' -v t="$t" '$3 == t { s += $1 } END { print s + 0 }')
    got=$(tail -n +2 "$tmp/objs" | wc -l)
    if [ "$got" -eq "$n" ]; then ok "$1: objects --type '$t' lists stat's $n"; else bad "$1: objects --type '$t': $got rows, stat says $n"; fi
    cut -f1 "$tmp/objs" | head -50 | "$G" refs --format tsv -q "$2" - > "$tmp/refs" || { bad "$1: refs -"; return; }
    ok "$1: objects | cut -f1 | refs -"
    id=$(sed -n 2p "$tmp/objs" | cut -f1)
    if "$G" retainers -q "$2" "$id" > /dev/null; then ok "$1: retainers $id"; else bad "$1: retainers $id"; fi
    # every reference, both directions: out rows (object -> id) = in rows (id <- object)
    "$G" objects --format tsv -q "$2" | tail -n +2 | cut -f1 > "$tmp/all"
    "$G" refs --format tsv -q "$2" - < "$tmp/all" > "$tmp/allrefs"
    awk -F'\t' '$2 == "out" { print $1 "\t" $4 }' "$tmp/allrefs" | sort > "$tmp/o"
    awk -F'\t' '$2 == "in" { print $4 "\t" $1 }' "$tmp/allrefs" | sort > "$tmp/i"
    same "$1: every out reference is an in reference of its target" "$tmp/o" "$tmp/i"
    refs=$("$G" info --format tsv -q "$2" | awk -F'\t' '$1 == "references" { print $2 }')
    if [ -n "$refs" ] && [ "$(wc -l < "$tmp/o")" -eq "$refs" ]; then ok "$1: refs lists info's $refs references"
    else bad "$1: refs lists $(wc -l < "$tmp/o"), info says '$refs'"; fi
}

pipeline basic "$DATA/basic.gclog"
[ -x "$GENDUMP" ] && pipeline gendump "$tmp/g1.gclog"
found=0
for f in $(ls "$CORPUS"/gcdump/ 2> /dev/null | grep '[.]gcdump$'); do
    f=$CORPUS/gcdump/$f
    found=1
    pipeline "$(basename "$f")" "$f"
done
[ $found -eq 1 ] || echo "skip - no .gcdump corpus at $CORPUS (set GCHEAP_CORPUS_DIR)"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
