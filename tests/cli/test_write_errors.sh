#!/bin/sh
# Output errors keep their reason (issue 20 finding 9): a full disk, a closed
# standard output and a closed pipe each name errno's text.
#   sh tests/cli/test_write_errors.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -u
G=$1 DATA=$2
GENDUMP=$(dirname "$3")/gendump
passed=0 failed=0
check() { # DESC GOT_STDERR EXPECTED_SUBSTRING
    case $2 in *"$3"*) passed=$((passed + 1)); echo "ok   - $1" ;;
    *) failed=$((failed + 1)); echo "FAIL - $1: got '$2'" ;; esac
}
if [ -w /dev/full ]; then
    err=$("$G" stat "$DATA/basic.gclog" 2>&1 > /dev/full); rc=$?
    check "ENOSPC named (exit $rc)" "$err" "gcheap: error writing output: No space left on device"
    [ $rc -eq 2 ] || { failed=$((failed + 1)); echo "FAIL - exit $rc on /dev/full"; }
else
    echo "skip - no /dev/full"
fi
err=$("$G" stat "$DATA/basic.gclog" 2>&1 >&-)
check "EBADF named" "$err" "gcheap: error writing output: Bad file descriptor"
if [ -x "$GENDUMP" ]; then
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_write.XXXXXX") || exit 1
    trap 'rm -rf "$tmp"' EXIT
    "$GENDUMP" --objects 20000 --seed 1 -o "$tmp/g.gclog" 2> /dev/null
    # SIGPIPE ignored (as under many CI runners): the write fails with EPIPE
    err=$( (trap '' PIPE; "$G" objects --format tsv "$tmp/g.gclog" 2> "$tmp/err" | head -c 1 > /dev/null); cat "$tmp/err")
    check "EPIPE named" "$err" "gcheap: error writing output: Broken pipe"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
