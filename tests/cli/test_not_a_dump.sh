#!/bin/sh
# Input that cannot be a dump is refused from its first bytes (issue 20,
# finding 3; issue 21): `--input-format dart|gcdump` on an endless stream that
# lacks the signature ends at once (it used to read the whole input first),
# with the reader's own message about the signature; and a signature of
# another kind of file, inside gzip data or not, is named.
#
#   sh test_not_a_dump.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -u
bin=$1
data=$2
pass=0
fail=0
check() {
    if eval "$2"; then pass=$((pass + 1)); else echo "FAIL: $1"; fail=$((fail + 1)); fi
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_not_a_dump.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# An endless stream: without the early refusal this reads until memory runs
# out; `timeout` turns that into status 124.
for fmt in dart gcdump; do
    timeout 20 "$bin" stat --input-format "$fmt" - < /dev/zero > "$tmp/out" 2> "$tmp/err"
    st=$?
    check "--input-format $fmt on /dev/zero: exit 2 at once" '[ $st -eq 2 ]'
    check "--input-format $fmt on /dev/zero: nothing on stdout" '[ ! -s "$tmp/out" ]'
    check "--input-format $fmt on /dev/zero: the signature message" 'grep -q "^gcheap: <stdin>: offset 0: not a" "$tmp/err"'
done
# The same through gzip: the decompressed head is checked.
head -c 100000 /dev/zero | gzip -c > "$tmp/zeros.gz"
"$bin" stat --input-format dart "$tmp/zeros.gz" > "$tmp/out" 2> "$tmp/err"
st=$?
check "--input-format dart on gzip'd zeros: exit 2, signature" '[ $st -eq 2 ] && grep -q "dartheap" "$tmp/err"'
"$bin" stat "$tmp/zeros.gz" > "$tmp/out" 2> "$tmp/err"
st=$?
check "gzip'd zeros: binary data" '[ $st -eq 2 ] && grep -q "not a heap dump (looks like binary data)" "$tmp/err"'

# A file made by a tool of another kind, named.
python_free_zip() { printf 'PK\003\004\024\000\000\000\010\000'; head -c 100 /dev/zero; }
python_free_zip > "$tmp/a.zip"
for f in "$tmp/a.zip" "$data/notdump/archive.zip"; do
    "$bin" info "$f" > "$tmp/out" 2> "$tmp/err"
    st=$?
    check "$f: zip" '[ $st -eq 2 ] && [ ! -s "$tmp/out" ] && grep -q "looks like a zip archive" "$tmp/err"'
done
: > "$tmp/empty"
gzip -c "$tmp/empty" > "$tmp/empty.gz"
"$bin" stat "$tmp/empty.gz" > "$tmp/out" 2> "$tmp/err"
st=$?
check "empty inside gzip" '[ $st -eq 2 ] && grep -q "looks like an empty file once decompressed" "$tmp/err"'
if command -v bzip2 > /dev/null; then
    bzip2 -c "$data/basic.gclog" > "$tmp/b.bz2"
    "$bin" stat "$tmp/b.bz2" > "$tmp/out" 2> "$tmp/err"
    st=$?
    check "bzip2: named, with what to do" '[ $st -eq 2 ] && grep -q "bzip2 data: only gzip is read" "$tmp/err"'
fi
# Text that is not a .gclog is left to the .gclog reader: its message names the line.
printf 'hello world\n' > "$tmp/t.txt"
"$bin" stat "$tmp/t.txt" > "$tmp/out" 2> "$tmp/err"
check "plain text: the .gclog reader's line" 'grep -q ":1: unknown record type" "$tmp/err"'

echo "test_not_a_dump: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
