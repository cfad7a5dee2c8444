# Reads a Ruby heap dump with Ruby's own JSON parser, line by line, and
# prints what gcheap must find in it (tests/cli/test_ruby.sh):
#   TYPE<TAB>COUNT<TAB>BYTES   for the internal kinds: IMEMO per imemo_type
#                              (imemo_NAME), ICLASS (T_ICLASS), CLASS (Class),
#                              MODULE (Module)
#   #kind<TAB>KIND<TAB>COUNT   object lines per "type"
#   #total<TAB>OBJECTS<TAB>BYTES
# Objects are counted once per address (the first line), as gcheap does.
require 'json'

seen = {}
rows = Hash.new { |h, k| h[k] = [0, 0] }
kinds = Hash.new(0)
objects = bytes = 0
File.foreach(ARGV[0]) do |line|
  o = JSON.parse(line)
  next if o['type'] == 'ROOT'
  next if seen[o['address']]
  seen[o['address']] = true
  size = o['memsize'] || 0
  objects += 1
  bytes += size
  kinds[o['type']] += 1
  name = case o['type']
         when 'IMEMO' then "imemo_#{o['imemo_type']}"
         when 'ICLASS' then 'T_ICLASS'
         when 'CLASS' then 'Class'
         when 'MODULE' then 'Module'
         end
  next unless name
  rows[name][0] += 1
  rows[name][1] += size
end
rows.sort.each { |name, (n, b)| puts "#{name}\t#{n}\t#{b}" }
kinds.sort.each { |k, n| puts "#kind\t#{k}\t#{n}" }
puts "#total\t#{objects}\t#{bytes}"
