#!/bin/sh
# Developer tool: writes testdata/cases/NAME.case from what the program prints
# now. Review the result against a hand count before committing it.
#   sh tests/cli/mkcase.sh NAME [--stdin FILE] ARGS...
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${GCHEAP:-$root/build/gcheap}
name=$1; shift
stdin=
if [ "${1:-}" = "--stdin" ]; then stdin=$2; shift 2; fi
out=$root/testdata/cases/$name.case
cd "$root/testdata"
{
    printf 'args: %s\n' "$*"
    [ -n "$stdin" ] && printf 'stdin: %s\n' "$stdin"
    if [ -n "$stdin" ]; then "$bin" "$@" < "$stdin" > /tmp/mkcase.out 2> /tmp/mkcase.err; else "$bin" "$@" < /dev/null > /tmp/mkcase.out 2> /tmp/mkcase.err; fi
    printf 'status: %s\n' "$?"
    printf -- '--- stdout\n'
    cat /tmp/mkcase.out
    if [ -s /tmp/mkcase.err ]; then printf -- '--- stderr\n'; cat /tmp/mkcase.err; fi
} > "$out"
cat "$out"
