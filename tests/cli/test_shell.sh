#!/bin/sh
# gcheap shell: command lines piped in print, one after another, exactly what
# each one-shot command prints (stdout and stderr), on a .gclog, an HPROF and
# a V8 dump; a bad line prints its error and the shell goes on; quit ends it;
# the shell's options apply to every line; quoting; a missing dump or '-' is
# exit 2 before any line.
#   sh test_shell.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -u
bin=$1
td=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
check() {
    if eval "$2"; then pass=$((pass + 1)); else echo "FAIL: $1"; fail=$((fail + 1)); fi
}

# The lines (IDs from each dump's own top), once piped to the shell, once
# each run alone: the concatenations must be equal.
for dump in "$td/leaks/leak-2.gclog" "$td/hprof/leak.hprof" "$td/v8/sample.heapsnapshot"; do
    id=$("$bin" top --format tsv "$dump" | awk -F'\t' 'NR == 2 { print $1 }')
    cat > "$tmp/lines" <<LINES
top --top 3
stat --retained --sort retained
dom --depth 2 --format json
retainers $id
retainers --dominators $id
refs $id
objsize --stat $id
suspects
info --format json
roots --summary
stat --live --include-weak
nosuchcommand
top --top 'not a number'
objects --top 4 --retained
LINES
    : > "$tmp/want.out"
    : > "$tmp/want.err"
    while IFS= read -r line; do
        # shellcheck disable=SC2086 # the words as the shell splits them (no quotes but one)
        case $line in
            "top --top 'not a number'") set -- top --top 'not a number' ;;
            *) set -- $line ;;
        esac
        c=$1
        shift
        "$bin" "$c" "$dump" "$@" >> "$tmp/want.out" 2>> "$tmp/want.err" < /dev/null
    done < "$tmp/lines"
    "$bin" shell "$dump" < "$tmp/lines" > "$tmp/got.out" 2> "$tmp/got.err"
    rc=$?
    name=$(basename "$dump")
    check "shell on $name exits 0" '[ $rc -eq 0 ]'
    check "shell on $name prints what the commands print" 'cmp -s "$tmp/want.out" "$tmp/got.out"'
    check "shell on $name says what they say on stderr" 'cmp -s "$tmp/want.err" "$tmp/got.err"'
    check "shell on $name printed something" '[ "$(wc -l < "$tmp/got.out")" -gt 30 ]'
done

d=$td/basic.gclog
out=$(printf 'top --top 1\nquit\ntop\n' | "$bin" shell --format tsv "$d" 2>&1)
check "quit ends the shell; shell options apply to each line" \
    '[ "$out" = "$("$bin" top --top 1 --format tsv "$d")" ]'
out=$(printf "stat --format csv --top 1 # a comment\n\n  \n" | "$bin" shell "$d" 2>&1)
check "comments and blank lines" '[ "$out" = "$("$bin" stat --format csv --top 1 "$d")" ]'
out=$(printf "refs '100' \"108\"\n" | "$bin" shell "$d" 2>&1)
check "quoted words" '[ "$out" = "$("$bin" refs "$d" 100 108)" ]'
err=$(printf "top 'open\ntop --top 1\n" | "$bin" shell "$d" 2>&1 >/dev/null)
check "an unterminated quote is an error line" '[ "$err" = "gcheap: shell: unterminated single quote" ]'
out=$(printf "top 'open\ntop --top 1\n" | "$bin" shell "$d" 2>/dev/null)
check "the shell goes on after it" '[ "$out" = "$("$bin" top --top 1 "$d")" ]'
out=$(printf 'diff %s\n' "$td/diff/new.gclog" | "$bin" shell "$td/diff/base.gclog" 2>&1)
check "diff NEW compares the shell's dump with NEW" \
    '[ "$out" = "$("$bin" diff "$td/diff/base.gclog" "$td/diff/new.gclog" 2>&1)" ]'
out=$(printf 'help\n' | "$bin" shell "$d")
check "help lists the commands" 'printf "%s\n" "$out" | grep -q "^  retainers$"'
out=$(printf 'help dom\n' | "$bin" shell "$d")
check "help COMMAND is the command's help" '[ "$out" = "$("$bin" help dom)" ]'
"$bin" shell "$td/no-such-dump.gclog" < /dev/null > /dev/null 2>&1; rc=$?
check "a missing dump is exit 2" '[ $rc -eq 2 ]'
"$bin" shell - < /dev/null > /dev/null 2>&1; rc=$?
check "standard input as the dump is exit 2" '[ $rc -eq 2 ]'
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
