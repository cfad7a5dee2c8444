#!/bin/sh
# Reading a .gclog dump from a pipe: standard input through a pipe (the
# reader thread, the enlarged pipe buffer, reads cut anywhere, a writer that
# pauses) gives the same reports and the same errors, with the same line
# numbers, as reading the file.
#
#   sh test_pipe_input.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
#
# Uses BUILD_TESTS_DIR/../gendump (or $GENDUMP) for a dump of several read
# blocks (8 MiB each); without it, only the small test dumps are checked.
set -u
bin=$1
data=$2
GENDUMP=${GENDUMP:-$(dirname "$3")/gendump}
pass=0
fail=0
check() {
    if eval "$2"; then pass=$((pass + 1)); else echo "FAIL: $1"; fail=$((fail + 1)); fi
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_pipe_input.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# same_as_file NAME FILE COMMAND...: the command's output and status on FILE
# and on FILE through a pipe (whole, and with a pause mid-stream) agree.
same_as_file() {
    name=$1 f=$2
    shift 2
    "$bin" "$@" "$f" > "$tmp/a" 2> "$tmp/ea"
    sa=$?
    cat "$f" | "$bin" "$@" - > "$tmp/b" 2> "$tmp/eb"
    sb=$?
    half=$(( $(wc -c < "$f") / 2 + 3 ))
    { head -c "$half" "$f"; sleep 0.2; tail -c "+$((half + 1))" "$f"; } | "$bin" "$@" - > "$tmp/c" 2> "$tmp/ec"
    sc=$?
    "$bin" "$@" - < "$f" > "$tmp/d" 2> "$tmp/ed"
    sd=$?
    for e in ea eb ec ed; do
        sed "s|$f|F|; s|<stdin>|F|" "$tmp/$e" > "$tmp/$e.n"
    done
    check "$name: status through a pipe" '[ $sa -eq $sb ] && [ $sa -eq $sc ] && [ $sa -eq $sd ]'
    check "$name: report through a pipe" 'cmp -s "$tmp/a" "$tmp/b" && cmp -s "$tmp/a" "$tmp/c" && cmp -s "$tmp/a" "$tmp/d"'
    check "$name: messages through a pipe" 'cmp -s "$tmp/ea.n" "$tmp/eb.n" && cmp -s "$tmp/ea.n" "$tmp/ec.n" && cmp -s "$tmp/ea.n" "$tmp/ed.n"'
}

same_as_file "basic stat" "$data/basic.gclog" stat
same_as_file "sections info" "$data/sections.gclog" info

if [ -x "$GENDUMP" ]; then
    "$GENDUMP" --objects 600000 --sections 2 --seed 3 -o "$tmp/big.gclog" 2> /dev/null
    check "the dump spans several read blocks" '[ "$(wc -c < "$tmp/big.gclog")" -gt 20000000 ]'
    same_as_file "big stat" "$tmp/big.gclog" stat
    same_as_file "big info" "$tmp/big.gclog" info
    # An error deep in the dump (the line cut by the insertion), in the
    # second read block: same line number from a pipe.
    head -c 15000000 "$tmp/big.gclog" > "$tmp/bad.gclog"
    printf '\no 12 1 zz\n' >> "$tmp/bad.gclog"
    tail -c +15000001 "$tmp/big.gclog" >> "$tmp/bad.gclog"
    same_as_file "error after 15 MB, stat" "$tmp/bad.gclog" stat
    same_as_file "error after 15 MB, info" "$tmp/bad.gclog" info
    cut_line=$(( $(grep -n '^o 12 1 zz$' "$tmp/bad.gclog" | cut -d: -f1) - 1 ))
    # (the cut line, or the inserted one when the cut left a valid line)
    check "the error names its line" 'grep -Eq "^gcheap: F:($cut_line|$((cut_line + 1))): .o. record: " "$tmp/ea.n"'
    # A dump cut mid-line: the last line has no newline.
    head -c 17000001 "$tmp/big.gclog" > "$tmp/cut.gclog"
    same_as_file "cut dump" "$tmp/cut.gclog" stat
else
    echo "SKIP: $GENDUMP not built: big dumps not checked"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
