#!/usr/bin/env bash
# bench/jsc_bench.sh - gcheap on real JavaScriptCore heap snapshots written by
# Bun. Run by bench/run.sh (unless --no-jsc), or alone:
#
#   bench/jsc_bench.sh [--gcheap PATH] [--sizes "1000000"] [--dir DIR] [--bun PATH]
#
# For each size N, Bun (bench/jsc/make_snapshot.js) writes once, cached in
# DIR, a JSC snapshot of about N cells and the V8-format snapshot of the same
# heap. On each: stat, top, and stat through a pipe on the JSC file, and top
# on the V8 file, each under /usr/bin/time (wall, CPU, peak RSS): the row to
# read is the ratio of top on the JSC file to top on the V8 one, the same
# heap in the two formats, measured in one run. Bun: --bun, else `bun` on
# PATH, else the copy the tests install (build/tests/bun-npm).
set -u
here=$(cd "$(dirname "$0")" && pwd)
GCHEAP=$here/../build/gcheap
SIZES="1000000"
DIR=${GCHEAP_BENCH_DIR:-/tmp/gcheap-bench}
BUN=
while [ $# -gt 0 ]; do
    case $1 in
    --gcheap) GCHEAP=$2; shift 2 ;;
    --sizes) SIZES=$2; shift 2 ;;
    --dir) DIR=$2; shift 2 ;;
    --bun) BUN=$2; shift 2 ;;
    -h|--help) sed -n '2,15s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "jsc_bench.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
done
if [ -z "$BUN" ]; then
    BUN=$(command -v bun || true)
    [ -n "$BUN" ] || BUN=$here/../build/tests/bun-npm/node_modules/bun/bin/bun.exe
fi
"$BUN" --version > /dev/null 2>&1 ||
    { echo "jsc_bench.sh: no bun: JSC rows skipped (ctest -R test_jsc_bun installs it, or npm install bun)"; exit 0; }
mkdir -p "$DIR"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

timed() { # LABEL CMD...: label, wall s, CPU s, peak RSS MB; sets last_wall
    local label=$1; shift
    /usr/bin/time -o "$tmp/t" -f '%e %U %S %M' "$@" > /dev/null 2> "$tmp/err" ||
        { echo "$label: failed: $(tail -1 "$tmp/err")"; last_wall=; return; }
    last_wall=$(awk '{ print $1 }' "$tmp/t")
    awk -v l="$label" '{ printf "%-34s %8.2f %8.2f %10.1f\n", l, $1, $2 + $3, $4 / 1024 }' "$tmp/t"
}

echo "JavaScriptCore heap snapshots (Bun $("$BUN" --version); CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -1))"
for n in $SIZES; do
    f=$DIR/jsc-$n
    if [ ! -s "$f.json" ] || [ ! -s "$f.heapsnapshot" ]; then
        echo "jsc_bench.sh: writing snapshots of ~$n cells into $f.*" >&2
        "$BUN" "$here/jsc/make_snapshot.js" "$f" "$n" >&2 || { echo "jsc-$n: bun could not write it"; continue; }
    fi
    echo
    echo "$f.json: $(wc -c < "$f.json") bytes, $("$GCHEAP" info --no-progress "$f.json" | awk '$1 == "nodes" { n = $2 } $1 == "edges" { e = $2 } END { print n " nodes, " e " edges" }')"
    printf '%-34s %8s %8s %10s\n' command wall_s cpu_s peak_MB
    timed "gcheap stat (jsc)" "$GCHEAP" stat --no-progress "$f.json"
    timed "cat | gcheap stat - (jsc)" sh -c "cat '$f.json' | '$GCHEAP' stat --no-progress -"
    timed "gcheap top (jsc)" "$GCHEAP" top --no-progress "$f.json"
    jsc_top=$last_wall
    timed "gcheap top (v8, same heap)" "$GCHEAP" top --no-progress "$f.heapsnapshot"
    v8_top=$last_wall
    [ -n "$jsc_top" ] && [ -n "$v8_top" ] &&
        awk -v a="$jsc_top" -v b="$v8_top" 'BEGIN { if (b > 0) printf "top: jsc / v8 of the same heap %.2fx\n", a / b }'
done
exit 0
