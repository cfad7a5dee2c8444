#!/bin/sh
# Checks that run_case.sh passes a matching case and fails (exit 1, with a
# diff) on a wrong stdout, stderr or status. sh test_run_case.sh GCHEAP_BIN TESTDATA_DIR BUILD_DIR
set -u
bin=$1 data=$2 build=$3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcheap-rc.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT HUP INT TERM
fails=0 passes=0
expect() { # expect STATUS NAME: runs the case file $tmp/NAME.case
    sh "$here/run_case.sh" "$bin" "$tmp/$2.case" "$data" > "$tmp/$2.log" 2>&1
    got=$?
    if [ "$got" = "$1" ]; then passes=$((passes + 1)); else
        echo "FAIL: $2: run_case.sh exited $got, expected $1"; cat "$tmp/$2.log"; fails=$((fails + 1)); fi
}
good_out='objects  bytes  types  checks  exceeded  status  domain
     25   1448      6       1         1  fail    app.exe
FAIL  type Dictionary<String, Int32>: 1 object > 0'
good_err='gcheap: limit exceeded: type Dictionary<String, Int32>: 1 object > 0'
printf '# quoting: a name with a space and a comma\nargs: check diff/new.gclog --max-type '"'"'Dictionary<String, Int32>=0'"'"'\nstatus: 1\n--- stdout\n%s\n--- stderr\n%s\n' "$good_out" "$good_err" > "$tmp/good.case"
expect 0 good
sed 's/status: 1/status: 0/' "$tmp/good.case" > "$tmp/badstatus.case"; expect 1 badstatus
sed 's/1448/1449/' "$tmp/good.case" > "$tmp/badout.case"; expect 1 badout
sed '/^--- stderr/,$d' "$tmp/good.case" > "$tmp/noerr.case"; expect 1 noerr
grep -q '^-' "$tmp/badout.log" && grep -q '^+' "$tmp/badout.log" || { echo "FAIL: no unified diff shown"; fails=$((fails + 1)); }
printf 'args: check -\nstdin: diff/new.gclog\nstatus: 0\n--- stdout\nobjects  bytes  types  checks  exceeded  status  domain\n     25   1448      6       0         0  pass    app.exe\nno limits given: pass\n' > "$tmp/stdin.case"
expect 0 stdin
printf 'args: check\n--- stdout\n' > "$tmp/nostatus.case"; expect 2 nostatus
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
