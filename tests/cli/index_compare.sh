#!/bin/sh
# The index's promise: every command prints the same bytes (stdout, stderr,
# exit status) from the dump parsed (--no-index, the reference), from the
# index beside it (DUMP.gcx) and from the .gcx given as DUMP (its path
# written where the dump's was: the one difference the argument makes).
#
#   sh tests/cli/index_compare.sh GCHEAP_BIN WORK_DIR DUMP...
#
# Each DUMP is copied into WORK_DIR (so that its index is written there),
# indexed with `gcheap index`, then every command line below runs three ways.
# Dumps no reader accepts must fail to index with the parse's own error.
# QUICK=1: the table format only (json too otherwise).
# Prints "ok"/"FAIL" lines and a summary; exit 1 when anything differs.
set -uf
G=$1
W=$2
shift 2
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL - $1"; }

# run TAG ARGS...: one command line, its outputs kept as $W/TAG.{out,err,rc}.
run() {
    tag=$1
    shift
    "$G" "$@" > "$W/$tag.out" 2> "$W/$tag.err" < /dev/null
    echo $? > "$W/$tag.rc"
}

# same DESC: the three runs (ref, ix, gcx) agree.
same() {
    for p in out err rc; do
        if ! cmp -s "$W/ref.$p" "$W/ix.$p"; then
            bad "$1: index beside the dump: $p differs"
            diff "$W/ref.$p" "$W/ix.$p" | head -6
            return
        fi
        # (HPROF, Ruby and Dart values are read from the dump: a .gcx given
        # alone for such a command reads them from the dump it was built
        # from, still beside it: the same bytes.)
        if ! cmp -s "$W/ref.$p" "$W/gcx.$p"; then
            bad "$1: .gcx given: $p differs"
            diff "$W/ref.$p" "$W/gcx.$p" | head -6
            return
        fi
    done
    ok
}

# check D ARGS... (DUMP written as @): the command line three ways.
check() {
    d=$1
    shift
    a1=
    for x in "$@"; do [ "$x" = @ ] && x=$d; a1="$a1$x
"; done
    IFS='
'
    # shellcheck disable=SC2086
    set -- $a1
    unset IFS
    c=$1
    shift
    run ref "$c" --no-index "$@"
    run ix "$c" "$@"
    a2=
    for x in "$@"; do [ "$x" = "$d" ] && x=$d.gcx; a2="$a2$x
"; done
    IFS='
'
    # shellcheck disable=SC2086
    run gcx "$c" $a2
    unset IFS
    # The .gcx's own path appears where the dump's did.
    for p in out err; do
        sed "s|$d.gcx|$d|g" "$W/gcx.$p" > "$W/gcx.$p.tmp" && mv "$W/gcx.$p.tmp" "$W/gcx.$p"
    done
    same "$c $*"
}

# A value of column 1 of a tsv output's first data row.
first_id() {
    "$G" "$@" --no-index --format tsv 2> /dev/null | awk -F'\t' 'NR == 2 { print $1; exit }'
}

k=0
for src in "$@"; do
    k=$((k + 1))
    d=$W/d$k-$(basename "$src")
    cp "$src" "$d"
    "$G" index "$d" > "$W/index.out" 2> "$W/index.err"
    rc=$?
    if ! "$G" stat --no-index "$d" > /dev/null 2> "$W/stat.err"; then
        # Not a dump: index fails as the parse does.
        if [ $rc -eq 2 ] && [ ! -e "$d.gcx" ] && grep -q "$(sed -n 1p "$W/stat.err" | cut -c1-40)" "$W/index.err"; then
            ok
        else
            bad "$src: index of a bad dump: status $rc, $(head -c 200 "$W/index.err")"
        fi
        rm -f "$d"
        continue
    fi
    if [ $rc -ne 0 ] || [ "$(cat "$W/index.out")" != "$d.gcx" ]; then
        bad "$src: gcheap index: status $rc: $(head -c 300 "$W/index.err")"
        continue
    fi
    "$G" index --check "$d.gcx" > /dev/null 2>&1 || bad "$src: index --check fails"
    # QUICK=1 (the fast test): table output only.
    formats="table json"
    [ -n "${QUICK:-}" ] && formats=table
    for f in $formats; do
        check "$d" info @ --format $f
        check "$d" stat @ --format $f
        check "$d" stat --live --sort count @ --format $f
        check "$d" stat --retained --top 5 @ --format $f
        check "$d" roots @ --format $f
        check "$d" top --top 5 @ --format $f
        check "$d" top --include-weak --top 5 @ --format $f
        check "$d" objects --top 10 @ --format $f
        check "$d" objects --sort distance --top 5 @ --format $f
        check "$d" objects --live --include-weak --retained --top 5 @ --format $f
        check "$d" dom --depth 2 @ --format $f
        check "$d" objsize --type '*' --stat @ --format $f
        check "$d" retainers --type '*' --depth 2 @ --format $f
        check "$d" check --max-bytes 1KiB @ --format $f
        check "$d" suspects @ --format $f
        check "$d" diff @ @ --format $f
    done
    check "$d" waste @
    id=$(first_id top --top 1 "$d")
    rid=$(first_id roots --list "$d")
    for i in $id $rid; do
        check "$d" refs @ "$i"
        check "$d" retainers @ "$i"
        check "$d" retainers --include-weak --all --max-paths 2 @ "$i"
        check "$d" objsize @ "$i"
        check "$d" dom --depth 2 @ "$i" --format json
    done
    rm -f "$d" "$d.gcx"
done
echo "index_compare: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
