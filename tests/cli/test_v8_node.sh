#!/bin/sh
# Real V8 heap snapshots written by Node.js (tests/node/leaky.js builds a known
# heap: COUNT instances of class Leaky in a Map held by a global Holder):
#   - `stat --v8-raw` per type equals a direct sum over the file's nodes array
#     (tests/node/stat_oracle.js, one node run per snapshot), and the script's
#     objects are there (1000 Leaky, 1 Holder);
#   - the same results through a pipe as from the mapped file;
#   - every command runs; retainers names the properties on the path;
#     diff sees the 500 more Leaky of a second snapshot; check gates on them;
#   - a truncated snapshot is an input error (exit 2, with an offset).
#   sh test_v8_node.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
# Needs Node.js: installed with apt-get when missing (as root); skipped, with
# a message, only where that is impossible.
set -u
. "$(dirname "$0")/need.sh"
scratch v8_node "$1" "${3:-}" || exit 1
need test_v8_node nodejs node || exit 0
here=$root/tests/cli
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

snap=$tmp/leaky.heapsnapshot
snap2=$tmp/leaky1500.heapsnapshot
(cd "$tmp" && node "$here/../node/leaky.js" "$snap" 1000 && node "$here/../node/leaky.js" "$snap2" 1500) ||
    { echo "FAIL: node could not write the snapshots"; exit 1; }

# stat against the oracle
"$bin" stat --v8-raw --format json "$snap" > "$tmp/stat.json" || bad "stat exit $?"
if node "$here/../node/stat_oracle.js" "$snap" "$tmp/stat.json" Leaky=1000 Holder=1 > "$tmp/oracle.tsv"; then
    ok
else
    bad "stat differs from the oracle over the nodes array"
fi
"$bin" stat --v8-raw --format json "$snap2" > "$tmp/stat2.json" || bad "stat (2) exit $?"
node "$here/../node/stat_oracle.js" "$snap2" "$tmp/stat2.json" Leaky=1500 Holder=1 > /dev/null && ok ||
    bad "stat of the second snapshot differs from the oracle"
leaky=$(sed -n 's/^#id	Leaky	//p' "$tmp/oracle.tsv")
holder=$(sed -n 's/^#id	Holder	//p' "$tmp/oracle.tsv")
[ -n "$leaky" ] && [ -n "$holder" ] && ok || bad "no Leaky/Holder id from the oracle"

# a pipe gives what the mapping gives
for cmd in "stat --format tsv" "top --format tsv --top 50" "info" "roots --format tsv"; do
    # shellcheck disable=SC2086
    "$bin" $cmd "$snap" > "$tmp/file.out" 2>&1
    # shellcheck disable=SC2086
    cat "$snap" | "$bin" $cmd - > "$tmp/pipe.out" 2>&1
    cmp -s "$tmp/file.out" "$tmp/pipe.out" && ok || bad "$cmd: the pipe differs from the file"
done

# every command
for cmd in "info" "roots" "top" "dom --top 20" "stat --live --retained" "objsize @ $holder" \
           "retainers @ $leaky" "retainers --all @ $leaky" "retainers --dominators @ $leaky" "check"; do
    case $cmd in
    *@*) args=$(echo "$cmd" | sed "s|@|$snap|") ;;
    *) args="$cmd $snap" ;;
    esac
    # shellcheck disable=SC2086
    "$bin" $args > "$tmp/cmd.out" 2> "$tmp/cmd.err" && ok || bad "$cmd: exit $? $(cat "$tmp/cmd.err")"
done
"$bin" retainers "$snap" "$leaky" > "$tmp/ret.out"
grep -q -- '-> \.leakHolder [0-9]* Holder$' "$tmp/ret.out" && grep -q -- '-> \.cache [0-9]* Map$' "$tmp/ret.out" &&
    ok || { bad "retainers does not name .leakHolder and .cache"; cat "$tmp/ret.out"; }
"$bin" info "$snap" | grep -q '^detached_nodes ' && ok || bad "info shows no detachedness counts"
"$bin" diff --format tsv "$snap" "$snap2" > "$tmp/diff.out" || bad "diff exit $?"
awk -F'\t' '$1 == "Leaky" && $3 == 1500 && $4 == 500 { found = 1 } END { exit !found }' "$tmp/diff.out" && ok ||
    { bad "diff does not show +500 Leaky"; grep Leaky "$tmp/diff.out"; }
"$bin" check --max-type Leaky=1000 "$snap" > /dev/null 2>&1 && ok || bad "check: 1000 Leaky within 1000"
"$bin" check --max-type Leaky=999 "$snap" > /dev/null 2>&1
[ $? -eq 1 ] && ok || bad "check: 1000 Leaky over 999 must exit 1"

# truncated and corrupted real files
size=$(wc -c < "$snap")
head -c 1 "$snap" > "$tmp/cut.heapsnapshot"
"$bin" stat "$tmp/cut.heapsnapshot" > /dev/null 2>&1
[ $? -eq 2 ] && ok || bad "a lone '{' must be an input error"
for cut in 20 300 $((size / 3)) $((size / 2)) $((size - 100)) $((size - 2)); do
    head -c "$cut" "$snap" > "$tmp/cut.heapsnapshot"
    "$bin" stat "$tmp/cut.heapsnapshot" > /dev/null 2> "$tmp/cut.err"
    st=$?
    [ $st -eq 2 ] && grep -q 'offset [0-9]*:' "$tmp/cut.err" && ok ||
        bad "cut at $cut: exit $st, $(cat "$tmp/cut.err")"
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
