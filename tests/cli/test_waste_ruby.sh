#!/bin/sh
# `gcheap waste` on a real Ruby heap dump: duplicate-strings from the String
# values dump_all writes. tests/ruby/waste_plant.rb plants groups of equal
# Strings built at run time and counts them in the same process just before
# the dump (ObjectSpace.each_object, ObjectSpace.memsize_of):
#   - each planted ASCII group of 10 or more (37 short, 12 of 209 bytes, 11
#     of 6,200 bytes: Ruby writes the value whole) is a row with the count
#     and bytes Ruby counted, wasted = bytes - one copy's memsize;
#   - 9 copies make no row (a group needs 10), nor do 20 copies of a
#     non-ASCII value (dump_all writes no value for them: not countable);
#   - every row, planted or Ruby's own, equals what Ruby's JSON parser finds
#     grouping the dump's STRING lines by value (one run): count, bytes,
#     wasted (the copy: the member of lowest address) and byte length;
#   - check --max-waste: exit 0 at the oracle's total, 1 one byte below.
#   sh test_waste_ruby.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -u
. "$(dirname "$0")/need.sh"
scratch waste_ruby "$1" "${3:-}" || exit 1
need test_waste_ruby ruby ruby || exit 0
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

dump=$tmp/waste.json
ruby "$root/tests/ruby/waste_plant.rb" "$dump" "$tmp/expected" || { echo "FAIL: ruby could not write the dump"; exit 1; }
"$bin" waste -q --threshold 0 --format tsv "$dump" > "$tmp/waste.tsv" || bad "waste exited $?"

# planted groups: the row whose value starts with the group's prefix
row() { awk -F'\t' -v p="$1" '$1 == "duplicate-strings" && index($9, p) == 1 { print $3, $4, $5 }' "$tmp/waste.tsv"; }
while read -r name count bytes min max; do
    got=$(row "dup-$name-")
    case $name in
    gamma | utf)
        [ -z "$got" ] && ok || bad "$name ($count copies): a row '$got', expected none" ;;
    *)
        [ "$min" = "$max" ] || bad "$name: copies of unequal sizes $min..$max"
        want="$count $bytes $((bytes - min))"
        [ "$got" = "$want" ] && ok || bad "$name: row '$got', Ruby counted '$want'" ;;
    esac
done < "$tmp/expected"
[ "$(grep -c . "$tmp/expected")" -eq 5 ] && ok || bad "the program counted $(grep -c . "$tmp/expected") groups"

# every row against Ruby's JSON parser over the dump
ruby -rjson -e '
  g = Hash.new { |h, k| h[k] = [] }
  File.foreach(ARGV[0]) do |l|
    o = JSON.parse(l)
    g[o["value"]] << [o["address"].to_i(16), o["memsize"] || 0] if o["type"] == "STRING" && o["value"].is_a?(String)
  end
  g.each do |v, m|
    next if m.size < 10
    bytes = m.sum { |x| x[1] }
    puts [m.size, bytes, bytes - m.min_by { |x| x[0] }[1], v.bytesize].join(" ")
  end' "$dump" | sort > "$tmp/oracle" || bad "the oracle failed"
awk -F'\t' '$1 == "duplicate-strings" { print $3, $4, $5, $7 }' "$tmp/waste.tsv" | sort > "$tmp/rows"
[ -s "$tmp/oracle" ] && cmp -s "$tmp/oracle" "$tmp/rows" && ok || { bad "rows differ from the oracle's groups:"; diff "$tmp/oracle" "$tmp/rows" | head; }

total=$(awk '{ s += $3 } END { print s + 0 }' "$tmp/oracle")
"$bin" check -q --max-waste "$total" "$dump" > /dev/null 2>&1
st=$?
[ $st -eq 0 ] && ok || bad "check --max-waste $total exited $st, expected 0"
"$bin" check -q --max-waste $((total - 1)) "$dump" > /dev/null 2>&1
st=$?
[ $st -eq 1 ] && ok || bad "check --max-waste $((total - 1)) exited $st, expected 1"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
