#!/bin/sh
# The progress line: shown on stderr only when stderr is a terminal, never
# with --no-progress or -q, and always cleared before the report ends.
#   sh test_progress.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -u
bin=$1
data=$2
pass=0
fail=0
skip=0
check() {
    if eval "$2"; then pass=$((pass + 1)); else echo "FAIL: $1"; fail=$((fail + 1)); fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# Without a terminal: stderr stays empty, stdout is the plain report.
"$bin" top "$data/basic.gclog" > "$tmp/out" 2> "$tmp/err"
check "no progress without a terminal" '[ ! -s "$tmp/err" ]'
check "top prints its report" 'grep -q "MyApp.Node\[\]\|System" "$tmp/out"'

if command -v script > /dev/null 2>&1; then
    # Under a pseudo-terminal (script(1) from util-linux) the phase shows,
    # followed by the escape sequence that clears the line.
    script -qec "'$bin' top '$data/basic.gclog'" /dev/null > "$tmp/tty" 2>&1
    check "phase line on a terminal" 'grep -q "gcheap: computing the dominator tree\.\.\." "$tmp/tty"'
    # The phase ends at 100% (the library reports each step's end), and so
    # does the shortest-path search of retainers.
    check "dominator phase in percent" 'grep -q "gcheap: computing the dominator tree\.\.\. 100%" "$tmp/tty"'
    script -qec "'$bin' retainers '$data/basic.gclog' 110" /dev/null > "$tmp/tty5" 2>&1
    check "path phase in percent" 'grep -q "gcheap: finding shortest paths from the roots\.\.\. 100%" "$tmp/tty5"'
    check "phase line cleared" 'grep -q "$(printf "\r\033\\[K")" "$tmp/tty"'
    script -qec "'$bin' top --no-progress '$data/basic.gclog'" /dev/null > "$tmp/tty2" 2>&1
    check "--no-progress silences it" '! grep -q "computing" "$tmp/tty2"'
    script -qec "'$bin' top -q '$data/basic.gclog'" /dev/null > "$tmp/tty3" 2>&1
    check "-q silences it" '! grep -q "computing" "$tmp/tty3"'
    # Ctrl-C during a long phase clears the line before the program dies
    # (issue 21): the last bytes on the terminal are the clearing sequence.
    gendump=$(dirname "$3")/gendump
    if [ -x "$gendump" ] && command -v timeout > /dev/null 2>&1; then
        "$gendump" --objects 3000000 --seed 3 -o "$tmp/big.gclog" 2> /dev/null
        script -qec "timeout -s INT 0.3 '$bin' top '$tmp/big.gclog'" /dev/null > "$tmp/tty4" 2>&1
        last=$(tail -c 3 "$tmp/tty4" | od -An -c | tr -d ' \n')
        check "Ctrl-C clears the progress line (ends with '$last')" '[ "$last" = "033[K" ] && ! grep -q "retained" "$tmp/tty4"'
        rm -f "$tmp/big.gclog"
    fi
else
    echo "SKIP: script(1) is not installed: terminal checks skipped"
    skip=4
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
