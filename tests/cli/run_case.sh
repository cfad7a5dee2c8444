#!/bin/sh
# Runs one command-level golden case.
#   sh run_case.sh GCHEAP_BIN CASEFILE TESTDATA_DIR
# A case file holds:
#   args: ARGUMENTS          (after the program name; paths relative to TESTDATA_DIR)
#   stdin: FILE              (optional; default /dev/null)
#   status: N                (expected exit status)
#   --- stdout               (then the exact expected standard output)
#   --- stderr               (optional; absent means stderr must be empty)
# Lines starting with '#' before the first section are comments.
set -u
bin=$1
case_file=$2
data=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

: > "$tmp/exp.out"
: > "$tmp/exp.err"
awk -v dir="$tmp" '
    /^--- stdout$/ { out = dir "/exp.out"; next }
    /^--- stderr$/ { out = dir "/exp.err"; next }
    out != "" { print > out; next }
    /^#/ { next }
    /^args:/ { sub(/^args: ?/, ""); print > (dir "/args"); next }
    /^status:/ { sub(/^status: ?/, ""); print > (dir "/status"); next }
    /^stdin:/ { sub(/^stdin: ?/, ""); print > (dir "/stdin"); next }
' "$case_file"

if [ ! -f "$tmp/args" ] || [ ! -f "$tmp/status" ]; then
    echo "$case_file: needs 'args:' and 'status:' lines" >&2
    exit 1
fi
input=/dev/null
[ -f "$tmp/stdin" ] && input=$(cat "$tmp/stdin")
want_status=$(cat "$tmp/status")

cd "$data" || exit 1
eval "set -- $(cat "$tmp/args")"
"$bin" "$@" < "$input" > "$tmp/out" 2> "$tmp/err"
status=$?

fail=0
if [ "$status" != "$want_status" ]; then
    echo "exit status $status, expected $want_status"
    fail=1
fi
if ! diff -u "$tmp/exp.out" "$tmp/out" > "$tmp/diff.out"; then
    echo "stdout differs (- expected, + actual):"
    cat "$tmp/diff.out"
    fail=1
fi
if ! diff -u "$tmp/exp.err" "$tmp/err" > "$tmp/diff.err"; then
    echo "stderr differs (- expected, + actual):"
    cat "$tmp/diff.err"
    fail=1
fi
exit $fail
