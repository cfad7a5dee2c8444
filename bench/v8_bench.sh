#!/usr/bin/env bash
# bench/v8_bench.sh - gcheap on real Node.js heap snapshots (V8 .heapsnapshot),
# and memlab beside it. Run by bench/run.sh (unless --no-v8), or alone:
#
#   bench/v8_bench.sh [--gcheap PATH] [--sizes "1000000 10000000"]
#                     [--memlab-max N] [--dir DIR] [--huge]
#
# For each size N a snapshot of about N nodes is written once by Node.js
# (bench/v8/make_snapshot.js, cached in DIR as v8-N.heapsnapshot). On each:
# stat, top, and stat through a pipe, each under /usr/bin/time (wall, CPU,
# peak RSS). On sizes up to --memlab-max (default 1000000), memlab loads the
# same file and computes the dominator tree (bench/memlab_compare.sh): both
# tools' times, memory and top retainers side by side, in the same run.
# --huge: only the snapshot beyond memlab (bench/v8/make_huge_snapshot.js:
# 21M nodes, 6M strings of 100 characters, 2.7 GB; written once into DIR as
# v8-huge-strings.heapsnapshot, which takes Node.js ~3 min and ~10 GB):
# gcheap's top and stat, then memlab on it with an 8 GB heap
# (--max-old-space-size=8192), its time, memory and how it ends.
set -u
here=$(cd "$(dirname "$0")" && pwd)
GCHEAP=$here/../build/gcheap
SIZES="1000000 10000000"
MEMLAB_MAX=1000000
HUGE=0
DIR=${GCHEAP_BENCH_DIR:-/tmp/gcheap-bench}
while [ $# -gt 0 ]; do
    case $1 in
    --gcheap) GCHEAP=$2; shift 2 ;;
    --sizes) SIZES=$2; shift 2 ;;
    --memlab-max) MEMLAB_MAX=$2; shift 2 ;;
    --dir) DIR=$2; shift 2 ;;
    --huge) HUGE=1; shift ;;
    -h|--help) sed -n '2,19s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "v8_bench.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
done
command -v node > /dev/null 2>&1 || { echo "v8_bench.sh: node not found: V8 rows skipped (apt-get install nodejs)"; exit 0; }
mkdir -p "$DIR"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

snapshot() {
    local n=$1 f="$DIR/v8-$1.heapsnapshot"
    if [ ! -s "$f" ]; then
        # The snapshot writer needs several times the heap it describes.
        local mb=$(( n / 1000 * 2 + 2000 ))
        echo "v8_bench.sh: writing a snapshot of ~$n nodes into $f" >&2
        (cd "$tmp" && node --max-old-space-size="$mb" "$here/v8/make_snapshot.js" "$f.tmp" "$n") >&2 &&
            mv "$f.tmp" "$f" || { rm -f "$f.tmp"; return 1; }
    fi
    printf '%s\n' "$f"
}

# timed LABEL CMD...: one row: label, wall s, CPU s, peak RSS MB.
timed() {
    local label=$1; shift
    /usr/bin/time -o "$tmp/t" -f '%e %U %S %M' "$@" > /dev/null 2> "$tmp/err" ||
        { echo "$label: failed: $(tail -1 "$tmp/err")"; return; }
    awk -v l="$label" '{ printf "%-34s %8.2f %8.2f %10.1f\n", l, $1, $2 + $3, $4 / 1024 }' "$tmp/t"
}

echo "V8 heap snapshots (Node.js $(node --version); CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -1))"
if [ "$HUGE" = 1 ]; then
    f="$DIR/v8-huge-strings.heapsnapshot"
    if [ ! -s "$f" ]; then
        echo "v8_bench.sh: writing a snapshot of ~21M nodes into $f (Node.js needs ~10 GB, ~3 min)" >&2
        (cd "$tmp" && node --max-old-space-size=6000 "$here/v8/make_huge_snapshot.js" "$f.tmp" 15000000 6000000 100) >&2 &&
            mv "$f.tmp" "$f" || { rm -f "$f.tmp"; echo "v8-huge: could not write the snapshot"; exit 0; }
    fi
    echo
    echo "$f: $(wc -c < "$f") bytes, $("$GCHEAP" info --no-progress "$f" | awk '$1 == "nodes" { n = $2 } $1 == "edges" { e = $2 } END { print n " nodes, " e " edges" }')"
    printf '%-34s %8s %8s %10s\n' command wall_s cpu_s peak_MB
    timed "gcheap top" "$GCHEAP" top --no-progress "$f"
    timed "gcheap stat" "$GCHEAP" stat --no-progress "$f"
    [ -d "$here/memlab/node_modules/@memlab/core" ] ||
        (cd "$here/memlab" && PUPPETEER_SKIP_DOWNLOAD=1 npm install --no-audit --no-fund > /dev/null)
    /usr/bin/time -o "$tmp/t" -f '%e %U %S %M' node --max-old-space-size=8192 "$here/memlab/top.js" "$f" 10 \
        > /dev/null 2> "$tmp/err"
    status=$?
    awk -v l="memlab top.js (8 GB heap)" '{ printf "%-34s %8.2f %8.2f %10.1f\n", l, $1, $2 + $3, $4 / 1024 }' "$tmp/t"
    if [ "$status" -eq 0 ]; then
        echo "memlab: $(grep '^memlab:' "$tmp/err")"
    else
        echo "memlab failed (exit $status): $(grep -m1 -E 'Error|error' "$tmp/err" | cut -c1-200)"
    fi
    exit 0
fi
for n in $SIZES; do
    f=$(snapshot "$n") || { echo "v8-$n: could not write the snapshot"; continue; }
    nodes=$("$GCHEAP" info --no-progress "$f" | awk '$1 == "nodes" { print $2 }')
    edges=$("$GCHEAP" info --no-progress "$f" | awk '$1 == "edges" { print $2 }')
    echo
    echo "$f: $(wc -c < "$f") bytes, $nodes nodes, $edges edges"
    printf '%-34s %8s %8s %10s\n' command wall_s cpu_s peak_MB
    timed "gcheap stat" "$GCHEAP" stat --no-progress "$f"
    timed "gcheap top" "$GCHEAP" top --no-progress "$f"
    timed "gcheap stat < pipe" sh -c "cat '$f' | '$GCHEAP' stat --no-progress -"
    timed "wc -l (reading the file)" wc -l "$f"
    if [ "$n" -le "$MEMLAB_MAX" ]; then
        echo
        sh "$here/memlab_compare.sh" "$f" 10 || echo "(retained sizes differ: see above)"
    fi
done
