#!/bin/sh
# The same heap as a .gcdump and as a .gclog (testdata/gcdump/twin.*, written
# by tests/tools/make_gcdump_fixtures.c from one description) must give the
# same answers from every command.
#   sh test_gcdump_vs_gclog.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
#
# Each check below is "MODE COMMAND ARGS...": in ARGS, @ is the dump under
# test (the .gcdump, then the .gclog) and % is always the .gclog (for diff).
# A command that `gcheap --help` does not list is skipped, so checks for
# commands still being written can sit here already. Modes:
#   =  stdout and exit status identical
#   j  the same, after removing the "file" and "format" fields of JSON output
#      and emptying every "container" and "label" (root names differ: the
#      .gcdump's "[static var App.Cache.instance]" is a static root with
#      container App.Cache in the .gclog)
#   i  `info`: only the lines of the keys in INFO_KEYS
#   #  exit status and number of stdout lines only: for table output that
#      names roots
set -u
case $1 in
/*) bin=$1 ;;
*) bin=$(pwd)/$1 ;;
esac
data=$2
work=$(cd "${3:-${TMPDIR:-/tmp}}" && pwd) || exit 1
tmp=$(mktemp -d "$work/gcdump_vs_gclog.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

gcdump=gcdump/twin.gcdump
gclog=gcdump/twin.gclog
INFO_KEYS='objects bytes types references roots strong_roots weak_roots live_objects live_bytes
unreachable_objects unreachable_bytes dangling_references roots_on_absent_objects'

cd "$data" || exit 1
"$bin" --help > "$tmp/help" 2>&1
passed=0
failed=0
skipped=0

# run DUMP ARGS...: runs the program with @ and % substituted; stdout to
# $tmp/out, the exit status to $tmp/status.
run() {
    dump=$1
    shift
    set -f
    args=
    for a in "$@"; do
        case $a in
        @) a=$dump ;;
        %) a=$gclog ;;
        esac
        args="$args $a"
    done
    # shellcheck disable=SC2086
    "$bin" $args > "$tmp/out" 2> /dev/null
    echo $? > "$tmp/status"
    set +f
}

normalise() {
    mode=$1
    case $mode in
    j)
        sed 's/"file":"[^"]*",//; s/"format":"[^"]*",//
             s/"container":"[^"]*"/"container":""/g; s/"label":"[^"]*"/"label":""/g' "$tmp/out"
        ;;
    i)
        for k in $INFO_KEYS; do
            grep "^$k " "$tmp/out"
        done
        ;;
    '#') wc -l < "$tmp/out" ;;
    *) cat "$tmp/out" ;;
    esac
    cat "$tmp/status"
}

check() {
    mode=$1
    shift
    cmd=$1
    if ! grep -q "^  $cmd " "$tmp/help"; then
        skipped=$((skipped + 1))
        return
    fi
    run "$gcdump" "$@"
    if [ "$(cat "$tmp/status")" = 2 ]; then
        failed=$((failed + 1))
        echo "FAIL: gcheap $* with @ = $gcdump: exit status 2 (a usage or input error"
        echo "      compares nothing: fix the check's arguments)"
        return
    fi
    normalise "$mode" > "$tmp/a"
    run "$gclog" "$@"
    normalise "$mode" > "$tmp/b"
    if cmp -s "$tmp/a" "$tmp/b"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: gcheap $* (@ = $gcdump vs $gclog; - gcdump, + gclog):"
        diff -u "$tmp/a" "$tmp/b" | sed '1,2d'
    fi
}

while read -r mode line; do
    case $mode in
    '' | '//') continue ;;
    esac
    # shellcheck disable=SC2086
    set -f
    set -- $line
    set +f
    check "$mode" "$@"
done << 'EOF'
= stat @
= stat --live @
= stat --live --include-weak @
= stat --sort count @
= stat --sort name --format tsv @
= stat --top 3 --format csv @
j stat --live --format json @
i info @
i info --include-weak @
= roots --summary @
= roots --summary --format csv @
j roots --summary --format json @
# roots @
j roots --format json @
j roots --sort bytes --format json @
= top @
= top --top 5 @
= dom @
= dom @ 2c61000
= objsize @ 2c61000
= objsize @ 2c61028 2c61084
= objsize @ 2c61154
# retainers @ 2c61028
# retainers @ 3c61000
# retainers @ 2c61174
j retainers --format json @ 2c61028
j dom --format json @
j top --format json @
= diff % @
= diff @ %
= check @
EOF

# A sanity check that the fixtures are what the checks assume: the two dumps
# must not both fail (an error in both would compare equal).
run "$gcdump" stat @
if [ "$(cat "$tmp/status")" = 0 ] && grep -q '^   16  21440  total (8 types)$' "$tmp/out"; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
    echo "FAIL: gcheap stat $gcdump does not show 16 objects, 21440 bytes, 8 types"
fi

echo "$skipped skipped (commands not in this build)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
