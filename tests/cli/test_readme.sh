#!/bin/sh
# Every README example that starts with '$ gcheap' runs, and prints what the
# README shows under it: the documentation cannot drift from the program.
# Examples run in a scratch folder holding a link to testdata/, with the
# program first on PATH. The shown output is compared with stdout, or with
# stdout and stderr when the README shows diagnostics too (in either order);
# a line '...' in the README stands for any number of lines. A command
# the README shows with no output only has to run (exit 0, or 1 for the
# gates that document a failing limit).
#   sh test_readme.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -u
bin=$1
testdata=$(cd "$2" && pwd)
readme=$(dirname "$testdata")/README.md
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/run" "$scratch/bin"
ln -s "$testdata" "$scratch/run/testdata"
ln -s "$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")" "$scratch/bin/gcheap"

# Split the README into cmd.N (the command) and exp.N (the lines shown under
# it, up to the next '$ ' line or the end of the fenced block).
awk -v dir="$scratch" '
    /^```/ { fenced = !fenced; cur = ""; next }
    fenced && /^\$ gcheap / {
        n++; cur = dir "/exp." n
        printf "" > cur
        print substr($0, 3) > (dir "/cmd." n)
        close(dir "/cmd." n)
        next
    }
    fenced && /^\$ / { cur = ""; next }
    fenced && cur != "" { print >> cur }
' "$readme"

# shown_as EXPECTED ACTUAL: equal, where each '...' line of EXPECTED matches
# any run of lines of ACTUAL.
shown_as() {
    grep -qx '\.\.\.' "$1" || { cmp -s "$1" "$2"; return; }
    awk 'NR == FNR { want[++ne] = $0; next }
         { got[++na] = $0 }
         END {
             # i: next expected line; j: next actual line; after a "..." the
             # next expected line is searched for (first match; enough for
             # README excerpts, whose lines after an ellipsis are distinct).
             i = 1; j = 1; skip = 0
             while (i <= ne) {
                 if (want[i] == "...") { skip = 1; i++; continue }
                 while (skip && j <= na && got[j] != want[i]) j++
                 if (j > na || got[j] != want[i]) exit 1
                 i++; j++; skip = 0
             }
             exit (skip || j > na) ? 0 : 1
         }' "$1" "$2"
}

pass=0
fail=0
n=1
while [ -f "$scratch/cmd.$n" ]; do
    cmd=$(cat "$scratch/cmd.$n")
    (cd "$scratch/run" && PATH="$scratch/bin:$PATH" sh -c "$cmd") \
        > "$scratch/out.$n" 2> "$scratch/err.$n"
    rc=$?
    cat "$scratch/out.$n" "$scratch/err.$n" > "$scratch/all.$n"
    cat "$scratch/err.$n" "$scratch/out.$n" > "$scratch/errout.$n"
    if [ ! -s "$scratch/exp.$n" ]; then
        if [ $rc -le 1 ] && ! grep -q "^gcheap: .*usage\|^usage:" "$scratch/err.$n"; then
            pass=$((pass + 1))
        else
            echo "FAIL: README example exits $rc: $cmd"; sed 's/^/  /' "$scratch/err.$n"
            fail=$((fail + 1))
        fi
    elif shown_as "$scratch/exp.$n" "$scratch/out.$n" || shown_as "$scratch/exp.$n" "$scratch/all.$n" ||
         shown_as "$scratch/exp.$n" "$scratch/errout.$n"; then
        pass=$((pass + 1))
    else
        echo "FAIL: README example prints other than shown: $cmd"
        diff "$scratch/exp.$n" "$scratch/all.$n" | sed 's/^/  /' | head -20
        fail=$((fail + 1))
    fi
    n=$((n + 1))
done
[ $n -gt 20 ] || { echo "FAIL: only $((n - 1)) README examples found"; fail=$((fail + 1)); }
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
