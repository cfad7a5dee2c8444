#!/bin/sh
# Real Ruby heap dumps (ObjectSpace.dump_all) written by the Debian `ruby`
# running tests/ruby/plant.rb, which plants known objects and counts them in
# the same process just before the dump:
#   - per own class, stat's count and bytes equal ObjectSpace.each_object
#     (of exactly that class) and the sum of ObjectSpace.memsize_of;
#   - the internal kinds (IMEMO per imemo_type, ICLASS, CLASS, MODULE) and the
#     totals equal what Ruby's own JSON parser reads from the dump's lines
#     (tests/ruby/dump_oracle.rb, one run), and the dump's line counts per
#     kind are within a few objects above ObjectSpace.count_objects taken a
#     moment before (the dump call itself allocates: its method caches);
#   - retainers of the Leaf at the end of the chain $keep -> Holder ->
#     Array -> Node -> Leaf names those classes and the root's category;
#   - objects --values gives the planted Strings' text (checked with Ruby);
#   - stat --by-site and objects --sites give the allocation lines;
#   - a pipe, gzip from a file and gzip from a pipe give the file's output;
#   - every command runs; a dump cut inside a line is exit 2 at that line.
#   sh test_ruby.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
# Needs Ruby: installed with apt-get when missing (as root); skipped, with a
# message, only where that is impossible.
set -u
. "$(dirname "$0")/need.sh"
scratch ruby "$1" "${3:-}" || exit 1
need test_ruby ruby ruby || exit 0
here=$root/tests
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

dump=$tmp/plant.json
(cd "$tmp" && ruby "$here/ruby/plant.rb" "$dump" "$tmp/expected" trace) ||
    { echo "FAIL: ruby could not write the dump"; exit 1; }

# own classes against each_object / memsize_of
"$bin" stat --format tsv "$dump" > "$tmp/stat.tsv" || bad "stat exit $?"
while read -r what name count bytes; do
    [ "$what" = class ] || continue
    awk -F'\t' -v t="$name" -v c="$count" -v b="$bytes" \
        '$3 == t { found = ($1 == c && $2 == b) } END { exit !found }' "$tmp/stat.tsv" && ok ||
        bad "$name: Ruby counted $count objects, $bytes bytes; gcheap: $(awk -F'\t' -v t="$name" '$3 == t' "$tmp/stat.tsv")"
done < "$tmp/expected"

# internal kinds and totals against Ruby's JSON parser over the dump
ruby "$here/ruby/dump_oracle.rb" "$dump" > "$tmp/oracle.tsv" || bad "dump_oracle.rb failed"
grep -v '^#' "$tmp/oracle.tsv" | while IFS='	' read -r name count bytes; do
    awk -F'\t' -v t="$name" -v c="$count" -v b="$bytes" \
        '$3 == t { found = ($1 == c && $2 == b) } END { exit !found }' "$tmp/stat.tsv" ||
        echo "$name: dump lines $count objects, $bytes bytes; gcheap: $(awk -F'\t' -v t="$name" '$3 == t' "$tmp/stat.tsv")"
done > "$tmp/kinds.diff"
[ -s "$tmp/kinds.diff" ] && bad "internal kinds differ: $(cat "$tmp/kinds.diff")" || ok
[ "$(grep -c -v '^#' "$tmp/oracle.tsv")" -gt 10 ] && ok || bad "the oracle found too few internal types"
"$bin" info --format tsv "$dump" > "$tmp/info.tsv"
total=$(awk -F'\t' '$1 == "#total" { print $2, $3 }' "$tmp/oracle.tsv")
mine=$(awk -F'\t' '$1 == "objects" { o = $2 } $1 == "bytes" { b = $2 } END { print o, b }' "$tmp/info.tsv")
[ "$total" = "$mine" ] && ok || bad "totals: dump lines $total, gcheap $mine"
for k in IMEMO ICLASS CLASS MODULE DATA; do
    counted=$(awk -v k="T_$k" '$1 == "kind" && $2 == k { print $3 }' "$tmp/expected")
    lines=$(awk -F'\t' -v k="$k" '$1 == "#kind" && $2 == k { print $3 }' "$tmp/oracle.tsv")
    [ -n "$counted" ] && [ -n "$lines" ] && [ "$lines" -ge "$counted" ] && [ "$lines" -le $((counted + 32)) ] &&
        ok || bad "$k: count_objects $counted, dump lines $lines"
done

# why the Leaf is alive: the chain from the global
leaf=$(awk '$1 == "leaf" { print $2 }' "$tmp/expected")
"$bin" retainers "$dump" "$leaf" > "$tmp/ret.out" || bad "retainers exit $?"
path=$(sed -n 's/^  -> [0-9a-f]* //p' "$tmp/ret.out" | tr '\n' ' ')
[ "$path" = "Holder Array Node Leaf " ] && grep -q '^  root: static  (global_tbl)$' "$tmp/ret.out" && ok ||
    { bad "retainers of the Leaf: $(cat "$tmp/ret.out")"; }

# String values, checked by Ruby against what the program planted
"$bin" objects --values --type String --format json "$dump" > "$tmp/values.json" || bad "objects --values exit $?"
ruby -rjson -e '
  rows = JSON.parse(File.read(ARGV[0]))["sections"][0]["rows"]
  by_id = rows.to_h { |r| [r["id"], r["value"]] }
  bad = File.readlines(ARGV[1]).grep(/^string /).reject do |l|
    _, addr, lit = l.chomp.split(" ", 3)
    by_id[addr.delete_prefix("0x")] == lit.undump
  end
  abort "values differ: #{bad.join}" unless bad.empty?' "$tmp/values.json" "$tmp/expected" && ok ||
    bad "objects --values does not give the planted strings"

# allocation sites (the dump was traced): Leaf objects come from one line of plant.rb
leaf_line=$(grep -n 'Node.new(Leaf.new(i))' "$here/ruby/plant.rb" | cut -d: -f1)
"$bin" stat --by-site --format tsv "$dump" > "$tmp/sites.tsv" || bad "stat --by-site exit $?"
awk -F'\t' -v s="plant.rb:$leaf_line" 'index($3, s) && $1 >= 58 { found = 1 } END { exit !found }' "$tmp/sites.tsv" &&
    ok || bad "stat --by-site has no row for plant.rb:$leaf_line with the 29 Leaf and 29 Node: $(grep plant.rb "$tmp/sites.tsv")"
"$bin" objects --sites --type Leaf --format tsv "$dump" > "$tmp/osites.tsv" || bad "objects --sites exit $?"
[ "$(awk -F'\t' -v s="plant.rb:$leaf_line" 'NR > 1 && index($0, s)' "$tmp/osites.tsv" | wc -l)" -eq 29 ] && ok ||
    bad "objects --sites: not 29 Leaf rows at plant.rb:$leaf_line"

# a pipe and gzip give what the file gives
gzip -c "$dump" > "$dump.gz"
for cmd in "stat --format tsv" "top --format tsv --top 50" "roots --format tsv" "retainers @ $leaf" \
           "objects --values --top 30 --format tsv" "stat --by-site --format tsv"; do
    args=$(echo "$cmd" | sed "s|@|FILE|")
    case $args in *FILE*) ;; *) args="$args FILE" ;; esac
    "$bin" $(echo "$args" | sed "s|FILE|$dump|") > "$tmp/file.out" 2>&1
    cat "$dump" | "$bin" $(echo "$args" | sed "s|FILE|-|") > "$tmp/pipe.out" 2>&1
    "$bin" $(echo "$args" | sed "s|FILE|$dump.gz|") > "$tmp/gz.out" 2>&1
    cat "$dump.gz" | "$bin" $(echo "$args" | sed "s|FILE|-|") > "$tmp/gzpipe.out" 2>&1
    cmp -s "$tmp/file.out" "$tmp/pipe.out" && cmp -s "$tmp/file.out" "$tmp/gz.out" &&
        cmp -s "$tmp/file.out" "$tmp/gzpipe.out" && ok || bad "$cmd: a pipe or gzip differs from the file"
done

# every command
for cmd in "info" "roots" "top" "dom --top 20" "stat --live --retained" "objsize @ $leaf" \
           "retainers --all @ $leaf" "retainers --dominators @ $leaf" "retainers --type Leaf @" \
           "refs @ $leaf" "suspects" "check --max-type Leaf=29" "objects --retained --top 5"; do
    case $cmd in
    *@*) args=$(echo "$cmd" | sed "s|@|$dump|") ;;
    *) args="$cmd $dump" ;;
    esac
    # shellcheck disable=SC2086
    "$bin" $args > "$tmp/cmd.out" 2> "$tmp/cmd.err" && ok || bad "$cmd: exit $? $(cat "$tmp/cmd.err")"
done
(cd "$tmp" && ruby "$here/ruby/plant.rb" "$tmp/plain.json" "$tmp/expected2") || bad "ruby: second dump"
"$bin" diff --format tsv "$tmp/plain.json" "$dump" > /dev/null && ok || bad "diff exit $?"
"$bin" leaks "$tmp/plain.json" "$dump" > /dev/null && ok || bad "leaks exit $?"
"$bin" report -o "$tmp/report.html" "$dump" > /dev/null && [ -s "$tmp/report.html" ] && ok || bad "report"
"$bin" check --max-type Leaf=28 "$dump" > /dev/null 2>&1
[ $? -eq 1 ] && ok || bad "check: 29 Leaf over 28 must exit 1"
"$bin" stat --by-site "$tmp/plain.json" > "$tmp/nosite.out" 2>&1 && ok || bad "stat --by-site of an untraced dump: exit $?"

# cut inside a line: exit 2 at that line
size=$(wc -c < "$dump")
for cut in 30 $((size / 3)) $((size / 2)) $((size - 3)); do
    head -c "$cut" "$dump" > "$tmp/cut.json"
    line=$(($(tr -dc '\n' < "$tmp/cut.json" | wc -c) + 1))
    "$bin" stat "$tmp/cut.json" > /dev/null 2> "$tmp/cut.err"
    st=$?
    [ $st -eq 2 ] && grep -q "cut.json:$line: " "$tmp/cut.err" && ok ||
        bad "cut at $cut: exit $st, expected line $line: $(cat "$tmp/cut.err")"
    cat "$tmp/cut.json" | "$bin" stat - > /dev/null 2> "$tmp/cut.err"
    st=$?
    [ $st -eq 2 ] && grep -q ":$line: " "$tmp/cut.err" && ok || bad "cut at $cut from a pipe: exit $st"
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
