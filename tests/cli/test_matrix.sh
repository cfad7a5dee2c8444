#!/bin/sh
# Every command, in every output format, on every dump in testdata/ (all
# formats, hostile files included): the exit status is 0, 1 or 2, a failure
# says why on stderr, stderr never holds a sanitizer report, json parses
# (every json output is kept and checked by one json_check run at the end:
# no process per row) and tsv/csv start with their header. Under the ASan build
# this is a crash sweep over the whole command surface.
#   sh test_matrix.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -u
bin=$1
data=$2
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
json_check=$(cd "$3" && pwd)/json_check
[ -x "$json_check" ] || { echo "FAIL: $json_check not built"; exit 1; }
mkdir "$tmp/json"
njson=0

bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# testdata/v8 has an entry of its own in the fast label (script.test_matrix_v8:
# this script given testdata/v8), so the slow sweep leaves it out.
dumps=$(find "$data" -type f ! -path "$data/v8/*" \( -name '*.heapsnapshot*' -o -name '*.gclog' -o -name '*.gcdump' \
    -o -name '*.dartheap' -o -name '*.hprof' -o -path '*/ruby/*.json*' -o -path '*/jsc/*.json' \) | sort)
run() { # label, then the command's arguments
    label=$1
    shift
    "$bin" "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    case $rc in
    0 | 1 | 2) ;;
    *) bad "$label: exit status $rc"; return ;;
    esac
    if grep -q "AddressSanitizer\|LeakSanitizer\|runtime error:" "$tmp/err"; then
        bad "$label: sanitizer report"
        return
    fi
    if [ "$rc" -eq 2 ] && ! grep -q "^gcheap: " "$tmp/err"; then
        bad "$label: exit 2 without a 'gcheap:' message"
        return
    fi
    pass=$((pass + 1))
}

for f in $dumps; do
    name=${f#"$data"/}
    echo "== $name" # the last such line names the dump a timed-out run was on
    for fmt in table tsv csv json; do
        for cmd in info stat "stat --module" "stat --live" "stat --retained" roots top "dom --depth 2" "dom --by-type" \
            "objsize --type *" "retainers --type *" "check --max-objects 1" "diff $f"; do
            # shellcheck disable=SC2086
            run "$cmd --format $fmt $name" $cmd --format "$fmt" -q "$f"
            [ "$rc" -eq 0 ] || continue
            case $fmt in
            json)
                njson=$((njson + 1))
                cp "$tmp/out" "$tmp/json/$njson.json"
                printf '%s\t%s\n' "$njson" "$cmd --format json $name" >> "$tmp/json/labels" ;;
            tsv | csv)
                [ -s "$tmp/out" ] || bad "$cmd --format $fmt $name: no header" ;;
            esac
        done
    done
    run "dom --format folded $name" dom --format folded -q "$f"
done
# One validator run over every json output; a bad one is named by its label.
if [ "$njson" -gt 0 ]; then
    (cd "$tmp/json" && "$json_check" $(seq 1 "$njson" | sed 's/$/.json/')) 2> "$tmp/json_errors"
    while IFS= read -r line; do
        n=${line%%.json:*}
        label=$(awk -F'\t' -v n="$n" '$1 == n { print $2 }' "$tmp/json/labels")
        bad "$label: output is not json (${line#*: })"
    done < "$tmp/json_errors"
    pass=$((pass + njson - $(wc -l < "$tmp/json_errors")))
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
