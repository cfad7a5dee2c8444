#!/bin/sh
# gcheap and memlab on the same V8 heap snapshot, side by side: each tool's
# top retainers (retained sizes from the dominator tree), wall time and peak
# memory (/usr/bin/time -v), in one run on one machine.
#   sh bench/memlab_compare.sh SNAPSHOT [N]
# memlab: cd bench/memlab && PUPPETEER_SKIP_DOWNLOAD=1 npm install
# (node_modules is not committed). NODE_HEAP_MB (default 16000) is memlab's
# --max-old-space-size. Exit 1 when a retained size differs.
set -eu
snap=$1
n=${2:-20}
here=$(cd "$(dirname "$0")" && pwd)
gcheap=${GCHEAP:-$here/../build/gcheap}
[ -d "$here/memlab/node_modules/@memlab/core" ] ||
    (cd "$here/memlab" && PUPPETEER_SKIP_DOWNLOAD=1 npm install --no-audit --no-fund > /dev/null)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

/usr/bin/time -v "$gcheap" top --top "$n" --format tsv --no-progress "$snap" > "$tmp/g.tsv" 2> "$tmp/g.time"
/usr/bin/time -v node --max-old-space-size="${NODE_HEAP_MB:-16000}" "$here/memlab/top.js" "$snap" "$n" \
    > "$tmp/m.tsv" 2> "$tmp/m.time"
sec() { sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$1" |
        awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }'; }
cpu() { awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { print u + s }' "$1"; }
rss() { sed -n 's/.*Maximum resident set size (kbytes): //p' "$1"; }
gs=$(sec "$tmp/g.time") ms=$(sec "$tmp/m.time")
gr=$(rss "$tmp/g.time") mr=$(rss "$tmp/m.time")
echo "snapshot: $snap ($(wc -c < "$snap") bytes; $(grep '^memlab:' "$tmp/m.time" | sed 's/^memlab: //'))"
printf '%-8s %10s %10s %12s\n' tool wall_s cpu_s peak_rss_MB
printf '%-8s %10s %10s %12d\n' gcheap "$gs" "$(cpu "$tmp/g.time")" $((gr / 1024))
printf '%-8s %10s %10s %12d\n' memlab "$ms" "$(cpu "$tmp/m.time")" $((mr / 1024))
awk -v g="$gs" -v m="$ms" -v gr="$gr" -v mr="$mr" \
    'BEGIN { printf "gcheap is %.1fx faster (wall) in %.1fx less memory\n", m / (g > 0 ? g : 0.001), mr / gr }'
echo
echo "top $n retainers (id, self, retained, type): gcheap | memlab"
tail -n +2 "$tmp/g.tsv" | paste - "$tmp/m.tsv" | awk -F'\t' '{ printf "%-10s %10s %12s  %-24.24s | %-10s %10s %12s  %s\n", $1, $2, $3, $4, $5, $6, $7, $8 }'
# Every id both lists show must have the same retained size, and the two
# lists the same sequence of sizes (ties may be ordered differently).
status=0
tail -n +2 "$tmp/g.tsv" | cut -f1,3 | sort > "$tmp/g.ids"
cut -f1,3 "$tmp/m.tsv" | sort > "$tmp/m.ids"
join "$tmp/g.ids" "$tmp/m.ids" | awk '$2 != $3 { print "DIFF id " $1 ": gcheap " $2 ", memlab " $3; bad = 1 } END { exit bad }' || status=1
tail -n +2 "$tmp/g.tsv" | cut -f3 > "$tmp/g.sizes"
cut -f3 "$tmp/m.tsv" > "$tmp/m.sizes"
cmp -s "$tmp/g.sizes" "$tmp/m.sizes" || { echo "DIFF: the lists of retained sizes differ"; status=1; }
[ $status -eq 0 ] && echo "retained sizes: identical for the top $n"
exit $status
