#!/usr/bin/env bash
# bench/mcp_bench.sh - a heap that stays loaded (issue 37): in one
# `gcheap mcp` process, the first question on a dump (it loads the dump and
# builds the dominator tree) against later questions that no earlier answer
# contains: `top` with another --top, `retainers` of an id (the first one
# builds the shortest paths), `retainers` of another id. Each answer is timed
# from the request's write to the answer's line (nanosecond `date`), the
# whole series --runs times (a new server each time), medians printed with
# the ratios and the target (a second question >= 20x faster than the first).
#
#   bench/mcp_bench.sh --gcheap PATH --dump FILE [--runs N]
# bench/run.sh calls it on its 1M-object .gclog dump (run.sh --mcp: only this).
set -u
GCHEAP=
DUMP=
RUNS=3
while [ $# -gt 0 ]; do
    case $1 in
    --gcheap) GCHEAP=$2; shift 2 ;;
    --dump) DUMP=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    *) echo "mcp_bench.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
done
[ -x "$GCHEAP" ] && [ -s "$DUMP" ] || { echo "mcp_bench.sh: needs --gcheap and --dump" >&2; exit 2; }
case $(date +%N) in ''|*[!0-9]*) echo "mcp_bench.sh: needs date +%N" >&2; exit 2 ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/gcheap-mcp.XXXXXX") || exit 2
trap 'exec 3>&- 4<&-; [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
dir=$(cd "$(dirname "$DUMP")" && pwd -P)
dump=$dir/$(basename "$DUMP")

call() { # id tool arguments-json: prints the answer's seconds; the answer in $work/answer
    local t0 t1
    t0=$(date +%s%N)
    printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}}\n' "$1" "$2" "$3" >&3
    IFS= read -r answer <&4
    t1=$(date +%s%N)
    printf '%s\n' "$answer" > "$work/answer"
    case $answer in *'"isError":false'*) ;; *) echo "mcp_bench.sh: $2 failed: ${answer:0:300}" >&2; return 1 ;; esac
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", (b - a) / 1e9 }'
}

: > "$work/times"
for ((r = 1; r <= RUNS; r++)); do
    rm -f "$work/in" "$work/out"
    mkfifo "$work/in" "$work/out"
    "$GCHEAP" mcp --allow "$dir" < "$work/in" > "$work/out" 2> "$work/err" &
    pid=$!
    exec 3> "$work/in" 4< "$work/out"
    printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}' >&3
    IFS= read -r _ <&4
    q1=$(call 1 top "{\"dump\":\"$dump\",\"top\":10}") || exit 1
    ids=$(grep -o '"id":"[^"]*"' "$work/answer" | sed -n 's/"id":"\(.*\)"/\1/p' | sed -n '3p;4p')
    a=$(printf '%s\n' "$ids" | sed -n 1p)
    b=$(printf '%s\n' "$ids" | sed -n 2p)
    q2=$(call 2 top "{\"dump\":\"$dump\",\"top\":20}") || exit 1
    q3=$(call 3 retainers "{\"dump\":\"$dump\",\"ids\":[\"$a\"],\"limit\":20}") || exit 1
    q4=$(call 4 retainers "{\"dump\":\"$dump\",\"ids\":[\"$b\"],\"limit\":20}") || exit 1
    exec 3>&- 4<&-
    wait "$pid"
    pid=
    echo "$q1 $q2 $q3 $q4" >> "$work/times"
done
t0=$(date +%s%N)
"$GCHEAP" top --top 10 --format json "$dump" > /dev/null
t1=$(date +%s%N)
cli=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')
med() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
m1=$(awk '{print $1}' "$work/times" | med)
m2=$(awk '{print $2}' "$work/times" | med)
m3=$(awk '{print $3}' "$work/times" | med)
m4=$(awk '{print $4}' "$work/times" | med)
echo "gcheap mcp, one server per series ($RUNS series, medians; $(basename "$dump"); $(lscpu 2>/dev/null | awk -F: '/Model name/ {gsub(/^ +/, "", $2); print $2; exit}'), $(nproc) cores)"
printf '  %-52s %8.4f s\n' "1st: top --top 10 (load, dominator tree)" "$m1" \
    "2nd: top --top 20" "$m2" "3rd: retainers of id $a (builds the paths)" "$m3" \
    "4th: retainers of id $b" "$m4" "for reference: gcheap top --top 10 alone" "$cli"
r2=$(awk -v a="$m1" -v b="$m2" 'BEGIN { printf "%.1f", a / b }')
r4=$(awk -v a="$m1" -v b="$m4" 'BEGIN { printf "%.1f", a / b }')
for t in "top with another --top:$r2" "retainers of another id:$r4"; do
    awk -v n="${t%%:*}" -v v="${t##*:}" 'BEGIN { printf "  %s  %-52s %sx (target >= 20x the first question)\n", (v >= 20 ? "PASS" : "FAIL"), n, v }'
done
