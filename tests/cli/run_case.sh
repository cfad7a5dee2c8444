#!/bin/sh
# Runs one command-level golden case and compares everything it produces.
#
#   sh tests/cli/run_case.sh GCHEAP_BIN CASEFILE TESTDATA_DIR
#
# A case file holds:
#   args: ARGUMENTS          (after the program name; split on blanks; paths
#                             relative to TESTDATA_DIR, the working directory)
#   stdin: FILE              (optional; default /dev/null)
#   status: N                (expected exit status)
#   --- stdout               (then the exact expected standard output)
#   --- stderr               (optional; then the exact expected standard error;
#                             when absent, standard error must be empty)
# Lines before "--- stdout" starting with '#' are comments.
# GCHEAP_WRAP (environment, optional) is put before the program, e.g.
# "valgrind -q --leak-check=full --error-exitcode=99" (tests/leaks.sh).
# Prints a diff and exits 1 on any mismatch.
set -u
if [ $# -ne 3 ]; then
    echo "usage: $0 GCHEAP_BIN CASEFILE TESTDATA_DIR" >&2
    exit 2
fi
bin=$1
case_file=$2
data=$3
LC_ALL=C
export LC_ALL
case $case_file in /*) ;; *) case_file=$(pwd)/$case_file ;; esac
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcheap-case.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT HUP INT TERM

awk -v dir="$tmp" '
    BEGIN { part = "head"; has_err = 0; printf "" > (dir "/want_out") }
    part == "head" && /^#/ { next }
    part == "head" && /^args:/ { sub(/^args:[ \t]*/, ""); print > (dir "/args"); next }
    part == "head" && /^stdin:/ { sub(/^stdin:[ \t]*/, ""); print > (dir "/stdin"); next }
    part == "head" && /^status:/ { sub(/^status:[ \t]*/, ""); print > (dir "/status"); next }
    /^--- stdout$/ && part == "head" { part = "out"; next }
    /^--- stderr$/ && part != "err" { part = "err"; has_err = 1; printf "" > (dir "/want_err"); next }
    part == "out" { print > (dir "/want_out"); next }
    part == "err" { print > (dir "/want_err"); next }
    part == "head" && NF { print "run_case: unexpected line: " $0 > "/dev/stderr"; bad = 1 }
    END { if (!has_err) printf "" > (dir "/want_err"); if (part == "head") bad = 1; exit bad }
' "$case_file" || { echo "run_case: $case_file: malformed case file" >&2; exit 1; }
[ -f "$tmp/args" ] && [ -f "$tmp/status" ] || { echo "run_case: $case_file: needs args: and status:" >&2; exit 1; }

args=$(cat "$tmp/args")
want_status=$(cat "$tmp/status")
input=/dev/null
if [ -f "$tmp/stdin" ]; then
    input=$(cat "$tmp/stdin")
fi
(
    cd "$data" || exit 125
    set -f
    # shellcheck disable=SC2086 # word splitting of args is the point
    exec ${GCHEAP_WRAP:-} "$bin" $args <"$input" >"$tmp/out" 2>"$tmp/err"
)
status=$?

fail=0
if [ "$status" != "$want_status" ]; then
    echo "$case_file: exit status $status, expected $want_status"
    fail=1
fi
if ! cmp -s "$tmp/want_out" "$tmp/out"; then
    echo "$case_file: stdout differs (- expected, + actual):"
    diff -u "$tmp/want_out" "$tmp/out" | sed '1,2d'
    fail=1
fi
if ! cmp -s "$tmp/want_err" "$tmp/err"; then
    echo "$case_file: stderr differs (- expected, + actual):"
    diff -u "$tmp/want_err" "$tmp/err" | sed '1,2d'
    fail=1
fi
exit $fail
