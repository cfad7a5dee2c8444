#!/bin/sh
# Compressed dumps: for every format and every command, `gcheap CMD FILE.gz`
# and `gzip -dc FILE.gz | gcheap CMD -` (and the .gz itself through a pipe)
# print exactly what `gcheap CMD FILE` prints, with the same status and the
# same messages (file names aside, and the "(in the decompressed data)" mark
# on an offset inside gzip data). The one difference allowed in the output is
# info's `compression gzip` row, which must be there. Then corrupt .gz files: exit 2,
# `FILE: offset N:` on stderr, nothing on stdout.
#
#   sh test_gzip.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
#
# The commands are the ones `gcheap --help` lists, so a new command is
# covered without editing this file (with its DUMP as the only argument,
# unless args_for below knows better). The .gz files are made with the real
# gzip, at levels 1, 6 and 9 in turn.
set -u
bin=$1
data=$2
command -v gzip > /dev/null || { echo "SKIP: no gzip program"; exit 0; }
pass=0
fail=0
check() {
    if eval "$2"; then pass=$((pass + 1)); else echo "FAIL: $1"; fail=$((fail + 1)); fi
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_gzip.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

commands=$("$bin" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p')
check "commands listed by --help" '[ -n "$commands" ]'

# The first type of stat's table: objsize and retainers get --type NAME.
first_type() {
    "$bin" stat --format tsv "$1" 2> /dev/null | sed -n '2{s/^[^	]*	[^	]*	//;p;q;}'
}

# args_for CMD: the arguments before the dump(s) ('@' stands for the dump).
args_for() {
    case $1 in
    diff) echo "@ @2" ;;
    objsize | retainers) [ -n "$type" ] && echo "--type TYPE @" || echo "@" ;;
    *) echo "@" ;;
    esac
}

# run OUT ERR DUMP CMD [SECOND]: runs CMD with the dump in place of '@' (and
# SECOND, or the dump, in place of '@2': standard input is read once); the
# status in OUT.status.
run() {
    out=$1 err=$2 dump=$3 cmd=$4 second=${5:-$3}
    set -- $(args_for "$cmd")
    for a in "$@"; do
        shift
        case $a in
        @) set -- "$@" "$dump" ;;
        @2) set -- "$@" "$second" ;;
        TYPE) set -- "$@" "$type" ;;
        *) set -- "$@" "$a" ;;
        esac
    done
    "$bin" "$cmd" "$@" > "$out" 2> "$err"
    echo $? > "$out.status"
}

# The message lines name the file: one name for all. An offset in the data
# inside gzip is marked as such (gzip errors give offsets in the compressed
# file): the mark is the one difference allowed in messages.
normalize() {
    sed "s|$2|DUMP|g; s|<stdin>|DUMP|g; s| (in the decompressed data)\$||" "$1"
}

compare() {
    f=$1 gz=$2 cmd=$3 label=$4
    run "$tmp/a" "$tmp/ea" "$f" "$cmd"
    run "$tmp/b" "$tmp/eb" "$gz" "$cmd"
    gzip -dc "$gz" | run "$tmp/c" "$tmp/ec" - "$cmd" "$gz"
    run "$tmp/d" "$tmp/ed" - "$cmd" "$gz" < "$gz"
    if [ "$cmd" = info ]; then
        for x in b d; do
            [ "$(cat "$tmp/$x.status")" = 0 ] &&
                check "$label: info says compression gzip ($x)" 'grep -q "^compression  *gzip$" "$tmp/$x"'
            grep -v '^compression  *gzip$' "$tmp/$x" > "$tmp/$x.f"
            mv "$tmp/$x.f" "$tmp/$x"
        done
        check "$label: info says nothing of compression for the plain file" '! grep -q "^compression" "$tmp/a"'
    fi
    if [ "$cmd" = report ] || [ "$cmd" = waste ]; then # the page (waste's note) names the file
        normalize "$tmp/a" "$f" > "$tmp/a.n" && mv "$tmp/a.n" "$tmp/a"
        for x in b c d; do
            normalize "$tmp/$x" "$gz" | sed 's|\\u003cstdin\\u003e|DUMP|; s|&lt;stdin&gt;|DUMP|' > "$tmp/$x.n"
            mv "$tmp/$x.n" "$tmp/$x"
        done
    fi
    normalize "$tmp/ea" "$f" > "$tmp/ea.n"
    for x in b c d; do
        normalize "$tmp/e$x" "$gz" > "$tmp/e$x.n"
        check "$label: status ($x)" 'cmp -s "$tmp/a.status" "$tmp/$x.status"'
        check "$label: output ($x)" 'cmp -s "$tmp/a" "$tmp/$x"'
        check "$label: messages ($x)" 'cmp -s "$tmp/ea.n" "$tmp/e$x.n"'
    done
    if ! cmp -s "$tmp/a" "$tmp/b" || ! cmp -s "$tmp/ea.n" "$tmp/eb.n"; then
        diff "$tmp/a" "$tmp/b" | head -5
        diff "$tmp/ea.n" "$tmp/eb.n" | head -5
    fi
}

dumps="$data/basic.gclog $data/sections.gclog $data/anomalies.gclog $data/quirks.gclog
$data/gcdump/twin.gcdump $data/gcdump/sampled.gcdump $data/dart/twin.dartheap $data/dart/mini.dartheap"
# Formats merged later come in with their test dumps.
for f in "$data"/v8/*.heapsnapshot "$data"/hprof/*.hprof; do
    [ -f "$f" ] && dumps="$dumps $f"
done
for corpus in "$data/../../shared/corpus/gcdump" "$data/../../../shared/corpus/gcdump"; do
    if [ -d "$corpus" ]; then
        dumps="$dumps $(ls "$corpus"/*.gcdump)"
        break
    fi
done

level=1
for f in $dumps; do
    [ -f "$f" ] || { echo "FAIL: missing $f"; fail=$((fail + 1)); continue; }
    base=$(basename "$f")
    gz=$tmp/$base.gz
    gzip -"$level" -c "$f" > "$gz"
    level=$(( level == 1 ? 6 : level == 6 ? 9 : 1 ))
    type=$(first_type "$f")
    for cmd in $commands; do
        case $cmd in
        shell | mcp) continue ;; # standard input is their own (tests/cli/test_shell.sh, test_mcp.sh)
        index) continue ;;       # writes DUMP.gcx beside the dump, never from a pipe: tests/cli/test_index.sh
        waste) case $f in *.hprof) continue ;; esac ;; # HPROF contents are read again from a plain file only
        esac
        compare "$f" "$gz" "$cmd" "$base $cmd"
    done
done

# Concatenated members (as `jcmd GC.heap_dump -gz` writes): the halves of a
# .gclog compressed apart read as the whole.
f=$data/sections.gclog
lines=$(wc -l < "$f")
head -n $((lines / 2)) "$f" | gzip -c > "$tmp/multi.gz"
tail -n +$((lines / 2 + 1)) "$f" | gzip -9 -c >> "$tmp/multi.gz"
type=$(first_type "$f")
compare "$f" "$tmp/multi.gz" stat "concatenated members stat"
compare "$f" "$tmp/multi.gz" info "concatenated members info"

# Corrupt and cut files: exit 2, an offset, nothing on stdout.
bad() {
    label=$1 file=$2 want=$3
    "$bin" stat "$file" > "$tmp/out" 2> "$tmp/err"
    st=$?
    check "$label: exit 2" '[ $st -eq 2 ]'
    check "$label: nothing on stdout" '[ ! -s "$tmp/out" ]'
    check "$label: message" 'grep -q "^gcheap: $file: offset [0-9]*: $want" "$tmp/err"'
    cat "$file" | "$bin" stat - > "$tmp/out" 2> "$tmp/err"
    st=$?
    check "$label through a pipe: exit 2 and nothing on stdout" '[ $st -eq 2 ] && [ ! -s "$tmp/out" ]'
    check "$label through a pipe: message" 'grep -q "^gcheap: <stdin>: offset [0-9]*: $want" "$tmp/err"'
}
for f in "$data/sections.gclog" "$data/gcdump/twin.gcdump" "$data/dart/twin.dartheap" "$data/v8/sample.heapsnapshot"; do
    [ -f "$f" ] || continue
    base=$(basename "$f")
    gzip -9 -c "$f" > "$tmp/ok.gz"
    n=$(wc -c < "$tmp/ok.gz")
    head -c $((n - 5)) "$tmp/ok.gz" > "$tmp/cut.gz"
    bad "$base cut in its trailer" "$tmp/cut.gz" "gzip: unexpected end"
    head -c $((n / 2)) "$tmp/ok.gz" > "$tmp/cut.gz"
    bad "$base cut in half" "$tmp/cut.gz" "gzip: unexpected end"
    { cat "$tmp/ok.gz"; printf 'garbage'; } > "$tmp/trail.gz"
    bad "$base with trailing garbage" "$tmp/trail.gz" "gzip: trailing garbage"
    # The CRC-32: the first trailer byte, flipped.
    { head -c $((n - 8)) "$tmp/ok.gz"; printf '\377'; tail -c 7 "$tmp/ok.gz"; } > "$tmp/crc.gz"
    cmp -s "$tmp/crc.gz" "$tmp/ok.gz" && { head -c $((n - 8)) "$tmp/ok.gz"; printf '\376'; tail -c 7 "$tmp/ok.gz"; } > "$tmp/crc.gz"
    bad "$base with a wrong CRC" "$tmp/crc.gz" "gzip: CRC-32 mismatch"
done

# Not a dump inside the gzip data: what it looks like.
printf 'PK\003\004 not really a zip' | gzip -c > "$tmp/zip.gz"
"$bin" stat "$tmp/zip.gz" > "$tmp/out" 2> "$tmp/err"
st=$?
check "zip inside gzip: exit 2, message" '[ $st -eq 2 ] && grep -q "not a heap dump (looks like a zip archive)" "$tmp/err"'

echo "test_gzip: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
