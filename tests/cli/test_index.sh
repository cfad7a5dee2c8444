#!/bin/sh
# The persistent index (gcheap index, DUMP.gcx): byte-identical outputs of
# every command from the dump, the index beside it and the .gcx given, on one
# dump of each format (tests/cli/index_compare.sh; test_index_all.sh runs it
# on all of testdata/); then finding the index, staleness, options, the
# cache folder, -o, --check, corruption, standard input.
#
#   sh tests/cli/test_index.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -uf
if [ $# -lt 3 ]; then
    echo "usage: sh $0 GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR" >&2
    exit 2
fi
G=$1
T=$2
here=$(dirname "$0")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_index.XXXXXX") || exit 1
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
mkdir "$tmp/cmp" || exit 1

status=0
QUICK=1 sh "$here/index_compare.sh" "$G" "$tmp/cmp" "$T/basic.gclog" "$T/sections.gclog" \
    "$T/anomalies.gclog" "$T/gcdump/twin.gcdump" "$T/dart/twin.dartheap" \
    "$T/v8/sample.heapsnapshot" "$T/hprof/leak.hprof" "$T/jsc/bun-small.json" \
    "$T/ruby/small.json.gz" "$T/errors/cut_in_signature.gcdump" || status=1

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   - $1"; }
bad() { failed=$((failed + 1)); echo "FAIL - $1"; }
expect() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1 (got '$2', expected '$3')"; fi; }

d=$tmp/basic.gclog
cp "$T/basic.gclog" "$d"
ref=$("$G" top --no-index "$d" 2>&1)

# Never built implicitly.
"$G" top "$d" > /dev/null 2>&1
expect "no index without 'gcheap index'" "$(ls "$tmp" | grep -c gcx)" 0

expect "index prints where it wrote" "$("$G" index "$d")" "$d.gcx"
expect "--check says ok" "$("$G" index --check "$d.gcx" | cut -d' ' -f2)" ok
expect "from the index" "$("$G" top "$d" 2>&1)" "$ref"

# -o writes elsewhere; that file serves when given as DUMP.
"$G" index "$d" -o "$tmp/other.gcx" > /dev/null
expect "-o FILE, given as DUMP" "$("$G" top "$tmp/other.gcx" 2>&1)" "$ref"
# -o a pipe (no seek back to the header): the whole file at the end, the
# same bytes as the file's, then the line naming where it went; the
# table of contents ends the file (the header's offset + 40 bytes a chunk).
"$G" index "$d" -o /dev/stdout | cat > "$tmp/piped"
n=$(wc -c < "$tmp/other.gcx")
expect "-o a pipe: the file's bytes" "$(head -c "$n" "$tmp/piped" | cmp - "$tmp/other.gcx" && echo same)" same
expect "-o a pipe: then where" "$(tail -c +$((n + 1)) "$tmp/piped")" /dev/stdout
toc=$(od -An -tu8 -j24 -N8 "$tmp/other.gcx" | tr -d ' ')
chunks=$(od -An -tu4 -j32 -N4 "$tmp/other.gcx" | tr -d ' ')
expect "the table of contents ends the file" "$((toc + 40 * chunks))" "$n"

# Stale: the dump changed (same size, other contents; then other mtime).
cp -p "$d" "$tmp/keep"
sed 's/System.String/System.Strong/' "$tmp/keep" > "$d"
touch -r "$tmp/keep" "$d"
out=$("$G" stat "$d" 2>&1 >/dev/null)
expect "same size and mtime, other contents: stale" "$out" \
    "gcheap: note: $d.gcx not used: the dump's contents changed since it was indexed"
expect "stale index: the dump's own answer" "$("$G" stat "$d" 2>/dev/null)" "$("$G" stat --no-index "$d")"
cp "$tmp/keep" "$d"
touch -d '2001-01-01' "$d"
out=$("$G" stat "$d" 2>&1 >/dev/null)
expect "other mtime: stale" "$out" "gcheap: note: $d.gcx not used: the dump was modified since it was indexed"
expect "-q: no note" "$("$G" stat -q "$d" 2>&1 >/dev/null)" ""
"$G" index "$d" > /dev/null
out=$("$G" stat --module "$d" 2>&1 >/dev/null)
case $out in *"built with other load options"*) ok "other load options: not used";;
    *) bad "other load options: '$out'";; esac
out=$("$G" stat --module "$d.gcx" 2>&1 >/dev/null)
case $out in *"built with other load options"*) ok ".gcx given with other load options: refused";;
    *) bad ".gcx given with other load options: '$out'";; esac

# A .gcx given alone to a command that reads the dump's values (Ruby's
# strings: suspects, waste): its dump, still where it was indexed and
# unchanged, answers (the same bytes as given the dump); moved or changed,
# an error (status 2), never another answer.
r=$tmp/rb.json
cp "$T/ruby/dup_dangling.json" "$r"
"$G" index "$r" > /dev/null
for c in suspects waste; do
    expect ".gcx alone, dump beside: $c" "$("$G" $c "$r.gcx" 2>/dev/null | sed "s|$r.gcx|$r|g")" \
        "$("$G" $c --no-index "$r" 2>/dev/null)"
done
mkdir "$tmp/o"
"$G" index "$r" -o "$tmp/o/elsewhere.gcx" > /dev/null
"$G" suspects "$tmp/o/elsewhere.gcx" > /dev/null 2> "$tmp/err"
expect ".gcx elsewhere, dump not beside it: status 2" $? 2
case $(cat "$tmp/err") in *"reads values from the dump itself, and its dump is not where it was indexed"*)
    ok ".gcx elsewhere: says why";; *) bad ".gcx elsewhere: $(cat "$tmp/err")";; esac
cp -p "$r" "$tmp/o/rb.json" # the recorded file name in the index's folder
expect ".gcx elsewhere, the dump by its recorded name beside it" \
    "$("$G" suspects "$tmp/o/elsewhere.gcx" 2>/dev/null | sed "s|$tmp/o/elsewhere.gcx|$r|g")" \
    "$("$G" suspects --no-index "$r" 2>/dev/null)"
mv "$r" "$tmp/rb-moved.json"
"$G" waste "$r.gcx" > "$tmp/out" 2> "$tmp/err"
expect ".gcx alone, dump moved: status 2" $? 2
expect ".gcx alone, dump moved: no output" "$(cat "$tmp/out")" ""
cp "$tmp/rb-moved.json" "$r"
touch -d '2001-01-01' "$r"
"$G" suspects "$r.gcx" > "$tmp/out" 2> "$tmp/err"
expect ".gcx alone, dump modified: status 2" $? 2
case $(cat "$tmp/err") in *"the dump was modified since it was indexed"*) ok ".gcx alone, dump modified: says why";;
    *) bad ".gcx alone, dump modified: $(cat "$tmp/err")";; esac
expect ".gcx alone, a command without values: served" "$("$G" top "$r.gcx" 2>/dev/null | sed "s|$r.gcx|$r|g")" \
    "$("$G" top --no-index "$r" 2>/dev/null)"

# V8 strings (waste's duplicate strings) are not in the index: waste reads
# the snapshot, with the index beside it or given alone.
v=$tmp/node.heapsnapshot.gz
cp "$T/v8/node-server.heapsnapshot.gz" "$v"
"$G" index "$v" > /dev/null
vref=$("$G" waste --no-index "$v" 2>&1)
case $vref in *duplicate-strings*) ok "V8 waste counts duplicate strings";; *) bad "V8 waste: $vref";; esac
expect "V8 waste, index beside" "$("$G" waste "$v" 2>&1)" "$vref"
expect "V8 waste, .gcx alone" "$("$G" waste "$v.gcx" 2>&1 | sed "s|$v.gcx|$v|g")" "$vref"

# The cache: a read-only folder's dump is indexed under $XDG_CACHE_HOME/gcheap/.
mkdir "$tmp/ro" "$tmp/cache"
cp "$T/basic.gclog" "$tmp/ro/basic.gclog"
chmod a-w "$tmp/ro"
if [ -w "$tmp/ro" ]; then
    echo "ok   - SKIP read-only folder (running as a user who writes anywhere)"
    chmod u+w "$tmp/ro"
    mv "$tmp/ro/basic.gclog" "$tmp/ro/x"
    mv "$tmp/ro/x" "$tmp/ro/basic.gclog"
else
    w=$(XDG_CACHE_HOME=$tmp/cache "$G" index "$tmp/ro/basic.gclog")
    case $w in "$tmp/cache/gcheap/basic.gclog-"*.gcx) ok "read-only folder: cache";;
        *) bad "read-only folder: wrote '$w'";; esac
fi
# An index in the cache serves when none lies beside the dump.
cp "$T/basic.gclog" "$tmp/c.gclog"
w=$(XDG_CACHE_HOME=$tmp/cache "$G" index --cache "$tmp/c.gclog")
case $w in "$tmp/cache/gcheap/c.gclog-"*.gcx) ok "--cache writes under XDG_CACHE_HOME";;
    *) bad "--cache wrote '$w'";; esac
expect "nothing beside the dump" "$(ls "$tmp" | grep -c '^c.gclog.gcx')" 0
cp "$T/basic.gclog" "$tmp/fresh.gclog" # same contents, other path: not its index
expect "cache index serves" "$(XDG_CACHE_HOME=$tmp/cache "$G" top "$tmp/c.gclog" 2>&1)" "$("$G" top --no-index "$tmp/c.gclog")"
printf 'X' | dd of="$w" bs=1 seek=$(grep -a -b -o 'MyApp.Node' "$w" | head -1 | cut -d: -f1) conv=notrunc 2>/dev/null
out=$(XDG_CACHE_HOME=$tmp/cache "$G" top "$tmp/c.gclog" 2>&1 >/dev/null)
case $out in "gcheap: note: $w not used: offset "*"checksum mismatch") ok "a corrupted cache index: noted";;
    *) bad "corrupted cache index: '$out'";; esac

# Corruption: a flipped byte in a chunk is found before use; the command
# falls back to the dump with a note; --check fails with status 2.
"$G" index "$d" > /dev/null
cp "$d.gcx" "$tmp/good.gcx"
at=$(grep -a -b -o 'MyApp.Node' "$d.gcx" | head -1 | cut -d: -f1)
printf 'X' | dd of="$d.gcx" bs=1 seek="$at" conv=notrunc 2>/dev/null
"$G" index --check "$d.gcx" > /dev/null 2> "$tmp/err"
expect "--check of a corrupted index: status 2" $? 2
case $(cat "$tmp/err") in *"checksum mismatch"*) ok "--check names the checksum";;
    *) bad "--check: $(cat "$tmp/err")";; esac
out=$("$G" top "$d" 2>"$tmp/err")
expect "corrupted index: the dump's answer" "$out" "$("$G" top --no-index "$d")"
case $(cat "$tmp/err") in "gcheap: note: $d.gcx not used: offset "*) ok "corrupted index: a note";;
    *) bad "corrupted index note: $(cat "$tmp/err")";; esac
"$G" top "$d.gcx" > /dev/null 2>&1
expect "corrupted .gcx given: status 2" $? 2
head -c 1000 "$tmp/good.gcx" > "$d.gcx"
"$G" top "$d.gcx" > /dev/null 2> "$tmp/err"
expect "truncated .gcx given: status 2" $? 2
case $(cat "$tmp/err") in *truncated*) ok "truncated: says so";; *) bad "truncated: $(cat "$tmp/err")";; esac

# An index is not indexed again.
"$G" index "$tmp/good.gcx" > /dev/null 2> "$tmp/err"
expect "index of an index: status 2" $? 2
# Standard input cannot be indexed.
"$G" index - < "$d" > /dev/null 2>&1
expect "index of stdin: status 2" $? 2
# --no-index with an index present: parsed (same answer, no note).
cp "$tmp/good.gcx" "$d.gcx"
expect "--no-index" "$("$G" top --no-index "$d" 2>&1)" "$ref"

echo "test_index: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ $status -eq 0 ]
