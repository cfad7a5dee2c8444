#!/bin/sh
# Developer tool (not a test): runs two gcheap binaries over the same command
# lines and reports every difference in stdout, stderr or exit status. Used to
# show that a rewrite of the program keeps every output byte-identical.
#
#   sh tests/tools/compare_outputs.sh OLD_BIN NEW_BIN [DUMP...]
#
# The command lines: every command (with its main option variants) in every
# output format (table, tsv, csv, json; table with -h; dom also folded) on
# every dump under testdata/ and on the extra DUMPs given (e.g. from
# bench/gendump), plus usage errors. Object IDs for objsize, retainers and dom
# are taken from the old binary's `top` and `roots` output for each dump.
# Prints one line per differing run ("DIFF: args"), the first differences in
# full (set SHOW=N, default 5), and a summary "runs N, identical N, differing N".
# VERBOSE=1 prints progress on stderr. Extra DUMPs need absolute paths or
# paths relative to the current directory.
# Exit status 0 when nothing differs, 1 otherwise.
set -u
if [ $# -lt 2 ]; then
    echo "usage: sh compare_outputs.sh OLD_BIN NEW_BIN [DUMP...]" >&2
    exit 2
fi
abs() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$(pwd)/$1" ;; esac; }
old=$(abs "$1") new=$(abs "$2")
shift 2
root=$(cd "$(dirname "$0")/../.." && pwd)
show=${SHOW:-5}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/compare-outputs.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT HUP INT TERM
runs=0
mkdir "$tmp/old" "$tmp/new" || exit 2
: > "$tmp/plan"
cd "$root/testdata" || exit 2

# compare ARGS...: one command line through both binaries (cwd testdata/);
# the outputs are compared at the end, all at once.
compare() {
    runs=$((runs + 1))
    printf '%s\n' "$*" >> "$tmp/plan"
    "$old" "$@" > "$tmp/old/$runs.out" 2> "$tmp/old/$runs.err" < /dev/null
    echo $? > "$tmp/old/$runs.rc"
    "$new" "$@" > "$tmp/new/$runs.out" 2> "$tmp/new/$runs.err" < /dev/null
    echo $? > "$tmp/new/$runs.rc"
}

# each_format ARGS...: the command line in every output format.
each_format() {
    for f in table tsv csv json; do
        compare "$@" --format "$f"
    done
    compare "$@" -h
}

# A value of column 1 of the old binary's tsv output (its first data row).
first_id() {
    "$old" "$@" --format tsv 2> /dev/null | awk -F'\t' 'NR == 2 { print $1; exit }'
}

dumps=$( (find . -type f ! -name '*.case' ! -name '*.md' ! -name '*.sh' \
    ! -name 'README*' | sed 's|^\./||' | LC_ALL=C sort) )
for d in "$@"; do dumps="$dumps
$(abs "$d")"; done

prev=
ndumps=$(printf '%s\n' "$dumps" | wc -l)
k=0
for d in $dumps; do
    k=$((k + 1))
    [ -n "${VERBOSE:-}" ] && echo "# dump $k/$ndumps: $d ($runs runs)" >&2
    each_format info "$d"
    each_format stat "$d"
    if ! "$old" stat "$d" > /dev/null 2>&1; then
        # Not loadable: every command stops at the same error; a few suffice.
        each_format roots "$d"
        each_format diff "$d" basic.gclog
        continue
    fi
    each_format stat --live --sort count "$d"
    each_format stat --retained --sort retained --top 5 "$d"
    each_format stat --sort name --top 3 --short-names --module "$d"
    each_format roots "$d"
    each_format roots --summary "$d"
    each_format roots --list --sort bytes --top 5 "$d"
    each_format top --top 5 "$d"
    each_format dom --depth 2 "$d"
    each_format dom --by-type --depth 3 --min-bytes 100 "$d"
    compare dom --format folded "$d"
    each_format objsize --type '*' --stat "$d"
    each_format retainers --type '*' --depth 2 "$d"
    each_format check "$d"
    each_format check --max-bytes 1KiB --max-type '*=1' --max-type-total '*=:1MiB' --live "$d"
    each_format diff "$d" "$d"
    # Contents: waste (every section), its CI limit, the values of objects.
    each_format waste --threshold 0 "$d"
    each_format waste --threshold 0 --min-count 2 --holders --live "$d"
    each_format check --max-waste 1KiB "$d"
    each_format objects --values --top 20 "$d"
    if [ -n "$prev" ]; then
        each_format diff --fail-on-growth 1% --fail-on-type '*=+1' --retained "$prev" "$d"
    fi
    id=$(first_id top --top 1 "$d")
    root_id=$(first_id roots --list "$d")
    for i in $id $root_id; do
        each_format objsize "$i" "$d"
        each_format objsize --stat --sort count "$d" "$i"
        each_format retainers "$d" "$i"
        each_format retainers --all --max-paths 2 "$d" "$i"
        each_format retainers --dominators "$d" "$i"
        each_format dom --depth 2 "$d" "$i"
        compare dom --format folded "$d" "$i"
    done
    prev=$d
done

# Usage errors and help (the same for every dump).
compare
compare --help
compare help
compare --version
compare bogus
for c in info stat roots top dom objsize retainers diff check waste; do
    compare "$c" --help
    compare "$c"
    compare "$c" --bogus basic.gclog
    compare "$c" --format xml basic.gclog
    compare "$c" --top x basic.gclog
    compare "$c" --sort bogus basic.gclog
    compare "$c" basic.gclog basic.gclog basic.gclog
    compare "$c" --domain nowhere basic.gclog
    compare "$c" missing.gclog
done
compare dom --depth x basic.gclog
compare dom --min-bytes x basic.gclog
compare retainers --max-paths 0 basic.gclog 1000
compare retainers --all --max-paths 18446744073709551615 basic.gclog 1000
compare check --max-bytes 1XB basic.gclog
compare diff --fail-on-type 'x' basic.gclog basic.gclog

# Which runs differ in stdout, stderr or status.
diff -rq "$tmp/old" "$tmp/new" | sed -n 's|.*/old/\([0-9]*\)\.[a-z]* and .*|\1|p' | sort -un > "$tmp/differ"
differ=$(wc -l < "$tmp/differ")
shown=0
while read -r n; do
    echo "DIFF: $(sed -n "${n}p" "$tmp/plan")"
    shown=$((shown + 1))
    [ "$shown" -le "$show" ] || continue
    for part in rc err out; do
        diff "$tmp/old/$n.$part" "$tmp/new/$n.$part" | head -10 | sed "s/^/  $part /"
    done
done < "$tmp/differ"
echo "runs $runs, identical $((runs - differ)), differing $differ"
[ "$differ" -eq 0 ]
