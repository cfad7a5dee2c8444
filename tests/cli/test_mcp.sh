#!/bin/sh
# gcheap mcp driven by a real MCP client: the official TypeScript SDK
# (@modelcontextprotocol/sdk from npm, installed into a cache folder with the
# machine's Node.js) in one node process (tests/node/mcp_client.mjs), on real
# HPROF and V8 dumps of testdata/. The CLI runs first, once per tool and dump,
# into files; the client then checks that
#   - tools/list has one tool per command of `gcheap --help`;
#   - every tool's structuredContent equals the CLI's --format json (one answer
#     with every row), and pages of a few rows give every row exactly once and
#     make the same document;
#   - failures (missing dump, truncated dump, bad option, a path outside the
#     allowed folders) are tool errors with the CLI's message; report writes
#     the same HTML as the CLI, from one dump, two and a series of three;
#   - malformed lines get -32700 / -32600 / -32601 / -32602 and the server
#     keeps answering.
#   sh test_mcp.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
# The SDK is cached in $GCHEAP_NPM_CACHE (default BUILD_TESTS_DIR/npm-mcp);
# skipped with one line only when Node.js or the SDK cannot be had.
set -u
. "$(dirname "$0")/need.sh"
scratch mcp "$1" "${3:-}" || exit 1
need test_mcp nodejs node || exit 0
need test_mcp npm npm || exit 0
data=$(cd "$2" && pwd -P)
cache=${GCHEAP_NPM_CACHE:-$(cd "${3:-$tmp}" && pwd)/npm-mcp}
sdk=$cache/node_modules/@modelcontextprotocol/sdk/package.json
if [ ! -f "$sdk" ]; then
    mkdir -p "$cache"
    npm install --prefix "$cache" --no-audit --no-fund --silent '@modelcontextprotocol/sdk@^1.17' \
        > "$tmp/npm.log" 2>&1
fi
if [ ! -f "$sdk" ]; then
    echo "SKIP test_mcp: npm could not install @modelcontextprotocol/sdk into $cache (offline?)"
    echo "0 passed, 0 failed (skipped)"
    exit 0
fi

cd "$tmp" || exit 1
plan=$tmp/plan.jsonl
: > "$plan"
n=0
# case TOOL ARGS_JSON PAGE -- CLI_ARGS...: runs the CLI now, adds the plan line.
case_() {
    tool=$1 args=$2 page=$3
    shift 4
    n=$((n + 1))
    if [ "$tool" = report ]; then
        "$bin" report "$@" > "$tmp/$n.out" 2> "$tmp/$n.err"
    else
        "$bin" "$tool" --format=json "$@" > "$tmp/$n.out" 2> "$tmp/$n.err"
    fi
    st=$?
    printf '{"tool":"%s","args":%s,"page":%s,"status":%s,"expect":"%s","err":"%s"}\n' \
        "$tool" "$args" "$page" "$st" "$tmp/$n.out" "$tmp/$n.err" >> "$plan"
}
for d in "$data"/hprof/leak.hprof "$data"/hprof/art-strings.hprof "$data"/v8/sample.heapsnapshot; do
    D="\"$d\""
    id=$("$bin" top --format=json "$d" | sed -n 's/^.*"rows":\[{"id":"\([^"]*\)".*$/\1/p')
    [ -n "$id" ] || id=$("$bin" objects --format=json "$d" | sed -n 's/^.*"rows":\[{"id":"\([^"]*\)".*$/\1/p')
    [ -n "$id" ] || { echo "FAIL: no id from top on $d"; exit 1; }
    for t in info stat top dom objects roots suspects check; do
        case_ "$t" "{\"dump\":$D}" 3 -- -- "$d"
    done
    case_ top "{\"dump\":$D,\"top\":5,\"sort\":\"size\"}" 2 -- --top=5 --sort=size -- "$d"
    case_ stat "{\"dump\":$D,\"include_weak\":true}" 4 -- --include-weak -- "$d"
    case_ retainers "{\"dump\":$D,\"ids\":[\"$id\"]}" 2 -- -- "$d" "$id"
    case_ retainers "{\"dump\":$D,\"ids\":[\"$id\"],\"dominators\":true}" 1 -- --dominators -- "$d" "$id"
    case_ objsize "{\"dump\":$D,\"ids\":[\"$id\"]}" 1 -- -- "$d" "$id"
    case_ refs "{\"dump\":$D,\"ids\":[\"$id\"]}" 2 -- -- "$d" "$id"
    case_ dom "{\"dump\":$D,\"id\":\"$id\"}" 2 -- -- "$d" "$id"
    case_ diff "{\"base\":$D,\"new\":$D}" 5 -- -- "$d" "$d"
    case_ leaks "{\"dumps\":[$D,$D]}" 2 -- -- "$d" "$d"
    case_ check "{\"dump\":$D,\"max_bytes\":\"1KiB\",\"max_type\":[\"*=1\",\"x*=:5\"]}" 2 -- \
        --max-bytes=1KiB --max-type='*=1' --max-type='x*=:5' -- "$d"
    case_ top "{\"dump\":$D,\"top\":-1}" 1 -- --top=-1 -- "$d"
    case_ retainers "{\"dump\":$D,\"ids\":[\"nosuchid\"]}" 1 -- -- "$d" nosuchid
done
case_ report "{\"dump\":\"$data/v8/sample.heapsnapshot\",\"output\":\"$tmp/mcp.html\"}" 1 -- \
    -o "$tmp/cli.html" -- "$data/v8/sample.heapsnapshot"
sed -i "s|\"expect\":\"$tmp/$n.out\"|\"expect\":\"$tmp/cli.html\"|" "$plan"
# report's other forms through 'dumps': two dumps (what changed), three (a series)
S="\"$data/v8/sample.heapsnapshot\""
case_ report "{\"dumps\":[$S,$S],\"output\":\"$tmp/mcp2.html\"}" 1 -- \
    -o "$tmp/cli2.html" -- "$data/v8/sample.heapsnapshot" "$data/v8/sample.heapsnapshot"
sed -i "s|\"expect\":\"$tmp/$n.out\"|\"expect\":\"$tmp/cli2.html\"|" "$plan"
L="\"$data/hprof/leak.hprof\""
case_ report "{\"dumps\":[$L,$L,$L],\"output\":\"$tmp/mcp3.html\"}" 1 -- \
    -o "$tmp/cli3.html" -- "$data/hprof/leak.hprof" "$data/hprof/leak.hprof" "$data/hprof/leak.hprof"
sed -i "s|\"expect\":\"$tmp/$n.out\"|\"expect\":\"$tmp/cli3.html\"|" "$plan"
for bad in "{\"dump\":$S,\"dumps\":[$S,$S],\"output\":\"$tmp/x.html\"}|not both" \
    "{\"output\":\"$tmp/x.html\"}|missing argument 'dump'" \
    "{\"dumps\":[$S],\"output\":\"$tmp/x.html\"}|two dumps or more"; do
    printf '{"tool":"report","args":%s,"status":2,"contains":"%s"}\n' "${bad%|*}" "${bad#*|}" >> "$plan"
done
case_ top "{\"dump\":\"$data/hprof/truncated.hprof\"}" 1 -- -- "$data/hprof/truncated.hprof"
case_ top "{\"dump\":\"missing.hprof\"}" 1 -- -- missing.hprof
# outside the allowed folders: no CLI twin; the message names the rule
printf '{"tool":"stat","args":{"dump":"/etc/hostname"},"status":2,"contains":"access denied"}\n' >> "$plan"
printf '{"tool":"stat","args":{"dump":"%s/../README.md"},"status":2,"contains":"access denied"}\n' "$data" >> "$plan"
ln -s /etc/hostname "$tmp/link.hprof"
printf '{"tool":"stat","args":{"dump":"%s/link.hprof"},"status":2,"contains":"access denied"}\n' "$tmp" >> "$plan"
printf '{"tool":"report","args":{"dump":"%s/v8/sample.heapsnapshot","output":"%s/../x.html"},"status":2,"contains":"access denied"}\n' "$data" "$tmp" >> "$plan"

GCHEAP_COMMANDS=$("$bin" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p' | tr '\n' ' ')
export GCHEAP_COMMANDS
node "$root/tests/node/${CLIENT:-mcp_client.mjs}" "$cache" "$plan" "$bin" "$data" "$tmp"
