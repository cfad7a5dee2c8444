#!/bin/sh
# `report -o PATH` never removes or replaces what it did not create (issue 36
# finding 5; docs/reliability.md, "Files gcheap writes"):
#  - a symlink, a FIFO or a device is written through in place (the link
#    stays a link, its target gets the page; a FIFO's reader gets the page);
#  - a regular file or a new path gets a temporary file in the same folder,
#    renamed over it when the page is complete;
#  - a failed write (the file size limit, `ulimit -f`, with SIGXFSZ ignored;
#    a symlink to /dev/full) removes only that temporary file: the old file,
#    the link and the device stay, and no temporary file is left behind.
#   sh tests/cli/test_report_output.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -u
G=$1 DATA=$2
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   - $1"; }
bad() { failed=$((failed + 1)); echo "FAIL - $1"; }
expect() { if eval "$2"; then ok "$1"; else bad "$1"; fi; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_report_output.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
D=$DATA/basic.gclog
"$G" report "$D" -o "$tmp/ref.html" 2> /dev/null
expect "a new path gets the page" '[ -s "$tmp/ref.html" ] && grep -q "</html>" "$tmp/ref.html"'
leftovers() { ls -A "$1" | grep -v -x -e "$2" | tr '\n' ' '; }

# A regular file: replaced whole, its mode kept, nothing else left in the folder.
mkdir "$tmp/reg" && echo old > "$tmp/reg/page.html" && chmod 640 "$tmp/reg/page.html"
"$G" report "$D" -o "$tmp/reg/page.html" 2> /dev/null
expect "a regular file gets the page" 'cmp -s "$tmp/reg/page.html" "$tmp/ref.html"'
expect "its mode stays 640" '[ "$(stat -c %a "$tmp/reg/page.html")" = 640 ]'
expect "no temporary file left" '[ -z "$(leftovers "$tmp/reg" page.html)" ]'

# A symlink: written through, still a link.
mkdir "$tmp/link" && echo old > "$tmp/link/target.html"
ln -s target.html "$tmp/link/page.html"
"$G" report "$D" -o "$tmp/link/page.html" 2> /dev/null
expect "a symlink stays a symlink" '[ -L "$tmp/link/page.html" ]'
expect "its target gets the page" 'cmp -s "$tmp/link/target.html" "$tmp/ref.html"'

# A FIFO: written through to its reader, still a FIFO.
if mkfifo "$tmp/fifo" 2> /dev/null; then
    cat "$tmp/fifo" > "$tmp/from_fifo" &
    reader=$!
    "$G" report "$D" -o "$tmp/fifo" 2> /dev/null
    wait $reader
    expect "a FIFO stays a FIFO" '[ -p "$tmp/fifo" ]'
    expect "its reader gets the page" 'cmp -s "$tmp/from_fifo" "$tmp/ref.html"'
else
    echo "skip - mkfifo failed"
fi

# A device: /dev/null stays a character device.
"$G" report "$D" -o /dev/null 2> /dev/null
expect "/dev/null written (exit 0)" '[ $? -eq 0 ]'
expect "/dev/null stays a device" '[ -c /dev/null ]'

# Failed writes: the file size limit (1 block) with SIGXFSZ ignored makes
# write() fail with EFBIG past it; the page is bigger.
mkdir "$tmp/fail" && echo old > "$tmp/fail/page.html"
ln -s page.html "$tmp/fail/link.html"
err=$( (trap '' XFSZ; ulimit -f 1; "$G" report "$D" -o "$tmp/fail/page.html") 2>&1); rc=$?
expect "a failed write exits 2 ($rc)" '[ $rc -eq 2 ]'
case $err in *"cannot write"*|*"error writing"*) ok "the failure is named" ;;
*) bad "the failure is named: got '$err'" ;; esac
expect "the old file is kept whole" '[ "$(cat "$tmp/fail/page.html")" = old ]'
expect "no temporary file left" '[ -z "$(leftovers "$tmp/fail" "page.html\|link.html")" ]'
(trap '' XFSZ; ulimit -f 1; "$G" report "$D" -o "$tmp/fail/link.html") 2> /dev/null
expect "a failed write through a symlink keeps the link" '[ -L "$tmp/fail/link.html" ]'
if [ -w /dev/full ] && [ -c /dev/full ]; then
    ln -s /dev/full "$tmp/full"
    "$G" report "$D" -o "$tmp/full" 2> /dev/null
    expect "a link to /dev/full: exit 2" '[ $? -eq 2 ]'
    expect "a link to /dev/full stays" '[ -L "$tmp/full" ]'
    expect "/dev/full stays a device" '[ -c /dev/full ]'
fi

# A folder that cannot take a new file (read-only; not for root, who may
# write anyway): the old file stays and the error is named.
mkdir "$tmp/ro" && echo old > "$tmp/ro/page.html" && chmod 555 "$tmp/ro"
if ! touch "$tmp/ro/probe" 2> /dev/null; then
    "$G" report "$D" -o "$tmp/ro/page.html" 2> /dev/null
    expect "a read-only folder: exit 2" '[ $? -eq 2 ]'
    expect "a read-only folder: the old file stays" '[ "$(cat "$tmp/ro/page.html")" = old ]'
else
    rm -f "$tmp/ro/probe"
    echo "skip - a read-only folder is writable here (root)"
fi
chmod 755 "$tmp/ro"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
