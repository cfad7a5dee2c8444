#!/bin/sh
# The same heap as a Dart heap snapshot and as a .gclog (testdata/dart/twin.*,
# written by tests/tools/make_dart_fixtures.c from one description in
# tests/support/dart_twin.c) must give the same numbers from every command.
#   sh test_dart_vs_gclog.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
#
# Ids: the Dart reader prints ids in decimal, the .gclog reader in hex. The
# twin's .gclog therefore gives Dart object N the id whose hex digits spell N
# in decimal (object 23 is .gclog id 0x23), so both files print every id as
# the same text and take the same ID arguments, and id order is the same
# (the spelling is monotonic). No id is rewritten here: outputs are compared
# as they are, apart from what the modes below blank.
#
# Each check below is "MODE COMMAND ARGS...": in ARGS, @ is the dump under
# test (the snapshot, then the .gclog) and % is the other one (for diff).
# Stdout, stderr (with the dump's path replaced by @) and the exit status are
# compared. Modes:
#   =  identical
#   l  identical after removing what only the snapshot has: root labels
#      ("  (Root)", "  (Read-Only Pages)", "  (isolate main: .config)") and
#      field labels ("-> .next 11" becomes "-> 11"); .gclog has neither
#   j  JSON: identical after removing the fields that name the file or its
#      format ("file", "format"; diff's "base", "new", "base_format",
#      "new_format") and emptying every "label" and "field" (the labels of
#      mode l)
#   t  TSV: identical after emptying the columns headed "field" and "label"
#   m  merged paths (retainers --type): identical without the holders' and
#      fields' words (the .gclog twin names neither)
#   e  identical, and the command is expected to fail with status 2 (the
#      same message for both files)
#   i  `info`: only the lines of the keys in INFO_KEYS (the format-specific
#      metadata differs: isolates, header sizes, version)
# What is not compared: `roots` and `retainers` without l/j (they print the
# labels), and `info`'s metadata keys.
set -u
case $1 in
/*) bin=$1 ;;
*) bin=$(pwd)/$1 ;;
esac
data=$2
work=$(cd "${3:-${TMPDIR:-/tmp}}" && pwd) || exit 1
tmp=$(mktemp -d "$work/dart_vs_gclog.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

dart=dart/twin.dartheap
gclog=dart/twin.gclog
INFO_KEYS='domain objects bytes types declared_types references roots strong_roots weak_roots
live_objects live_bytes unreachable_objects unreachable_bytes dangling_references
objects_of_undeclared_types undeclared_types roots_on_absent_objects duplicate_objects
duplicate_types undeclared_static_containers missing_end_record end_record_mismatch sampled'

cd "$data" || exit 1
passed=0
failed=0

# run DUMP ARGS...: runs the program with @ (DUMP) and % (the other dump)
# substituted; stdout to $tmp/out, stderr to $tmp/err, status to $tmp/status.
run() {
    dump=$1
    shift
    if [ "$dump" = "$dart" ]; then other=$gclog; else other=$dart; fi
    set -f
    args=
    for a in "$@"; do
        case $a in
        @) a=$dump ;;
        %) a=$other ;;
        esac
        args="$args $a"
    done
    # shellcheck disable=SC2086
    "$bin" $args > "$tmp/out" 2> "$tmp/err"
    echo $? > "$tmp/status"
    set +f
}

normalise() {
    case $1 in
    l)
        sed 's/  (Root)$//; s/  (Read-Only Pages)$//; s/  (isolate [^)]*)$//
             s/-> \.[^ ]* /-> /' "$tmp/out"
        ;;
    m)
        sed 's/  (\([a-z]*\) root [^)]*)$/  (\1 root)/; s/  \.[^ ]*$//; s/  \[\]$//' "$tmp/out"
        ;;
    j)
        sed 's/"file":"[^"]*",//; s/"format":"[^"]*",//
             s/"base":"[^"]*",//; s/"new":"[^"]*",//
             s/"base_format":"[^"]*",//; s/"new_format":"[^"]*",//
             s/"label":"[^"]*"/"label":""/g; s/"field":"[^"]*"/"field":""/g' "$tmp/out"
        ;;
    t)
        awk -F '\t' 'BEGIN { OFS = "\t" }
            NR == 1 { for (i = 1; i <= NF; i++) if ($i == "field" || $i == "label") blank[i] = 1 }
            NR > 1 { for (i in blank) $i = "" }
            { print }' "$tmp/out"
        ;;
    i)
        for k in $INFO_KEYS; do
            grep "^$k " "$tmp/out"
        done
        ;;
    *) cat "$tmp/out" ;;
    esac
    echo "--- stderr"
    # The dump under test is always named @ in stderr (the other one as %).
    sed "s|$dump|@|g; s|$other|%|g" "$tmp/err"
    echo "--- status"
    cat "$tmp/status"
}

check() {
    mode=$1
    shift
    run "$dart" "$@"
    if [ "$(cat "$tmp/status")" = 2 ] && [ "$mode" != e ]; then
        failed=$((failed + 1))
        echo "FAIL: gcheap $* with @ = $dart: exit status 2 (a usage or input error"
        echo "      compares nothing: fix the check's arguments)"
        return
    fi
    if [ "$mode" = e ] && [ "$(cat "$tmp/status")" != 2 ]; then
        failed=$((failed + 1))
        echo "FAIL: gcheap $* with @ = $dart: exit status $(cat "$tmp/status"), expected 2"
        return
    fi
    normalise "$mode" > "$tmp/a"
    run "$gclog" "$@"
    normalise "$mode" > "$tmp/b"
    if cmp -s "$tmp/a" "$tmp/b"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: gcheap $* (@ = $dart vs $gclog; - dart, + gclog):"
        diff -u "$tmp/a" "$tmp/b" | sed '1,2d'
    fi
}

while read -r mode line; do
    case $mode in
    '' | '//') continue ;;
    esac
    set -f
    # shellcheck disable=SC2086
    set -- $line
    set +f
    check "$mode" "$@"
done << 'EOF2'
// stat
= stat @
= stat --live @
= stat --retained @
= stat --retained --sort retained @
= stat --sort count @
= stat --sort name --format tsv @
= stat --top 3 --format csv @
= stat --short-names @
j stat --live --format json @
j stat --retained --format json @
// info
i info @
i info --include-weak @
// roots
= roots --summary @
= roots --summary --format csv @
j roots --summary --format json @
l roots @
l roots --sort bytes @
j roots --format json @
// top, dom
= top @
= top --top 5 @
= top --short-names @
j top --format json @
= dom @
= dom --depth 10 @
= dom @ 4
= dom @ 10
= dom @ 20
= dom --short-names @
= dom --by-type @
= dom --by-type --format csv @
= dom --format folded @
= dom --format folded --short-names @
= dom --format folded @ 12
j dom --format json @
// objsize: the cycle (5), the diamond's top (10), a static-only object (20),
// a dead one (27), the Root's object (4), an unknown id (99)
= objsize @ 4
= objsize @ 5 10 20
= objsize @ 27
= objsize @ 11 18 26
e objsize @ 99
= objsize --type Node* @
= objsize --type _OneByteString* @
= objsize --type * @
= objsize --short-names --type _List @
j objsize --format json @ 4 10 27
// retainers: through the diamond (11), a shared object (18), the private
// field (19), a static-only chain (23), the read-only root (25), the external
// one (26), dead (30), the cycle (5, 7)
l retainers @ 11
l retainers @ 18 19 23
l retainers @ 25 26 30
l retainers @ 5 7
l retainers --all @ 11 12 18
l retainers --dominators @ 11 16 23
m retainers --type _Mint* @
m retainers --type Node* @
m retainers --short-names --type _OneByteString @
j retainers --format json @ 11 18 30
j retainers --all --format json @ 12
t retainers --format tsv @ 16
t retainers --all --format tsv @ 12
// diff: each against the other (must be all "same": see the check below)
= diff % @
= diff @ %
= diff --live % @
= diff --retained % @
= diff --fail-on-growth 0 --fail-on-count-growth 0 % @
= diff --fail-on-type *=+0:+0 @ %
j diff --format json % @
// check
= check @
= check --live @
= check --max-bytes 752 --max-objects 28 @
= check --max-bytes 751 --max-objects 27 @
= check --live --max-bytes 584 --max-objects 23 @
= check --max-type _List*=2 --max-type Node*=5:120 @
= check --max-type-total _*=15:400 @
= check --short-names --max-type _OneByteString=6 @
j check --max-bytes 700 --format json @
EOF2

# Sanity checks that the fixtures are what the checks assume: the two dumps
# must not both fail (an error in both would compare equal), and diff must
# find every type the same (equal diff tables could both show changes).
run "$dart" stat @
if [ "$(cat "$tmp/status")" = 0 ] && grep -q '^   28    752  total (12 types)$' "$tmp/out"; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
    echo "FAIL: gcheap stat $dart does not show 28 objects, 752 bytes, 12 types"
fi
for dump in "$dart" "$gclog"; do
    run "$dump" diff --retained --format tsv % @
    if [ "$(cat "$tmp/status")" = 0 ] && [ "$(wc -l < "$tmp/out")" -eq 13 ] &&
        [ "$(sed 1d "$tmp/out" | grep -vc '	same	[^	]*$')" -eq 0 ] && [ ! -s "$tmp/err" ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: gcheap diff of the other file against $dump shows a change:"
        cat "$tmp/out" "$tmp/err"
    fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
