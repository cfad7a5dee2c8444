#!/usr/bin/env bash
# bench/run.sh - the gcheap benchmark: generates synthetic .gclog dumps with
# gendump, times gcheap's commands on them and prints one report table plus
# the target checks. It is a report: it exits 0 even when targets fail.
#
#   bench/run.sh [--gcheap PATH] [--gendump PATH] [--inflate-bench PATH] [--sizes "1000000 10000000"]
#                [--runs N] [--quick] [--seed S] [--dir DIR] [--hprof N]
#                [--v8-sizes "1000000 10000000"] [--no-v8] [--huge] [--v8-huge] [--text] [--mcp]
#                [--ruby-objects N] [--no-ruby] [--flood]
#                [--jsc-sizes "1000000"] [--no-jsc] [--index]
#
# --index: only the persistent index (issue 33, bench/index_bench.sh) on the
# largest --sizes dump (10M objects by default): the index's build against
# `top` from the dump, its size, and top, retainers ID, objects --type T
# --top 10, refs ID, stat and suspects from the dump and from the index, in
# turn (--runs rounds), with the issue's targets.
#
# --mcp: only the loaded-heap row (issue 37, bench/mcp_bench.sh) on the 1M
# dump: in one `gcheap mcp` run, the first question against later ones
# (top with another --top, retainers of another id); target >= 20x. The
# default run ends with the same row.
#
# --flood: only the hashing-flood growth checks (build/tests/flood_bench: the
# inputs of tests/unit/test_flood.c at n and 4n, crafted and ordinary, timed;
# 4n must cost under 6x n and under 3x an ordinary input of its size).
#
# --text: only the .gclog text path on the largest --sizes dump (10M objects by
# default): `wc -l FILE`, `gcheap stat FILE`, `gcheap info FILE`,
# `cat FILE | wc -l` and `cat FILE | gcheap stat -`, the five run in turn
# (--runs rounds, default 5: interleaved, so drift hits all alike), medians of
# wall time, CPU time (user+sys; both processes of a pipe) and peak RSS, the
# ratios and the issue-19 targets (stat <= 4x wc -l, its peak RSS <= 64 MB;
# info <= 10x wc -l; cat | stat - <= 1.15x cat | wc -l), the pipe's floor
# (with pipe_read) and the parse alone in ns per object line (with
# gclog_parse_bench; both are built beside gcheap).
#
# --huge: only the 100M-object size (about 4 GB of .gclog, generated once into
# the dumps folder and reused): wc -l, stat and top (--no-index), then
# `gcheap index` into a scratch file and top from it, each run once (--runs),
# with wall and CPU (user+sys) time, peak RSS in bytes per object and per
# reference, the issue-19 targets (top within 60 s in at most 40 B/object
# + 8 B/reference) and issue 33's (top from the index under 3 s). Needs
# ~13 GB of disk (the index is ~8 GB, removed at the end) and a ~24 GB machine.
#
# HPROF rows: a real JVM (bench/java/Fill.java, needs java, javac, jcmd) fills
# its heap with about N objects (--hprof, default: the largest size; 0: none)
# and `jcmd PID GC.heap_dump` writes it; `stat` and `top` are timed on it and
# `top` is compared with `top` on the .gclog of the largest size, interleaved.
#
# Then bench/v8_bench.sh: real Node.js heap snapshots of --v8-sizes nodes
# (written once and cached), gcheap's stat and top on them, and memlab
# beside gcheap on the 1M one (skipped with --no-v8 or without node).
# Then bench/ruby_bench.sh: a real Ruby heap dump of --ruby-objects objects
# (default 1000000; written once by ruby and cached), gcheap per object
# against the .gclog reader on as many objects, heapy and Ruby's JSON.parse
# (skipped with --no-ruby or without ruby).
# Then bench/jsc_bench.sh: JavaScriptCore snapshots of --jsc-sizes cells
# written by Bun (cached), stat and top on them, and top on the V8-format
# snapshot of the same heap (skipped with --no-jsc or without bun).
# --v8-huge: only the V8 snapshot beyond memlab (21M nodes, generated once;
# bench/v8_bench.sh --huge): gcheap's top and stat, memlab with an 8 GB heap.
# Dumps go to ${GCHEAP_BENCH_DIR:-/tmp/gcheap-bench} (or --dir) and are reused
# when a dump with the same generator version and parameters is there.
# Every command runs under /usr/bin/time -f '%e %M' (peak RSS); wall time is
# taken with nanosecond `date` around it (falling back to %e), and each figure
# is the median of --runs runs (default 5). A command that fails or prints
# nothing (not implemented yet) is shown as n/a and not run again. The two
# ratios with targets (top's growth, the pipe against cat | wc -l) are measured again
# with the two commands run alternately, and those figures are checked.
# `wc -l FILE` and `cat FILE | wc -l` are the floors: reading the bytes, and
# moving them through a pipe to the lightest reader.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
GCHEAP=$root/build/gcheap
GENDUMP=
INFLATE_BENCH=
SIZES="1000000 10000000"
RUNS=5
SEED=1
RPO=2.5
DIR=${GCHEAP_BENCH_DIR:-/tmp/gcheap-bench}
V8_SIZES="1000000 10000000"
V8=1
JSC_SIZES="1000000"
JSC=1
HPROF_N=
HUGE=0
TEXT=0
HUGE_N=100000000
TIMEOUT=${GCHEAP_BENCH_TIMEOUT:-900}

usage() {
    sed -n '2,70s/^# \{0,1\}//p' "$0"
}

while [ $# -gt 0 ]; do
    case $1 in
    --gcheap) GCHEAP=$2; shift 2 ;;
    --gcheap=*) GCHEAP=${1#*=}; shift ;;
    --gendump) GENDUMP=$2; shift 2 ;;
    --gendump=*) GENDUMP=${1#*=}; shift ;;
    --inflate-bench) INFLATE_BENCH=$2; shift 2 ;;
    --inflate-bench=*) INFLATE_BENCH=${1#*=}; shift ;;
    --sizes) SIZES=$2; shift 2 ;;
    --sizes=*) SIZES=${1#*=}; shift ;;
    --runs) RUNS=$2; shift 2 ;;
    --runs=*) RUNS=${1#*=}; shift ;;
    --seed) SEED=$2; shift 2 ;;
    --seed=*) SEED=${1#*=}; shift ;;
    --dir) DIR=$2; shift 2 ;;
    --dir=*) DIR=${1#*=}; shift ;;
    --quick) SIZES="100000 1000000"; RUNS=1; V8_SIZES=1000000; shift ;;
    --v8-sizes) V8_SIZES=$2; shift 2 ;;
    --no-v8) V8=0; shift ;;
    --no-ruby) RUBY=0; shift ;;
    --ruby-objects) RUBY_N=$2; shift 2 ;;
    --jsc-sizes) JSC_SIZES=$2; shift 2 ;;
    --no-jsc) JSC=0; shift ;;
    --huge) HUGE=1; shift ;;
    --v8-huge) V8_HUGE=1; shift ;;
    --text) TEXT=1; shift ;;
    --flood) FLOOD=1; shift ;;
    --mcp) MCP_ONLY=1; shift ;;
    --index) INDEX_ONLY=1; shift ;;
    --hprof) HPROF_N=$2; shift 2 ;;
    --hprof=*) HPROF_N=${1#*=}; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    esac
done

[ "${V8_HUGE:-0}" = 1 ] && exec bash "$here/v8_bench.sh" --gcheap "$GCHEAP" --dir "$DIR" --huge
# --flood: the near-linear growth of loading hostile keys (issue 20), timed by
# test_flood.c built as a benchmark (build/tests/flood_bench, built with the
# tests); one PASS/FAIL line per attack, the fastest of five runs each.
if [ "${FLOOD:-0}" = 1 ]; then
    fb=$(dirname "$GCHEAP")/tests/flood_bench
    [ -x "$fb" ] || { echo "run.sh: no $fb (build with -DGCHEAP_TESTS=ON)" >&2; exit 0; }
    lscpu 2> /dev/null | grep -m1 'Model name' || true
    "$fb" 2>&1 | grep -E '^(PASS|FAIL)'
    exit 0
fi
case $RUNS in ''|*[!0-9]*|0) echo "run.sh: --runs needs a positive number" >&2; exit 2 ;; esac
for n in $SIZES; do
    case $n in ''|*[!0-9]*) echo "run.sh: bad size '$n' in --sizes" >&2; exit 2 ;; esac
done
# shellcheck disable=SC2086 # split on purpose
SIZES=$(printf '%s\n' $SIZES | sort -n | uniq | tr '\n' ' ')
[ -n "${SIZES// /}" ] || { echo "run.sh: --sizes is empty" >&2; exit 2; }

[ -n "$GENDUMP" ] || GENDUMP=$(dirname "$GCHEAP")/gendump
[ -n "$INFLATE_BENCH" ] || INFLATE_BENCH=$(dirname "$GCHEAP")/inflate_bench
if [ ! -x "$GENDUMP" ]; then
    echo "run.sh: $GENDUMP not found; build it: cmake --build build --target gendump" >&2
    exit 2
fi
if [ ! -x "$GCHEAP" ]; then
    echo "run.sh: warning: $GCHEAP not found; its commands will show as n/a" >&2
fi

log() { echo "run.sh: $*" >&2; }

TIME_BIN=${GCHEAP_BENCH_TIME:-/usr/bin/time}
HAVE_TIME=1
if [ ! -x "$TIME_BIN" ] || ! "$TIME_BIN" -f '%e %M' -o /dev/null true 2>/dev/null; then
    HAVE_TIME=0
    log "warning: GNU $TIME_BIN is missing: apt-get install time (peak RSS shows as n/a)"
fi
HAVE_NS=1
case $(date +%N 2>/dev/null) in ''|*[!0-9]*) HAVE_NS=0 ;; esac
HAVE_TIMEOUT=0
command -v timeout >/dev/null 2>&1 && HAVE_TIMEOUT=1

mkdir -p "$DIR" || { echo "run.sh: cannot create $DIR" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/gcheap-run.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- dumps


GENVER=$("$GENDUMP" --version 2>/dev/null | awk '{print $2}')
[ -n "$GENVER" ] || GENVER=0

# dump N: prints the path of the dump of N objects, generating it if needed.
dump() {
    local n=$1
    local f="$DIR/gendump-v$GENVER-n$n-s$SEED-r$RPO-k1.gclog"
    if [ -s "$f" ] && [ -s "$f.summary" ]; then
        log "reusing $f"
    else
        local avail need
        avail=$(df -Pk "$DIR" | awk 'NR==2 {print $4}')
        need=$(( n * 50 / 1024 + 1024 ))
        if [ -n "$avail" ] && [ "$avail" -lt "$need" ]; then
            log "not enough space in $DIR for $n objects (need ~${need} KB, have ${avail} KB)"
            return 1
        fi
        log "generating $n objects into $f"
        rm -f "$f" "$f.summary"
        if ! "$GENDUMP" --objects "$n" --seed "$SEED" --refs-per-object "$RPO" \
            -o "$f.tmp" 2>"$f.summary.tmp"; then
            cat "$f.summary.tmp" >&2
            rm -f "$f.tmp" "$f.summary.tmp"
            return 1
        fi
        mv "$f.summary.tmp" "$f.summary" && mv "$f.tmp" "$f"
        log "$(cat "$f.summary")"
    fi
    printf '%s\n' "$f"
}

# ---------------------------------------------------------------- timing

# The loaded-heap row (issue 37): one `gcheap mcp` run, a first question and
# later ones on the 1M-object dump.
mcp_row() {
    local f
    f=$(dump 1000000) || return
    echo
    bash "$here/mcp_bench.sh" --gcheap "$GCHEAP" --dump "$f" --runs "$RUNS"
}
if [ "${MCP_ONLY:-0}" = 1 ]; then
    mcp_row
    exit 0
fi
# The persistent index (issue 33) on the largest size.
if [ "${INDEX_ONLY:-0}" = 1 ]; then
    n=$(printf '%s\n' $SIZES | tail -n 1)
    f=$(dump "$n") || exit 0
    bash "$here/index_bench.sh" --gcheap "$GCHEAP" --runs "$RUNS" "$f"
    exit 0
fi

# run_once OUT ERR CMD...: runs CMD; sets R_RC, R_WALL (s), R_RSS (KB or "").
run_once() {
    local out=$1 err=$2; shift 2
    local tf="$work/time" t0 t1 pre=()
    [ "$HAVE_TIMEOUT" = 1 ] && pre=(timeout "$TIMEOUT")
    : >"$tf"
    t0=$(date +%s%N 2>/dev/null)
    if [ "$HAVE_TIME" = 1 ]; then
        ${pre[@]+"${pre[@]}"} "$TIME_BIN" -o "$tf" -f '%e %M' "$@" >"$out" 2>"$err"
        R_RC=$?
    else
        ${pre[@]+"${pre[@]}"} "$@" >"$out" 2>"$err"
        R_RC=$?
    fi
    t1=$(date +%s%N 2>/dev/null)
    local line
    line=$(tail -n 1 "$tf")
    R_RSS=
    [ "$HAVE_TIME" = 1 ] && R_RSS=$(printf '%s\n' "$line" | awk 'NF == 2 {print $2}')
    if [ "$HAVE_NS" = 1 ]; then
        R_WALL=$(awk -v a="$t0" -v b="$t1" -v o="$OVERHEAD" 'BEGIN {w = (b - a) / 1e9 - o; if (w < 0.0001) w = 0.0001; printf "%.4f", w}')
    else
        R_WALL=$(printf '%s\n' "$line" | awk 'NF == 2 {print $1}')
    fi
}

median() { # values on stdin, one per line; prints the median or nothing
    sort -g | awk '{v[NR] = $1} END {if (NR == 0) exit; if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}

# Results: RES_<key>_<size> variables: wall, rss (KB), status ("" ok, else reason).
set_res() { printf -v "RES_$1_$2" '%s' "$3"; }
get_res() { local v="RES_$1_$2"; printf '%s' "${!v-}"; }

# measure KEY SIZE CMD...: median wall/RSS over RUNS runs.
measure() {
    local key=$1 n=$2; shift 2
    local walls="" rsses="" i
    if [ "$key" != wc ] && [ ! -x "$GCHEAP" ]; then
        set_res "${key}_status" "$n" "not built: $GCHEAP"
        return
    fi
    for ((i = 1; i <= RUNS; i++)); do
        run_once "$work/out" "$work/err" "$@"
        if [ "$R_RC" != 0 ] || { [ "$key" != wc ] && [ ! -s "$work/out" ]; }; then
            local why
            if [ "$R_RC" = 124 ] && [ "$HAVE_TIMEOUT" = 1 ]; then
                why="timed out after ${TIMEOUT}s"
            elif [ "$R_RC" != 0 ]; then
                why="exit $R_RC: $(grep -v '^Command exited' "$work/err" | head -n 1 | cut -c1-60)"
            else
                why="no output"
            fi
            log "  $key: n/a ($why)"
            set_res "${key}_status" "$n" "$why"
            return
        fi
        walls+="$R_WALL"$'\n'
        [ -n "$R_RSS" ] && rsses+="$R_RSS"$'\n'
        log "  $key run $i: ${R_WALL}s ${R_RSS:-?} KB"
    done
    set_res "${key}_wall" "$n" "$(printf '%s' "$walls" | median)"
    set_res "${key}_rss" "$n" "$(printf '%s' "$rsses" | median)"
    set_res "${key}_status" "$n" ""
}

# interleave: runs the commands in the arrays pair_a and pair_b alternately,
# RUNS times each, so that drift of a shared machine hits both alike; sets
# IL_A and IL_B to their median wall times. Returns 1 if a run fails.
interleave() {
    local wa="" wb="" i
    for ((i = 1; i <= RUNS; i++)); do
        run_once "$work/out" "$work/err" "${pair_a[@]}"
        [ "$R_RC" = 0 ] || return 1
        wa+="$R_WALL"$'\n'
        run_once "$work/out" "$work/err" "${pair_b[@]}"
        [ "$R_RC" = 0 ] || return 1
        wb+="$R_WALL"$'\n'
    done
    IL_A=$(printf '%s' "$wa" | median)
    IL_B=$(printf '%s' "$wb" | median)
}

# The harness's own cost (fork/exec of timeout, time, date), subtracted from
# every wall time: the median of a few runs of `true`.
OVERHEAD=0
if [ "$HAVE_NS" = 1 ]; then
    ov=""
    for i in 1 2 3 4 5; do run_once /dev/null /dev/null true; ov+="$R_WALL"$'\n'; done
    OVERHEAD=$(printf '%s' "$ov" | median)
    log "harness overhead ${OVERHEAD}s (subtracted from wall times)"
fi

# --huge: the 100M-object size alone, each command once (--runs), with CPU time.
if [ "$HUGE" = 1 ]; then
    f=$(dump "$HUGE_N") || { echo "run.sh: no $HUGE_N-object dump" >&2; exit 0; }
    hb=$(wc -c <"$f" | tr -d ' ')
    ho=$(awk '{for (i = 1; i < NF; i++) if ($i == "objects") print $(i + 1)}' "$f.summary")
    hr=$(awk '{for (i = 1; i < NF; i++) if ($i == "references") print $(i + 1)}' "$f.summary")
    echo
    echo "gcheap --huge  ($(date -u '+%Y-%m-%d %H:%M UTC'), $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1), runs=$RUNS)"
    echo "dump: $f  ($(awk -v b="$hb" 'BEGIN {printf "%.2f", b / 1e9}') GB, $ho objects, $hr references)"
    printf '%-14s %8s %8s %9s %9s %9s\n' command "wall s" "CPU s" "RSS MB" "B/object" "B/ref"
    cat "$f" >/dev/null 2>&1 # warm what the page cache can hold
    huge_wall="" huge_rss="" hx_wall="" hx_top=""
    # The index (issue 33) goes to a scratch file so the dump rows above stay
    # parses; it is removed at the end (~8 GB).
    hx=$work/huge.gcx
    for cmd in "wc -l" stat top index "top (index)"; do
        for ((i = 1; i <= RUNS; i++)); do
            case $cmd in
            "wc -l") set -- wc -l "$f" ;;
            index) set -- "$GCHEAP" index --no-progress -o "$hx" "$f" ;;
            "top (index)") set -- "$GCHEAP" top --no-progress "$hx" ;;
            *) set -- "$GCHEAP" "$cmd" --no-index "$f" ;;
            esac
            pre=()
            [ "$HAVE_TIMEOUT" = 1 ] && pre=(timeout "$TIMEOUT")
            ${pre[@]+"${pre[@]}"} "$TIME_BIN" -o "$work/htime" -f '%e %U %S %M' "$@" >/dev/null 2>"$work/herr"
            rc=$?
            line=$(tail -n 1 "$work/htime")
            if [ "$rc" != 0 ]; then
                printf '%-14s n/a (exit %s: %s)\n' "$cmd" "$rc" "$(head -n 1 "$work/herr" | cut -c1-60)"
                continue
            fi
            awk -v c="$cmd" -v l="$line" -v o="$ho" -v r="$hr" 'BEGIN {
                split(l, t, " "); rss = t[4] * 1024
                printf "%-14s %8.2f %8.2f %9.1f %9.2f %9.2f\n", c, t[1], t[2] + t[3], rss / 1e6, rss / o, rss / r }'
            case $cmd in
            top)
                huge_wall=$(printf '%s' "$line" | awk '{print $1}')
                huge_rss=$(printf '%s' "$line" | awk '{print $4}') ;;
            index) hx_wall=$(printf '%s' "$line" | awk '{print $1}') ;;
            "top (index)") hx_top=$(printf '%s' "$line" | awk '{print $1}') ;;
            esac
        done
    done
    hx_size=$(stat -c %s "$hx" 2>/dev/null || echo 0)
    rm -f "$hx"
    echo
    echo "Targets (issue 19, $ho objects)"
    fails=""
    if [ -n "$huge_wall" ]; then
        budget=$(awk -v o="$ho" -v r="$hr" 'BEGIN { printf "%.1f", (40 * o + 8 * r) / 1e6 }')
        awk -v w="$huge_wall" 'BEGIN { printf "  %s  top wall time %.1f s (target <= 60 s)\n", w <= 60 ? "PASS" : "FAIL", w }'
        awk -v k="$huge_rss" -v b="$budget" 'BEGIN { m = k * 1024 / 1e6;
            printf "  %s  top peak RSS %.1f MB (target <= %s MB: 40 B/object + 8 B/reference)\n", m <= b ? "PASS" : "FAIL", m, b }'
    else
        echo "  n/a   top did not complete"
    fi
    echo "Targets (issue 33: the index of the same dump)"
    if [ -n "$hx_top" ] && [ -n "$hx_wall" ]; then
        awk -v s="$hx_size" -v b="$hb" -v w="$hx_wall" -v t="$huge_wall" 'BEGIN {
            printf "  info  index built in %.1f s wall (%.2fx top from the dump), %.2f GB (%.2fx the .gclog)\n",
                w, (t > 0 ? w / t : 0), s / 1e9, s / b }'
        awk -v w="$hx_top" 'BEGIN { printf "  %s  top from the index %.2f s wall (target < 3 s)\n", w < 3 ? "PASS" : "FAIL", w }'
    else
        echo "  n/a   the index or top from it did not complete"
    fi
    exit 0
fi

# --text: the .gclog text path of issue 19 on the largest size, interleaved.
if [ "$TEXT" = 1 ]; then
    n=$(echo "$SIZES" | awk '{print $NF}')
    f=$(dump "$n") || { echo "run.sh: no $n-object dump" >&2; exit 0; }
    echo
    echo "gcheap --text  ($(date -u '+%Y-%m-%d %H:%M UTC'), $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1), $(nproc 2>/dev/null) CPUs, runs=$RUNS, interleaved)"
    echo "dump: $f  ($(wc -c <"$f" | awk '{printf "%.1f", $1 / 1e6}') MB)"
    cat "$f" >/dev/null 2>&1 # warm the page cache
    text_cmds=("wc -l FILE" "gcheap stat FILE" "gcheap info FILE" "cat FILE | wc -l" "cat FILE | gcheap stat -"
        "cat FILE | pipe_read" "gcheap stat --threads 1 FILE")
    PIPE_READ=$(dirname "$GCHEAP")/pipe_read
    nk=7
    [ -x "$PIPE_READ" ] || nk=5
    : >"$work/text"
    # The wall time is taken with date's nanoseconds (time's %e has 10 ms),
    # less the harness's own cost: the median of a few runs of `true`.
    tov=""
    for i in 1 2 3 4 5; do
        t0=$(date +%s%N); "$TIME_BIN" -o /dev/null -f '%e' true; t1=$(date +%s%N)
        tov+="$((t1 - t0))"$'\n'
    done
    tov=$(printf '%s' "$tov" | median)
    for ((i = 1; i <= RUNS; i++)); do
        for ((k = 0; k < nk; k++)); do
            case $k in
            0) set -- wc -l "$f" ;;
            1) set -- "$GCHEAP" stat "$f" ;;
            2) set -- "$GCHEAP" info "$f" ;;
            3) set -- sh -c 'cat "$1" | wc -l' sh "$f" ;;
            4) set -- sh -c 'cat "$1" | "$2" stat -' sh "$f" "$GCHEAP" ;;
            5) set -- sh -c 'cat "$1" | "$2"' sh "$f" "$PIPE_READ" ;;
            6) set -- "$GCHEAP" stat --threads 1 "$f" ;;
            esac
            t0=$(date +%s%N)
            "$TIME_BIN" -o "$work/ttime" -f '%e %U %S %M' "$@" >/dev/null 2>"$work/terr" ||
                { echo "run.sh: ${text_cmds[$k]} failed: $(head -n 1 "$work/terr")" >&2; exit 0; }
            t1=$(date +%s%N)
            tail -n 1 "$work/ttime" | awk -v k="$k" -v ns="$((t1 - t0))" -v o="$tov" \
                '{w = (ns - o) / 1e9; if (w < 0.0001) w = 0.0001; printf "%s %.4f %s %s %s\n", k, w, $2, $3, $4}' >>"$work/text"
        done
    done
    printf '%-28s %8s %8s %9s
' command "wall s" "CPU s" "RSS MB"
    for ((k = 0; k < nk; k++)); do
        col() { awk -v k="$k" -v c="$1" '$1 == k {print (c == "cpu") ? $3 + $4 : (c == "wall") ? $2 : $5}' "$work/text" | median; }
        printf -v "TW$k" '%s' "$(col wall)"
        printf -v "TC$k" '%s' "$(col cpu)"
        printf -v "TR$k" '%s' "$(col rss)"
        v="TW$k" c="TC$k" r="TR$k"
        awk -v n="${text_cmds[$k]}" -v w="${!v}" -v c="${!c}" -v r="${!r}" \
            'BEGIN {printf "%-28s %8.2f %8.2f %9.1f\n", n, w, c, r * 1024 / 1e6}'
    done
    echo
    echo "Targets (issue 19, ratios of the medians above, wall time)"
    text_target() { # NAME VALUE LIMIT UNIT
        awk -v n="$1" -v v="$2" -v l="$3" -v u="$4" \
            'BEGIN {printf "  %s  %-40s %6.2f %s (target <= %s %s)\n", v <= l ? "PASS" : "FAIL", n, v, u, l, u}'
    }
    ratio_of() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.3f", a / b; else print 0}'; }
    text_target "stat / wc -l" "$(ratio_of "$TW1" "$TW0")" 4 x
    text_target "stat peak RSS" "$(awk -v r="$TR1" 'BEGIN {printf "%.1f", r * 1024 / 1e6}')" 64 MB
    text_target "info / wc -l" "$(ratio_of "$TW2" "$TW0")" 10 x
    text_target "cat | stat - / cat | wc -l" "$(ratio_of "$TW4" "$TW3")" 1.15 x
    echo "  (CPU time: stat $(ratio_of "$TC1" "$TC0")x wc -l, info $(ratio_of "$TC2" "$TC0")x, pipe $(ratio_of "$TC4" "$TC3")x)"
    if [ "$nk" = 7 ]; then
        # The pipe's floor on this machine: the transport (cat and the copy
        # into gcheap's buffers: cat | pipe_read) and the parse (stat on one
        # thread) share the CPUs; even packed perfectly they need this long.
        ncpu=$(nproc 2>/dev/null || echo 2)
        awk -v t="$TC5" -v p="$TC6" -v c="$ncpu" -v w="$TW3" 'BEGIN {
            f = (t + p) / c
            printf "  Pipe floor: (transport %.2f + parse %.2f CPU-s) / %d CPUs = %.3f s = %.2fx cat | wc -l\n", t, p, c, f, (w > 0) ? f / w : 0 }'
    fi
    # The parse alone (the reader's chunk_parse over the mapped dump, one
    # thread, no merge): the figure the pipe's floor moves with.
    PARSE_BENCH=$(dirname "$GCHEAP")/gclog_parse_bench
    if [ -x "$PARSE_BENCH" ]; then
        ns=$("$PARSE_BENCH" "$f" 5 2>/dev/null | sed -n 's|^\([0-9.]*\) ns/object.*|\1|p')
        echo "  Parse alone: ${ns:-n/a} ns per object line (gclog_parse_bench: histogram-only chunk_parse, one thread, best of 5)"
    fi
    exit 0
fi

KEYS="wc catwc stat pipe info top report"
label() {
    case $1 in
    wc) echo "wc -l FILE" ;;
    catwc) echo "cat | wc -l" ;;
    stat) echo "gcheap stat FILE" ;;
    pipe) echo "cat | gcheap stat -" ;;
    info) echo "gcheap info FILE" ;;
    top) echo "gcheap top FILE" ;;
    report) echo "gcheap report FILE" ;;
    esac
}

done_sizes=""
for n in $SIZES; do
    f=$(dump "$n") || { log "skipping $n objects"; continue; }
    set_res file "$n" "$f"
    set_res bytes "$n" "$(wc -c <"$f" | tr -d ' ')"
    set_res objects "$n" "$(awk '{for (i = 1; i < NF; i++) if ($i == "objects") print $(i + 1)}' "$f.summary")"
    set_res refs "$n" "$(awk '{for (i = 1; i < NF; i++) if ($i == "references") print $(i + 1)}' "$f.summary")"
    log "measuring $n objects ($RUNS runs each)"
    cat "$f" >/dev/null # warm the page cache
    measure wc "$n" wc -l "$f"
    # The floor of any reader of a pipe: the same bytes through cat and a pipe.
    # shellcheck disable=SC2016 # expanded by the inner sh
    measure catwc "$n" sh -c 'cat "$1" | wc -l' sh "$f"
    measure stat "$n" "$GCHEAP" stat "$f"
    # shellcheck disable=SC2016 # expanded by the inner sh
    measure pipe "$n" sh -c 'cat "$1" | "$2" stat -' sh "$f" "$GCHEAP"
    measure info "$n" "$GCHEAP" info "$f"
    measure top "$n" "$GCHEAP" top "$f"
    # The HTML report (to stdout); its size, and a copy for the browser check.
    measure report "$n" "$GCHEAP" report "$f"
    if [ -z "$(get_res report_status "$n")" ]; then
        set_res report_bytes "$n" "$(wc -c <"$work/out" | tr -d ' ')"
        cp "$work/out" "$DIR/report-$n.html"
    fi
    done_sizes+="$n "
done

[ -n "$done_sizes" ] || { echo "run.sh: no dump could be measured" >&2; exit 0; }

# The two ratios with a target are measured again with interleaved runs: the
# runs above are minutes apart, and a shared machine drifts by ~10 % in that
# time (docs/performance.md).
small=${done_sizes%% *}
big=$(echo "$done_sizes" | awk '{print $NF}')
gti="" pri=""
if [ "$small" != "$big" ] && [ -z "$(get_res top_status "$small")$(get_res top_status "$big")" ]; then
    log "interleaving top on the $small- and $big-object dumps ($RUNS runs each)"
    pair_a=("$GCHEAP" top "$(get_res file "$small")")
    pair_b=("$GCHEAP" top "$(get_res file "$big")")
    interleave && gti=$(awk -v a="$IL_A" -v b="$IL_B" 'BEGIN { if (a > 0) printf "%.2f", b / a }') &&
        gti_how="medians $IL_A s and $IL_B s"
fi
# suspects (leak suspects: the dominator tree plus its passes and a BFS) against
# top on the same dump: the target is at most 20 % more.
sti=""
if [ -z "$(get_res top_status "$big")" ]; then
    log "interleaving top and suspects on the $big-object dump ($RUNS runs each)"
    pair_a=("$GCHEAP" top "$(get_res file "$big")")
    pair_b=("$GCHEAP" suspects "$(get_res file "$big")")
    interleave && sti=$(awk -v a="$IL_A" -v b="$IL_B" 'BEGIN { if (a > 0) printf "%.2f", b / a }') &&
        sti_how="medians $IL_A s and $IL_B s"
fi
# The pipe against its floor (issue 19 restated the earlier "pipe at most 15%
# slower than the file" this way): cat | stat - against cat | wc -l.
if [ -z "$(get_res pipe_status "$big")" ]; then
    log "interleaving cat | wc -l and cat | gcheap stat - ($RUNS runs each)"
    # shellcheck disable=SC2016 # expanded by the inner sh
    pair_a=(sh -c 'cat "$1" | wc -l' sh "$(get_res file "$big")")
    # shellcheck disable=SC2016 # expanded by the inner sh
    pair_b=(sh -c 'cat "$1" | "$2" stat -' sh "$(get_res file "$big")" "$GCHEAP")
    interleave && pri=$(awk -v a="$IL_A" -v b="$IL_B" 'BEGIN { if (a > 0) printf "%.2f", b / a }') &&
        pri_how="medians $IL_A s and $IL_B s"
fi

# ---------------------------------------------------------------- HPROF

# hprof_dump N: prints the path of a heap dump of a JVM holding about N
# objects (bench/java/Fill.java), writing it if needed.
hprof_dump() {
    local n=$1 f="$DIR/fill-n$1.hprof"
    if [ -s "$f" ]; then
        log "reusing $f"
        printf '%s\n' "$f"
        return 0
    fi
    for t in java javac jcmd; do
        command -v $t >/dev/null 2>&1 || { log "no $t: no HPROF rows (apt-get install openjdk-17-jdk-headless)"; return 1; }
    done
    javac -d "$work" "$here/java/Fill.java" || return 1
    local heap_mb=$(( n / 12500 + 256 ))
    mkfifo "$work/fill.in" || return 1
    java -Xmx${heap_mb}m -XX:+UseParallelGC -cp "$work" Fill "$n" <"$work/fill.in" >"$work/fill.out" &
    local pid=$! i=0
    exec 7>"$work/fill.in"
    while [ ! -s "$work/fill.out" ] && [ $i -lt 3000 ]; do sleep 0.2; i=$((i + 1)); done
    log "dumping the heap of Fill ($n objects) into $f"
    jcmd "$pid" GC.heap_dump "$f.tmp" >&2 && mv "$f.tmp" "$f"
    echo >&7
    exec 7>&-
    wait "$pid"
    [ -s "$f" ] && printf '%s\n' "$f"
}

[ -n "$HPROF_N" ] || HPROF_N=$(echo "$SIZES" | awk '{print $NF}')
hprof_file=""
hti="" htm="" hwi=""
if [ "$HPROF_N" != 0 ] && hprof_file=$(hprof_dump "$HPROF_N"); then
    set_res bytes hprof "$(wc -c <"$hprof_file" | tr -d ' ')"
    set_res objects hprof "$("$GCHEAP" info "$hprof_file" 2>/dev/null | awk '$1 == "objects" {print $2}')"
    set_res refs hprof "$("$GCHEAP" info "$hprof_file" 2>/dev/null | awk '$1 == "references" {print $2}')"
    log "measuring the HPROF dump ($RUNS runs each)"
    cat "$hprof_file" >/dev/null
    measure hstat hprof "$GCHEAP" stat "$hprof_file"
    measure htop hprof "$GCHEAP" top "$hprof_file"
    # issue 32: waste (contents hashed and compared, collections read) at
    # most 2x stat on the same dump, interleaved.
    log "interleaving stat and waste on the HPROF dump ($RUNS runs each)"
    pair_a=("$GCHEAP" stat -q "$hprof_file")
    pair_b=("$GCHEAP" waste -q "$hprof_file")
    interleave && hwi=$(awk -v a="$IL_A" -v b="$IL_B" 'BEGIN { if (a > 0) printf "%.2f", b / a }') &&
        hwi_how="medians $IL_A s and $IL_B s"
    gbig=$(echo "$done_sizes" | awk '{print $NF}')
    if [ -z "$(get_res htop_status hprof)$(get_res top_status "$gbig")" ]; then
        log "interleaving top on the HPROF dump and on the $gbig-object .gclog ($RUNS runs each)"
        pair_a=("$GCHEAP" top "$hprof_file")
        pair_b=("$GCHEAP" top "$(get_res file "$gbig")")
        interleave && hti=$(awk -v a="$IL_A" -v b="$IL_B" 'BEGIN { if (b > 0) printf "%.2f", a / b }') &&
            hti_how="medians $IL_A s and $IL_B s"
        htm=$(awk -v a="$(get_res htop_rss hprof)" -v b="$(get_res top_rss "$gbig")" \
            'BEGIN { if (a != "" && b > 0) printf "%.2f", a / b }')
    fi
else
    hprof_file=""
fi

# The report against top on the biggest dump, interleaved: the report does
# top's work (load, dominator tree) plus its summary, retained sizes by type
# and the page.
rti=""
if [ -z "$(get_res top_status "$big")$(get_res report_status "$big")" ]; then
    log "interleaving top and report on the $big-object dump ($RUNS runs each)"
    pair_a=("$GCHEAP" top "$(get_res file "$big")")
    pair_b=("$GCHEAP" report "$(get_res file "$big")")
    interleave && rti=$(awk -v a="$IL_A" -v b="$IL_B" 'BEGIN { if (a > 0) printf "%.3f", b / a }') &&
        rti_how="medians $IL_A s and $IL_B s"
fi
# The biggest report in headless Chromium (tests/browser/check_report.js):
# drawn, no console error, no network request.
render=""
chromium_bin=$(command -v chromium || true)
if [ -z "$(get_res report_status "$big")" ] && [ -n "$chromium_bin" ] && command -v node >/dev/null; then
    log "opening the $big-object report in headless Chromium"
    if node "$root/tests/browser/check_report.js" "$chromium_bin" "$DIR/report-$big.html" \
        >"$work/render" 2>&1; then
        render="ok ($(grep -o 'in [0-9]* ms from launch' "$work/render"))"
    else
        render="FAILED: $(grep -v '^ok' "$work/render" | head -n 3 | tr '\n' ' ')"
    fi
fi

# Decompression: gcheap's inflater (bench/inflate_bench.c, the gzip reader
# alone, every CRC checked, output thrown away) beside `gzip -dc FILE.gz >
# /dev/null` on the same .gz of the biggest dump (gzip -6, kept beside it),
# run alternately. CPU time (user + system) is compared as well as wall time:
# on a shared machine the wall time mostly measures the wait for a core.
gzr=""
if command -v gzip >/dev/null 2>&1 && [ -x "$INFLATE_BENCH" ] && [ "$HAVE_TIME" = 1 ]; then
    src=$(get_res file "$big")
    gzf="$src.6.gz"
    if [ ! -s "$gzf" ]; then
        log "compressing $src with gzip -6"
        gzip -6 -c "$src" >"$gzf.tmp" && mv "$gzf.tmp" "$gzf"
    fi
    cat "$gzf" >/dev/null
    log "interleaving gzip -dc and inflate_bench on $gzf ($RUNS runs each)"
    # cpu_once CMD...: sets C_WALL and C_CPU (s) from GNU time.
    cpu_once() {
        "$TIME_BIN" -o "$work/ctime" -f '%e %U %S' "$@" >/dev/null 2>"$work/cerr" || return 1
        read -r C_WALL u s <"$work/ctime"
        C_CPU=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
    }
    gw="" gc="" iw="" ic="" ok=1
    for ((i = 1; i <= RUNS; i++)); do
        cpu_once sh -c 'gzip -dc "$1" >/dev/null' sh "$gzf" || { ok=0; break; }
        gw+="$C_WALL"$'\n'; gc+="$C_CPU"$'\n'
        cpu_once "$INFLATE_BENCH" "$gzf" || { ok=0; break; }
        iw+="$C_WALL"$'\n'; ic+="$C_CPU"$'\n'
    done
    if [ "$ok" = 1 ]; then
        GZ_WALL=$(printf '%s' "$gw" | median); GZ_CPU=$(printf '%s' "$gc" | median)
        IN_WALL=$(printf '%s' "$iw" | median); IN_CPU=$(printf '%s' "$ic" | median)
        gzr=1
    else
        log "  decompression: n/a ($(head -n 1 "$work/cerr"))"
    fi
fi

# ---------------------------------------------------------------- report

human() { # objects count -> 1M, 100k, 12345
    awk -v n="$1" 'BEGIN { if (n % 1000000 == 0) print n / 1000000 "M"; else if (n % 1000 == 0) print n / 1000 "k"; else print n }'
}

echo
echo "gcheap benchmark  ($(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -m), runs=$RUNS, medians)"
echo "gcheap: $GCHEAP   dumps: $DIR (gendump v$GENVER, seed $SEED)"
if [ "$HAVE_NS" = 1 ]; then
    wall_how="date +%s%N around each run, harness overhead ${OVERHEAD}s subtracted"
else
    wall_how="$TIME_BIN %e (0.01 s resolution)"
fi
[ "$HAVE_TIME" = 1 ] || wall_how="$wall_how; no GNU time (apt-get install time): no peak RSS"
echo "wall: $wall_how   MB = 1e6 bytes"
echo
printf '%-6s %9s %10s %11s  %-20s %9s %9s %10s %8s\n' \
    size "file MB" objects references command "wall s" "MB/s" "RSS MB" "RSS B/obj"
printf '%s\n' "--------------------------------------------------------------------------------------------------------"
for n in $done_sizes; do
    bytes=$(get_res bytes "$n"); objs=$(get_res objects "$n"); refs=$(get_res refs "$n")
    first=1
    for k in $KEYS; do
        if [ $first = 1 ]; then
            head=$(awk -v s="$(human "$n")" -v b="$bytes" -v o="$objs" -v r="$refs" \
                'BEGIN {printf "%-6s %9.1f %10d %11d", s, b / 1e6, o, r}')
            first=0
        else
            head=$(printf '%-6s %9s %10s %11s' "" "" "" "")
        fi
        st=$(get_res "${k}_status" "$n")
        if [ -n "$st" ]; then
            printf '%s  %-20s %9s %9s %10s %8s  (%s)\n' "$head" "$(label "$k")" n/a n/a n/a n/a "$st"
            continue
        fi
        w=$(get_res "${k}_wall" "$n"); rss=$(get_res "${k}_rss" "$n")
        awk -v h="$head" -v l="$(label "$k")" -v w="$w" -v b="$bytes" -v rss="$rss" -v o="$objs" 'BEGIN {
            mbs = (w > 0) ? sprintf("%.0f", b / 1e6 / w) : "inf"
            if (rss == "") { r = "n/a"; bo = "n/a" }
            else { r = sprintf("%.1f", rss * 1024 / 1e6); bo = (o > 0) ? sprintf("%.1f", rss * 1024 / o) : "n/a" }
            printf "%s  %-20s %9.4f %9s %10s %8s\n", h, l, w, mbs, r, bo
        }'
    done
done

# ratio A B: A/B or empty
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b != "" && b > 0) printf "%.2f", a / b }'; }

if [ -n "$hprof_file" ]; then
    hpb=$(get_res bytes hprof); ho=$(get_res objects hprof); hr=$(get_res refs hprof)
    for k in hstat htop; do
        case $k in hstat) l="gcheap stat HPROF" ;; *) l="gcheap top HPROF" ;; esac
        if [ "$k" = hstat ]; then
            head=$(awk -v b="$hpb" -v o="$ho" -v r="$hr" 'BEGIN {printf "%-6s %9.1f %10d %11d", "hprof", b / 1e6, o, r}')
        else
            head=$(printf '%-6s %9s %10s %11s' "" "" "" "")
        fi
        st=$(get_res "${k}_status" hprof)
        if [ -n "$st" ]; then
            printf '%s  %-20s %9s %9s %10s %8s  (%s)\n' "$head" "$l" n/a n/a n/a n/a "$st"
            continue
        fi
        awk -v h="$head" -v l="$l" -v w="$(get_res "${k}_wall" hprof)" -v b="$hpb" -v rss="$(get_res "${k}_rss" hprof)" -v o="$ho" 'BEGIN {
            mbs = (w > 0) ? sprintf("%.0f", b / 1e6 / w) : "inf"
            if (rss == "") { r = "n/a"; bo = "n/a" }
            else { r = sprintf("%.1f", rss * 1024 / 1e6); bo = (o > 0) ? sprintf("%.1f", rss * 1024 / o) : "n/a" }
            printf "%s  %-20s %9.4f %9s %10s %8s\n", h, l, w, mbs, r, bo
        }'
    done
fi

echo
echo "Ratios"
for n in $done_sizes; do
    r1=$(ratio "$(get_res stat_wall "$n")" "$(get_res wc_wall "$n")")
    r2=$(ratio "$(get_res pipe_wall "$n")" "$(get_res stat_wall "$n")")
    r3=$(ratio "$(get_res pipe_wall "$n")" "$(get_res catwc_wall "$n")")
    printf '  %-6s stat / wc -l time: %-8s pipe / file time (stat): %-8s cat | stat - / cat | wc -l time: %s\n' \
        "$(human "$n")" "${r1:-n/a}" "${r2:-n/a}" "${r3:-n/a}"
done
size_ratio=$(ratio "$big" "$small")
if [ "$small" != "$big" ]; then
    gt=$(ratio "$(get_res top_wall "$big")" "$(get_res top_wall "$small")")
    gm=$(ratio "$(get_res top_rss "$big")" "$(get_res top_rss "$small")")
    printf '  top %s/%s (%sx objects): time %s, peak RSS %s\n' "$(human "$big")" "$(human "$small")" \
        "$size_ratio" "${gt:-n/a}${gt:+x}" "${gm:-n/a}${gm:+x}"
    [ -n "$gti" ] && printf '  top %s/%s time, interleaved runs: %sx (%s)\n' "$(human "$big")" \
        "$(human "$small")" "$gti" "$gti_how"
fi
[ -n "$pri" ] && printf '  %-6s cat | stat - / cat | wc -l time, interleaved runs: %s (%s)\n' "$(human "$big")" "$pri" "$pri_how"
[ -n "$sti" ] && printf '  %-6s suspects / top time, interleaved runs: %s (%s)\n' "$(human "$big")" "$sti" "$sti_how"
[ -n "$hwi" ] && printf '  waste HPROF / stat HPROF: time %sx interleaved (%s)\n' "$hwi" "$hwi_how"
[ -n "$hti" ] && printf '  top HPROF / top .gclog (%s): time %sx interleaved (%s), peak RSS %sx\n' \
    "$(human "$big")" "$hti" "$hti_how" "${htm:-n/a}"
[ -n "$rti" ] && printf '  %-6s report / top time, interleaved runs: %s (%s)\n' "$(human "$big")" "$rti" "$rti_how"
rb=$(get_res report_bytes "$big")
[ -n "$rb" ] && printf '  %-6s report size: %s bytes (%.2f MB)\n' "$(human "$big")" "$rb" "$(awk -v b="$rb" 'BEGIN { print b / 1e6 }')"
[ -n "$render" ] && printf '  %-6s report in headless Chromium: %s\n' "$(human "$big")" "$render"

if [ -n "$gzr" ]; then
    out=$(get_res bytes "$big")
    echo
    echo "Decompression of the $(human "$big") dump's .gz ($(wc -c <"$gzf" | awk '{printf "%.1f", $1 / 1e6}') MB, gzip -6; output $(awk -v b="$out" 'BEGIN {printf "%.1f", b / 1e6}') MB), interleaved runs, MB/s of output"
    printf '  %-34s %8s %8s %10s %10s\n' command "wall s" "CPU s" "MB/s wall" "MB/s CPU"
    for w in "gzip -dc FILE.gz > /dev/null:$GZ_WALL:$GZ_CPU" "inflate_bench FILE.gz (gcheap):$IN_WALL:$IN_CPU"; do
        IFS=: read -r name wall cpu <<<"$w"
        awk -v n="$name" -v w="$wall" -v c="$cpu" -v b="$out" 'BEGIN {
            printf "  %-34s %8.2f %8.2f %10.0f %10.0f\n", n, w, c, (w > 0 ? b / 1e6 / w : 0), (c > 0 ? b / 1e6 / c : 0) }'
    done
    printf '  gcheap / gzip -dc speed: %sx (CPU time), %sx (wall time)\n' "$(ratio "$GZ_CPU" "$IN_CPU")" "$(ratio "$GZ_WALL" "$IN_WALL")"
fi

# target NAME VALUE OP LIMIT UNIT: prints PASS/FAIL/n/a and records failures.
fails=""
nas=""
target() {
    local name=$1 value=$2 op=$3 limit=$4 unit=$5 verdict
    if [ -z "$value" ]; then
        verdict="n/a "; nas+="  - $name"$'\n'
        printf '  %-4s  %-52s %s\n' "$verdict" "$name" "(not measured)"
        return
    fi
    if awk -v v="$value" -v l="$limit" -v op="$op" 'BEGIN { exit !((op == "<=") ? (v <= l) : (v >= l)) }'; then
        verdict=PASS
    else
        verdict=FAIL; fails+="  - $name: $value $unit (target $op $limit $unit)"$'\n'
    fi
    printf '  %-4s  %-52s %s %s (target %s %s %s)\n' "$verdict" "$name" "$value" "$unit" "$op" "$limit" "$unit"
}

bo=$(get_res objects "$big"); br=$(get_res refs "$big")
mbs() { local w; w=$(get_res "${1}_wall" "$2"); [ -n "$w" ] && awk -v b="$(get_res bytes "$2")" -v w="$w" 'BEGIN { if (w > 0) printf "%.0f", b / 1e6 / w; else print 1e12 }'; }
hb=$(human "$big")
echo
echo "Targets (on the $hb dump$( [ "$small" != "$big" ] && echo ", growth $(human "$small")->$hb"))"
target "stat throughput ($hb)" "$(mbs stat "$big")" ">=" 1000 MB/s
target "info throughput ($hb)" "$(mbs info "$big")" ">=" 400 MB/s
target "top wall time ($hb)" "$(get_res top_wall "$big")" "<=" 10 s
rss=$(get_res top_rss "$big")
budget=$(awk -v o="$bo" -v r="$br" 'BEGIN { printf "%.1f", (64 * o + 16 * r) / 1e6 }')
target "top peak RSS <= 64 B/object + 16 B/reference ($hb)" \
    "$( [ -n "$rss" ] && awk -v k="$rss" 'BEGIN { printf "%.1f", k * 1024 / 1e6 }')" "<=" "$budget" MB
# Issue 19's tighter targets for top (on whatever 2-core machine this runs on).
target "top wall time, issue 19 ($hb)" "$(get_res top_wall "$big")" "<=" 3 s
budget19=$(awk -v o="$bo" -v r="$br" 'BEGIN { printf "%.1f", (40 * o + 8 * r) / 1e6 }')
target "top peak RSS <= 40 B/object + 8 B/reference, issue 19 ($hb)" \
    "$( [ -n "$rss" ] && awk -v k="$rss" 'BEGIN { printf "%.1f", k * 1024 / 1e6 }')" "<=" "$budget19" MB
if [ "$small" != "$big" ]; then
    glimit=$(awk -v s="$size_ratio" 'BEGIN { printf "%.1f", 1.2 * s }')
    target "top time growth $(human "$small")->$hb${gti:+, interleaved}" "${gti:-$gt}" "<=" "$glimit" x
    target "top memory growth $(human "$small")->$hb" "$gm" "<=" "$glimit" x
fi
if [ -n "$gzr" ]; then
    target "inflate throughput, CPU time ($hb .gz)" "$(awk -v b="$(get_res bytes "$big")" -v c="$IN_CPU" 'BEGIN { if (c > 0) printf "%.0f", b / 1e6 / c }')" ">=" 250 MB/s
fi
pr=$(ratio "$(get_res pipe_wall "$big")" "$(get_res catwc_wall "$big")")
target "cat | stat - vs cat | wc -l ($hb${pri:+, interleaved}), issue 19" "${pri:-$pr}" "<=" 1.15 x
target "suspects vs top ($hb, interleaved): at most 20% more" "$sti" "<=" 1.20 x
if [ -n "$hprof_file" ]; then
    target "top on the HPROF dump / on the $hb .gclog: time" "$hti" "<=" 1 x
    target "top on the HPROF dump / on the $hb .gclog: peak RSS" "$htm" "<=" 1 x
    target "waste / stat on the HPROF dump: time" "$hwi" "<=" 2 x
fi
rt=$(ratio "$(get_res report_wall "$big")" "$(get_res top_wall "$big")")
target "report vs top ($hb${rti:+, interleaved}): at most 10% slower" "${rti:-$rt}" "<=" 1.10 x
rmb=$(awk -v b="$(get_res report_bytes "$big")" 'BEGIN { if (b != "") printf "%.2f", b / 1e6 }')
target "report size ($hb)" "$rmb" "<=" 5 MB
case $render in
ok*) target "report renders in headless Chromium, no console error ($hb)" 1 ">=" 1 "(1 = yes)" ;;
FAILED*) target "report renders in headless Chromium, no console error ($hb)" 0 ">=" 1 "(1 = yes)" ;;
*) target "report renders in headless Chromium, no console error ($hb)" "" ">=" 1 "(1 = yes)" ;;
esac
echo
if [ -n "$fails" ]; then
    echo "FAILED targets:"
    printf '%s' "$fails"
else
    echo "No target failed$( [ -n "$nas" ] && echo " (of those measured)")."
fi
if [ -n "$nas" ]; then
    echo "Not measured (command missing or failing):"
    printf '%s' "$nas"
fi
mcp_row
if [ "$V8" = 1 ]; then
    echo
    bash "$here/v8_bench.sh" --gcheap "$GCHEAP" --sizes "$V8_SIZES" --dir "$DIR"
fi
if [ "${RUBY:-1}" = 1 ]; then
    echo
    bash "$here/ruby_bench.sh" --gcheap "$GCHEAP" --gendump "$GENDUMP" --objects "${RUBY_N:-1000000}" --dir "$DIR"
fi
if [ "$JSC" = 1 ]; then
    echo
    bash "$here/jsc_bench.sh" --gcheap "$GCHEAP" --sizes "$JSC_SIZES" --dir "$DIR"
fi
exit 0
