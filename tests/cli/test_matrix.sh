#!/bin/sh
# Every command, in every output format, on every dump in testdata/ (all
# formats, hostile files included): the exit status is 0, 1 or 2, a failure
# says why on stderr, stderr never holds a sanitizer report, json parses (when
# python3 is there) and tsv/csv start with their header. Under the ASan build
# this is a crash sweep over the whole command surface.
#   sh test_matrix.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -u
bin=$1
data=$2
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
have_python=0
command -v python3 > /dev/null 2>&1 && have_python=1

bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

dumps=$(find "$data" -type f \( -name '*.gclog' -o -name '*.gcdump' -o -name '*.dartheap' -o -name '*.hprof' \) | sort)
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
    for fmt in table tsv csv json; do
        for cmd in info stat "stat --live" "stat --retained" roots top "dom --depth 2" "dom --by-type" \
            "objsize --type *" "retainers --type *" "check --max-objects 1" "diff $f"; do
            # shellcheck disable=SC2086
            run "$cmd --format $fmt $name" $cmd --format "$fmt" -q "$f"
            [ "$rc" -eq 0 ] || continue
            case $fmt in
            json)
                if [ $have_python -eq 1 ] && ! python3 -c 'import json,sys; json.load(sys.stdin)' < "$tmp/out" 2> /dev/null; then
                    bad "$cmd --format json $name: output is not json"
                fi ;;
            tsv | csv)
                [ -s "$tmp/out" ] || bad "$cmd --format $fmt $name: no header" ;;
            esac
        done
    done
    run "dom --format folded $name" dom --format folded -q "$f"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
