#!/bin/sh
# gcheap mcp on hostile input, through the real program: every prefix of a
# request (truncated JSON), a line past the 4 MiB message limit, a million
# nested brackets, unknown fields, huge and malformed limits, binary garbage
# (bytes of the program itself). Checks: the exit status is 0 at end of
# input, nothing but one JSON answer per line reaches stdout, the answers
# carry the right codes and a ping after the garbage is still answered, and
# the peak memory stays bounded (far below the input's size times a
# constant: the server keeps one line at a time). Run under ASan+UBSan by
# tests/run.sh --sanitize.
#   sh test_mcp_hostile.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -u
. "$(dirname "$0")/need.sh"
scratch mcp_hostile "$1" "${3:-}" || exit 1
data=$(cd "$2" && pwd -P)
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
cd "$tmp" || exit 1
cp "$data/v8/sample.heapsnapshot" d.heapsnapshot

req='{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"top","arguments":{"dump":"d.heapsnapshot"}}}'
# 1. every proper prefix of a request: each one line, each -32700
n=${#req}
i=1
: > prefixes
while [ $i -lt $n ]; do
    printf '%s\n' "$(printf '%s' "$req" | cut -c1-$i)" >> prefixes
    i=$((i + 1))
done
"$bin" mcp < prefixes > out1 2> err1
st=$?
[ $st -eq 0 ] && ok || bad "prefixes: exit $st"
lines=$(wc -l < out1)
codes=$(grep -c '"code":-32700' out1)
[ "$lines" -eq $((n - 1)) ] && [ "$codes" -eq $((n - 1)) ] && ok ||
    bad "prefixes: $lines answers, $codes of them -32700, for $((n - 1)) truncated requests"

# 2. oversized, nested, unknown fields, limits, garbage; a ping after each
{
    printf '"%s"\n' "$(head -c 5000000 /dev/zero | tr '\0' x)"
    echo '{"jsonrpc":"2.0","id":"p1","method":"ping"}'
    head -c 1000000 /dev/zero | tr '\0' '['
    echo
    echo '{"jsonrpc":"2.0","id":"p2","method":"ping"}'
    echo '{"jsonrpc":"2.0","id":"u1","method":"ping","params":{"x":[1,{"y":null}]},"unknown":true}'
    echo '{"jsonrpc":"2.0","id":"u2","method":"tools/call","params":{"name":"top","arguments":{"dump":"d.heapsnapshot","bogus":1}}}'
    echo '{"jsonrpc":"2.0","id":"l1","method":"tools/call","params":{"name":"top","arguments":{"dump":"d.heapsnapshot","limit":18446744073709551615}}}'
    echo '{"jsonrpc":"2.0","id":"l2","method":"tools/call","params":{"name":"top","arguments":{"dump":"d.heapsnapshot","limit":1e300}}}'
    echo '{"jsonrpc":"2.0","id":"l3","method":"tools/call","params":{"name":"top","arguments":{"dump":"d.heapsnapshot","limit":184467440737095516150}}}'
    echo '{"jsonrpc":"2.0","id":"l4","method":"tools/call","params":{"name":"top","arguments":{"dump":"d.heapsnapshot","top":18446744073709551615,"cursor":"99999999999999999999.0"}}}'
    head -c 300000 "$bin"
    echo
    echo '{"jsonrpc":"2.0","id":"p3","method":"ping"}'
} > hostile
command -v /usr/bin/time > /dev/null 2>&1 && timer="/usr/bin/time -f %M -o rss" || timer=
$timer "$bin" mcp < hostile > out2 2> err2
st=$?
[ $st -eq 0 ] && ok || bad "hostile: exit $st ($(tail -n 3 err2))"
for id in p1 p2 p3 u1; do
    grep -q "\"id\":\"$id\",\"result\":{}" out2 && ok || bad "no answer to ping $id"
done
grep -q '"id":"u2",.*unknown argument .bogus.*"isError":true' out2 && ok || bad "unknown argument: $(grep '"u2"' out2)"
grep -q '"id":"l1",.*"structuredContent":{"command":"top"' out2 && ok || bad "limit 2^64-1: $(grep '"l1"' out2 | cut -c1-300)"
for id in l2 l3 l4; do
    grep -q "\"id\":\"$id\",.*\"isError\":true" out2 && ok || bad "bad limit/cursor $id: $(grep "\"$id\"" out2 | cut -c1-300)"
done
head -n 1 out2 | grep -q '"code":-32700,"message":"parse error: message longer than' && ok || bad "oversized: $(head -n 1 out2 | cut -c1-200)"
sed -n 3p out2 | grep -q '"code":-32700,"message":"parse error: nesting too deep"' && ok || bad "nesting: $(sed -n 3p out2 | cut -c1-200)"
# every line on stdout is one JSON document (json_check, one process)
if [ -x "${3:-}/json_check" ]; then
    mkdir lines && (cd lines && split -l 1 -a 4 ../out2 l && split -l 1 -a 4 ../out1 m)
    "${3:-}/json_check" lines/* > check.txt 2>&1 && ok || bad "answers that are not JSON: $(head -n 3 check.txt)"
fi
# memory: the input is ~6.5 MB; the server holds one line (4 MiB at most)
if [ -n "$timer" ] && [ -s rss ]; then
    kb=$(tail -n 1 rss)
    limit=65536
    grep -q AddressSanitizer "$bin" 2> /dev/null && limit=1048576
    [ "$kb" -lt $limit ] && ok || bad "peak memory ${kb} KiB (limit $limit KiB)"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
