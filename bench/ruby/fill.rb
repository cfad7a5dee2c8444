# Fills a Ruby heap with about N objects of the program's own (Record objects
# holding a String, an Array and a Hash, chained in a list from a global) and
# dumps it: the dump of bench/ruby_bench.sh.
#   ruby fill.rb N DUMP
require 'objspace'
n, path = Integer(ARGV[0]), ARGV[1]
class Record
  def initialize(i, prev)
    @name = "record-#{i}"
    @tags = [i, i + 1]
    @attrs = { id: i }
    @prev = prev
  end
end
ObjectSpace.trace_object_allocations_start
head = nil
(n / 4).times { |i| head = Record.new(i, head) }
$head = head
GC.start
File.open(path, 'w') { |io| ObjectSpace.dump_all(output: io) }
