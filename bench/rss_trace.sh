#!/bin/bash
# rss_trace.sh - where a command's peak memory comes: samples the resident set
# (VmRSS of /proc/PID/status) of a command every 10 ms and prints each step of
# more than STEP MB (default 16) with the time since the start, then the peak
# sampled (the exact peak is what /usr/bin/time -f %M reports). Linux only;
# the command's stdout goes to /dev/null.
#
#   bash bench/rss_trace.sh [--step MB] COMMAND [ARGS...]
#   bash bench/rss_trace.sh build/gcheap top /tmp/gcheap-bench/gendump-v1-n10000000-s1-r2.5-k1.gclog
#
# Match the steps to the phases by time: `top` loads (the RSS climbs with the
# parse and the reference resolution, then drops to the heap model), then
# builds the dominator tree (climbs again to the edge classification's peak).
set -u
step=16
if [ "${1:-}" = "--step" ]; then step=$2; shift 2; fi
[ $# -ge 1 ] || { echo "usage: rss_trace.sh [--step MB] COMMAND [ARGS...]" >&2; exit 2; }
"$@" > /dev/null &
pid=$!
t0=$(date +%s%N)
last=0 peak=0
while kill -0 "$pid" 2> /dev/null; do
    r=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status" 2> /dev/null)
    [ -n "$r" ] || break
    d=$((r - last))
    [ "$d" -lt 0 ] && d=$((-d))
    if [ "$d" -gt $((step * 1024)) ]; then
        printf '%7d ms  %8.1f MiB\n' $((($(date +%s%N) - t0) / 1000000)) "$(awk -v k="$r" 'BEGIN { print k / 1024 }')"
        last=$r
    fi
    [ "$r" -gt "$peak" ] && peak=$r
    sleep 0.01
done
wait "$pid"
rc=$?
printf 'sampled peak %.1f MiB; exit status %d\n' "$(awk -v k="$peak" 'BEGIN { print k / 1024 }')" "$rc"
exit "$rc"
