# Plants duplicate Strings for `gcheap waste` (tests/cli/test_waste_ruby.sh),
# counts them in this process just before the dump, and dumps the heap.
# Each copy is built at run time (a distinct String object, not a literal
# or an interned fstring):
#   alpha: 37 copies of a short (embedded) ASCII value;
#   beta:  12 copies of a 209-byte ASCII value (each owns its buffer);
#   long:  11 copies of a 6200-byte ASCII value (written whole?);
#   gamma:  9 copies (below the 10 copies a group needs);
#   utf:   20 copies of a non-ASCII value (dump_all writes no "value" for
#          it: not countable).
# Writes to EXPECTED one line per group: NAME COUNT BYTES MINSIZE MAXSIZE,
# from ObjectSpace.each_object(String) and ObjectSpace.memsize_of.
#   ruby waste_plant.rb DUMP EXPECTED
require 'objspace'
dump, expected = ARGV
n = Integer('1234') # values built from a number read at run time
plan = {
  'alpha' => [37, -> { 'dup-alpha-' + n.to_s }],
  'beta' => [12, -> { s = 'dup-beta-'.dup; s << ('x' * 200); s }],
  'long' => [11, -> { ('dup-long-' + n.to_s) * 400 + 'e' * 999 + '!' }],
  'gamma' => [9, -> { 'dup-gamma-' + n.to_s }],
  'utf' => [20, -> { "dup-\u00e9t\u00e9-" + n.to_s }]
}
$keep = plan.map { |_, (copies, make)| Array.new(copies) { make.call } }
# compared with ==, not used as Hash keys (a String key is copied: one more)
firsts = $keep.map(&:first)
names = plan.keys
GC.start
found = Hash.new { |h, k| h[k] = [0, 0, nil, nil] }
ObjectSpace.each_object(String) do |s|
  i = firsts.index(s)
  next unless i
  name = names[i]
  size = ObjectSpace.memsize_of(s)
  f = found[name]
  f[0] += 1
  f[1] += size
  f[2] = [f[2] || size, size].min
  f[3] = [f[3] || size, size].max
end
File.write(expected, found.map { |name, f| "#{name} #{f.join(' ')}\n" }.join)
File.open(dump, 'w') { |io| ObjectSpace.dump_all(output: io) }
