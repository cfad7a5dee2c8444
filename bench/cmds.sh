#!/bin/bash
# cmds.sh - compare two commands of one gcheap build on one dump, runs
# interleaved (A, B, A, B, ...) so that drift of a shared machine hits both
# alike; prints, for each, the median wall time and the median CPU time
# (user + system, GNU time: less sensitive to a busy host than wall time) and
# their ratios B / A.
#
#   bash bench/cmds.sh [--runs N] BIN FILE COMMAND_A COMMAND_B
#
# Example (leak suspects against top, the target of issue 17: at most 1.20):
#   bash bench/cmds.sh --runs 7 build/gcheap /tmp/gcheap-bench/gendump-v1-n10000000-s1-r2.5-k1.gclog top suspects
set -u
RUNS=5
if [ "${1:-}" = "--runs" ]; then
    RUNS=$2
    shift 2
fi
if [ $# -ne 4 ]; then
    echo "usage: cmds.sh [--runs N] BIN FILE COMMAND_A COMMAND_B" >&2
    exit 2
fi
BIN=$1 FILE=$2 A=$3 B=$4
TIME_BIN=/usr/bin/time
[ -x "$TIME_BIN" ] || { echo "cmds.sh: needs GNU time (apt-get install time)" >&2; exit 2; }
tf=$(mktemp) || exit 2
trap 'rm -f "$tf"' EXIT
declare -a WA WB CA CB
for ((i = 0; i < RUNS; i++)); do
    for which in A B; do
        cmd=$A
        [ $which = B ] && cmd=$B
        s=$(date +%s%N)
        "$TIME_BIN" -o "$tf" -f '%U %S' "$BIN" "$cmd" -q "$FILE" >/dev/null 2>&1 ||
            { echo "cmds.sh: $BIN $cmd $FILE failed" >&2; exit 2; }
        e=$(date +%s%N)
        ms=$(( (e - s) / 1000000 ))
        cpu=$(awk 'NF == 2 { printf "%d", ($1 + $2) * 1000 }' "$tf")
        if [ $which = A ]; then WA+=("$ms"); CA+=("$cpu"); else WB+=("$ms"); CB+=("$cpu"); fi
    done
done
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
mwa=$(median "${WA[@]}") mwb=$(median "${WB[@]}") mca=$(median "${CA[@]}") mcb=$(median "${CB[@]}")
printf '%-10s wall median %6s ms [%s]  cpu median %6s ms [%s]\n' "$A" "$mwa" "${WA[*]}" "$mca" "${CA[*]}"
printf '%-10s wall median %6s ms [%s]  cpu median %6s ms [%s]\n' "$B" "$mwb" "${WB[*]}" "$mcb" "${CB[*]}"
awk -v a="$mwa" -v b="$mwb" -v c="$mca" -v d="$mcb" -v A="$A" -v B="$B" \
    'BEGIN { printf "%s / %s: wall %.2f, cpu %.2f\n", B, A, b / a, d / c }'
