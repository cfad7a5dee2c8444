#!/usr/bin/env bash
# bench/index_bench.sh - the persistent index (issue 33): on one .gclog dump,
# the index's build against `top` from the dump, its size against the dump's,
# and each question (top, retainers ID, objects --type T --top 10, refs ID,
# stat, suspects) from the dump (--no-index) and from the index, run in turn
# (interleaved, --runs rounds), medians of wall and CPU (user+sys) time, the
# ratios and the issue's targets: each question >= 20x faster from the index
# and <= 0.3 s; the build <= 1.5x top from the dump; the index <= 2x the dump.
#
#   bench/index_bench.sh [--gcheap PATH] [--runs N] [--build-only] DUMP.gclog
#
# --build-only: the build against top from the dump alone (no questions).
# The load average is printed before and after (the machine is shared: the
# wall times are only worth what it says).
#
# Called by `bench/run.sh --index` on the 10M-object dump. The index is
# written beside a symlink to the dump in a scratch folder.
set -u
GCHEAP=$(cd "$(dirname "$0")/.." && pwd)/build/gcheap
RUNS=3
BUILD_ONLY=0
while [ $# -gt 1 ]; do
    case $1 in
    --gcheap) GCHEAP=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --build-only) BUILD_ONLY=1; shift ;;
    *) break ;;
    esac
done
usage="usage: $0 [--gcheap PATH] [--runs N] [--build-only] DUMP.gclog"
case ${1:-} in -h|--help) echo "$usage"; exit 0 ;; esac
[ $# -eq 1 ] || { echo "$usage" >&2; exit 2; }
[ -f "$1" ] || { echo "index_bench.sh: $1: no such file" >&2; exit 2; }
src=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$(mktemp -d "${TMPDIR:-/tmp}/index-bench.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
d=$work/$(basename "$src")
ln -s "$src" "$d"

lscpu 2>/dev/null | grep -m1 'Model name' || true
echo "dump: $src ($(stat -L -c %s "$src") bytes), $RUNS rounds"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"

# one KEY CMD...: one run; appends "wall cpu rss" to $work/KEY.
one() {
    local key=$1
    shift
    /usr/bin/time -f '%e %U %S %M' -o "$work/t" "$@" > /dev/null 2>&1
    awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$work/t" >> "$work/$key"
}
med() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
col() { awk -v c="$2" '{ print $c }' "$work/$1" | med; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "inf" }'; }

# The build against top from the dump, in turn.
for _ in $(seq "$RUNS"); do
    rm -f "$d.gcx"
    one build "$GCHEAP" index "$d"
    one topdump "$GCHEAP" top --no-index "$d"
done
isize=$(stat -c %s "$d.gcx")
dsize=$(stat -L -c %s "$src")
build_lines() {
    bw=$(col build 1) bc=$(col build 2) tw=$(col topdump 1) tc=$(col topdump 2)
    echo "index build: wall $bw s, cpu $bc s, peak $(col build 3) KB; top from the dump: wall $tw s, cpu $tc s, peak $(col topdump 3) KB"
    echo "build / top: wall $(ratio "$bw" "$tw"), cpu $(ratio "$bc" "$tc") (target <= 1.5)"
    echo "index size: $isize bytes, $(ratio "$isize" "$dsize")x the dump (target <= 2)"
}
if [ "$BUILD_ONLY" = 1 ]; then
    echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
    build_lines
    exit 0
fi

id=$("$GCHEAP" top --top 1 --format tsv "$d" 2>/dev/null | awk -F'\t' 'NR == 2 { print $1 }')
type=$("$GCHEAP" stat --top 1 --format tsv "$d" 2>/dev/null | awk -F'\t' 'NR == 2 { print $3 }')
names=(top retainers objects refs stat suspects)
argv_of() {
    case $1 in
    top) echo "top" ;;
    retainers) echo "retainers @ $id" ;;
    objects) echo "objects --type $type --top 10" ;;
    refs) echo "refs @ $id" ;;
    stat) echo "stat" ;;
    suspects) echo "suspects" ;;
    esac
}
for _ in $(seq "$RUNS"); do
    for q in "${names[@]}"; do
        # shellcheck disable=SC2046 # split on purpose
        set -- $(argv_of "$q")
        c=$1
        shift
        a=()
        for x in "$@"; do [ "$x" = @ ] && x=$d; a+=("$x"); done
        [ "$c" = refs ] || [ "$c" = retainers ] || a+=("$d")
        one "$q.dump" "$GCHEAP" "$c" --no-index "${a[@]}"
        one "$q.index" "$GCHEAP" "$c" "${a[@]}"
    done
done

printf '\n%-34s %10s %10s %10s %10s %8s %8s\n' question "dump s" "index s" "dump cpu" "index cpu" "x wall" "x cpu"
fails=0
for q in "${names[@]}"; do
    dw=$(col "$q.dump" 1) iw=$(col "$q.index" 1) dc=$(col "$q.dump" 2) ic=$(col "$q.index" 2)
    printf '%-34s %10s %10s %10s %10s %8s %8s\n' "$(argv_of "$q" | sed 's/@ //')" "$dw" "$iw" "$dc" "$ic" \
        "$(ratio "$dw" "$iw")" "$(ratio "$dc" "$ic")"
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
build_lines
echo
echo "targets (each question from the index: >= 20x faster in wall time and <= 0.3 s):"
for q in "${names[@]}"; do
    dw=$(col "$q.dump" 1) iw=$(col "$q.index" 1)
    v=$(awk -v a="$dw" -v b="$iw" 'BEGIN { print (b > 0 && a / b >= 20 && b <= 0.3) ? "PASS" : "FAIL" }')
    [ "$v" = PASS ] || fails=$((fails + 1))
    echo "  $v  $q"
done
exit 0
