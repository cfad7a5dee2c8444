#!/bin/bash
# ab.sh - compare two gcheap builds on one dump, runs interleaved (A, B, A, B,
# ...) so that drift of a shared machine hits both alike; prints, for each,
# the median and every wall time, the median processor time (user + system,
# all threads) and the largest peak RSS. On a machine that other jobs load,
# wall times mostly measure waiting; processor time is the steadier figure
# (it is 10 ms grained: compare it on inputs that take a second or more).
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
TIME=/usr/bin/time
[ -x "$TIME" ] || TIME=
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
declare -a TA TB CA CB MA MB
for ((i = 0; i < RUNS; i++)); do
    for which in A B; do
        bin=$A
        [ $which = B ] && bin=$B
        s=$(date +%s%N)
        if [ -n "$TIME" ]; then
            "$TIME" -f '%U %S %M' -o "$tmp" "$bin" "$@" >/dev/null 2>&1 ||
                { echo "ab.sh: $bin $* failed" >&2; exit 2; }
        else
            "$bin" "$@" >/dev/null 2>&1 || { echo "ab.sh: $bin $* failed" >&2; exit 2; }
            echo '0 0 0' >"$tmp"
        fi
        e=$(date +%s%N)
        ms=$(( (e - s) / 1000000 ))
        cpu=$(awk '{printf "%d", ($1 + $2) * 1000}' "$tmp")
        rss=$(awk '{print $3}' "$tmp")
        if [ $which = A ]; then TA+=("$ms"); CA+=("$cpu"); MA+=("$rss")
        else TB+=("$ms"); CB+=("$cpu"); MB+=("$rss"); fi
    done
done
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
report() {
    local name=$1 n=$2
    shift 2
    local wall=("${@:1:n}") cpu=("${@:n+1:n}") rss=("${@:2*n+1:n}")
    local sorted
    sorted=$(printf '%s\n' "${wall[@]}" | sort -n | tr '\n' ' ')
    printf '%s  median %s ms  [%s]' "$name" "$(median "${wall[@]}")" "${sorted% }"
    [ -n "$TIME" ] && printf '  cpu median %s ms  peak %s KB' "$(median "${cpu[@]}")" \
        "$(printf '%s\n' "${rss[@]}" | sort -n | tail -1)"
    printf '\n'
}
report "A $A" "$RUNS" "${TA[@]}" "${CA[@]}" "${MA[@]}"
report "B $B" "$RUNS" "${TB[@]}" "${CB[@]}" "${MB[@]}"
