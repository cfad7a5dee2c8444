#!/bin/bash
# ab.sh - compare two gcheap builds on one dump, runs interleaved (A, B, A, B,
# ...) so that drift of a shared machine hits both alike; prints the median
# and every wall time of each.
#
#   bash bench/ab.sh [--runs N] BIN_A BIN_B COMMAND [ARGS...] FILE
#
# Example (the round-3 code against the working tree, 7 runs each):
#   git worktree add /tmp/old bda6b14 && cmake -S /tmp/old -B /tmp/old/build \
#     -DCMAKE_BUILD_TYPE=Release && cmake --build /tmp/old/build -j2 --target gcheap
#   bash bench/ab.sh --runs 7 /tmp/old/build/gcheap build/gcheap top \
#     /tmp/gcheap-bench/gendump-v1-n10000000-s1-r2.5-k1.gclog
set -u
RUNS=5
if [ "${1:-}" = "--runs" ]; then
    RUNS=$2
    shift 2
fi
if [ $# -lt 4 ]; then
    echo "usage: ab.sh [--runs N] BIN_A BIN_B COMMAND [ARGS...] FILE" >&2
    exit 2
fi
A=$1 B=$2
shift 2
declare -a TA TB
for ((i = 0; i < RUNS; i++)); do
    for which in A B; do
        bin=$A
        [ $which = B ] && bin=$B
        s=$(date +%s%N)
        "$bin" "$@" >/dev/null 2>&1 || { echo "ab.sh: $bin $* failed" >&2; exit 2; }
        e=$(date +%s%N)
        ms=$(( (e - s) / 1000000 ))
        if [ $which = A ]; then TA+=("$ms"); else TB+=("$ms"); fi
    done
done
report() {
    local name=$1
    shift
    local sorted
    sorted=$(printf '%s\n' "$@" | sort -n | tr '\n' ' ')
    local med
    med=$(printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
    printf '%s  median %s ms  [%s]\n' "$name" "$med" "${sorted% }"
}
report "A $A" "${TA[@]}"
report "B $B" "${TB[@]}"
