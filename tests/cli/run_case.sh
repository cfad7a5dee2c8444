#!/bin/sh
# Runs one command-level golden case: sh run_case.sh GCHEAP_BIN CASEFILE TESTDATA_DIR
#
# A case file holds, in this order:
#   # comment lines (anywhere before the first '---' line)
#   args: ARGUMENTS      the program's arguments, split like a shell would
#                        (quotes work); relative paths are resolved from
#                        TESTDATA_DIR, the working directory of the run
#   stdin: FILE          optional: standard input (default /dev/null)
#   status: N            the expected exit status
#   --- stdout           the exact expected standard output, up to
#   --- stderr           the optional exact expected standard error (absent:
#                        standard error must be empty)
# On a mismatch it prints a unified diff (or the status difference) and exits 1.
set -u
if [ $# -ne 3 ]; then
    echo "usage: sh run_case.sh GCHEAP_BIN CASEFILE TESTDATA_DIR" >&2
    exit 2
fi
bin=$1 case=$2 data=$3
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
case $case in /*) ;; *) case=$(pwd)/$case ;; esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcheap-case.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT HUP INT TERM

awk -v out="$tmp" '
    BEGIN { sec = "head"; printf "" > (out "/head"); printf "" > (out "/want.out") }
    sec == "head" && /^--- stdout$/ { sec = "out"; next }
    sec != "err" && /^--- stderr$/ { sec = "err"; printf "" > (out "/want.err"); next }
    sec == "head" { print > (out "/head"); next }
    sec == "out" { print > (out "/want.out"); next }
    sec == "err" { print > (out "/want.err"); next }
' "$case" || exit 2
[ -f "$tmp/want.err" ] || : > "$tmp/want.err"

args= stdin=/dev/null status=
have_args=0
while IFS= read -r line; do
    case $line in
    '#'* | '') ;;
    'args:'*) args=${line#args:}; have_args=1 ;;
    'stdin:'*) stdin=$(printf '%s' "${line#stdin:}" | sed 's/^ *//; s/ *$//') ;;
    'status:'*) status=$(printf '%s' "${line#status:}" | tr -d ' ') ;;
    *) echo "$case: unknown header line: $line" >&2; exit 2 ;;
    esac
done < "$tmp/head"
if [ $have_args -eq 0 ] || [ -z "$status" ]; then
    echo "$case: needs 'args:' and 'status:' lines before '--- stdout'" >&2
    exit 2
fi

cd "$data" || exit 2
eval "set -- $args"
"$bin" "$@" < "$stdin" > "$tmp/got.out" 2> "$tmp/got.err"
got=$?

fail=0
if [ "$got" != "$status" ]; then
    echo "exit status: expected $status, got $got"
    fail=1
fi
for s in out err; do
    if ! cmp -s "$tmp/want.$s" "$tmp/got.$s"; then
        [ $s = out ] && name=stdout || name=stderr
        echo "$name differs:"
        diff -u "$tmp/want.$s" "$tmp/got.$s" | sed "1s|.*|--- expected $name|; 2s|.*|+++ actual $name|"
        fail=1
    fi
done
[ $fail -eq 0 ] || echo "FAILED: $case (args:$args)"
exit $fail
