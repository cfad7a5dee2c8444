#!/bin/sh
# gcheap and memlab on the same V8 heap snapshot, side by side: each tool's
# top retainers (retained sizes from the dominator tree), wall time, CPU time
# (user + sys) and peak RSS (/usr/bin/time), in one run on one machine.
#   sh bench/memlab_compare.sh SNAPSHOT [N]
# ROUNDS (default 3) rounds, each running gcheap then memlab (interleaved, so
# that both see the same machine load); the table shows every round and the
# medians, and the ratios are those of the medians. "Faster" is the whole
# process's wall time, start to exit, reading the file included, for both
# tools (gcheap `top`: load, dominator tree, report; memlab: node starting,
# @memlab/core loading the snapshot and computing the dominator tree and
# retained sizes, bench/memlab/top.js). CPU time is shown beside it: gcheap
# uses two threads where it can, memlab's node its garbage collector threads.
# memlab: cd bench/memlab && PUPPETEER_SKIP_DOWNLOAD=1 npm install
# (node_modules is not committed). NODE_HEAP_MB (default 16000) is memlab's
# --max-old-space-size. Exit 1 when a retained size differs.
set -eu
snap=$1
n=${2:-20}
rounds=${ROUNDS:-3}
here=$(cd "$(dirname "$0")" && pwd)
gcheap=${GCHEAP:-$here/../build/gcheap}
[ -d "$here/memlab/node_modules/@memlab/core" ] ||
    (cd "$here/memlab" && PUPPETEER_SKIP_DOWNLOAD=1 npm install --no-audit --no-fund > /dev/null)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# Each row: wall s, CPU s, peak RSS KB.
r=1
while [ "$r" -le "$rounds" ]; do
    /usr/bin/time -o "$tmp/t" -f '%e %U %S %M' "$gcheap" top --v8-raw --top "$n" --format tsv --no-progress "$snap" \
        > "$tmp/g.tsv" 2> "$tmp/g.err"
    awk '{ print $1, $2 + $3, $4 }' "$tmp/t" >> "$tmp/g.rows"
    /usr/bin/time -o "$tmp/t" -f '%e %U %S %M' node --max-old-space-size="${NODE_HEAP_MB:-16000}" \
        "$here/memlab/top.js" "$snap" "$n" > "$tmp/m.tsv" 2> "$tmp/m.err"
    awk '{ print $1, $2 + $3, $4 }' "$tmp/t" >> "$tmp/m.rows"
    r=$((r + 1))
done
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
col() { awk -v c="$2" '{ print $c }' "$1" | median; }
gw=$(col "$tmp/g.rows" 1) gc=$(col "$tmp/g.rows" 2) gr=$(col "$tmp/g.rows" 3)
mw=$(col "$tmp/m.rows" 1) mc=$(col "$tmp/m.rows" 2) mr=$(col "$tmp/m.rows" 3)
echo "snapshot: $snap ($(wc -c < "$snap") bytes; $(grep '^memlab:' "$tmp/m.err" | sed 's/^memlab: //'))"
echo "$rounds interleaved rounds (gcheap, then memlab); CPU: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) vCPU"
printf '%-8s %-7s %10s %10s %12s\n' tool round wall_s cpu_s peak_rss_MB
awk '{ printf "%-8s %-7d %10.2f %10.2f %12d\n", "gcheap", NR, $1, $2, $3 / 1024 }' "$tmp/g.rows"
awk '{ printf "%-8s %-7d %10.2f %10.2f %12d\n", "memlab", NR, $1, $2, $3 / 1024 }' "$tmp/m.rows"
printf '%-8s %-7s %10.2f %10.2f %12d\n' gcheap median "$gw" "$gc" $((${gr%.*} / 1024))
printf '%-8s %-7s %10.2f %10.2f %12d\n' memlab median "$mw" "$mc" $((${mr%.*} / 1024))
awk -v gw="$gw" -v mw="$mw" -v gc="$gc" -v mc="$mc" -v gr="$gr" -v mr="$mr" \
    'BEGIN { printf "gcheap is %.1fx faster (wall; %.1fx in CPU time) in %.1fx less memory (medians)\n",
             mw / (gw > 0 ? gw : 0.001), mc / (gc > 0 ? gc : 0.001), mr / gr }'
echo
echo "top $n retainers (id, self, retained, type): gcheap | memlab"
tail -n +2 "$tmp/g.tsv" | cut -f1-4 | paste - "$tmp/m.tsv" |
    awk -F'\t' '{ printf "%-10s %10s %12s  %-24.24s | %-10s %10s %12s  %s\n", $1, $2, $3, $4, $5, $6, $7, $8 }'
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
