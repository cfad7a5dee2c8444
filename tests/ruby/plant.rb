# Plants known objects in a Ruby heap, counts them the runtime's own way, and
# dumps the heap: the oracle of tests/cli/test_ruby.sh.
#
#   ruby plant.rb DUMP EXPECTED [trace]
#
# DUMP gets ObjectSpace.dump_all(output: io). EXPECTED gets, counted in the
# same process just before the dump (GC off, so nothing moves or goes):
#   class NAME COUNT BYTES   per own class: ObjectSpace.each_object(C) of
#                            exactly that class, and ObjectSpace.memsize_of
#                            summed over them
#   kind T_X COUNT           ObjectSpace.count_objects of the internal kinds
#   leaf ADDRESS             the retained Leaf at the end of the chain
#   string ADDRESS VALUE     a planted String and its text
# With "trace", allocations are traced (file, line, generation in the dump).
require 'objspace'
require 'json'

dump_path, expected_path, trace = ARGV
ObjectSpace.trace_object_allocations_start if trace == 'trace'

class Leaf
  def initialize(i)
    @i = i
    @tag = "leaf-#{i}"
  end
end

class Node
  def initialize(leaf)
    @leaf = leaf
    @pad = [1, 2, 3]
  end
  attr_reader :leaf
end

class Holder
  def initialize(n)
    @nodes = Array.new(n) { |i| Node.new(Leaf.new(i)) }
    @index = {}
    @nodes.each_index { |i| @index["k#{i}"] = i }
  end
  attr_reader :nodes
end

class Widget # more instance variables than fit in the slot: memsize grows
  def initialize(i)
    @name = "widget-#{i}" * (1 + i % 3)
    @parts = Array.new(i % 7) { |j| j }
    @a = @b = @c = i
    @d = i if i.even?
  end
end

class Tag < String; end

module Registry
  ENTRIES = []
end

class Orphan; end

GC.start
GC.disable

$keep = Holder.new(29)                               # a chain from a global
Registry::ENTRIES.concat(Array.new(17) { |i| Widget.new(i) }) # from a constant
tags = Array.new(11) { |i| Tag.new("tag-#{i}") }
orphans = Array.new(5) { Orphan.new }
orphans = nil                                        # unreachable, still in the heap
planted = Array.new(3) { |i| "planted value #{i}\twith \"quotes\" and \\ backslash" }
# The Leaf's address, with no local left holding it: only the chain does.
def address_of(obj) = JSON.parse(ObjectSpace.dump(obj))['address']

own = [Leaf, Node, Holder, Widget, Tag, Orphan]
lines = []
own.each do |c|
  objs = []
  ObjectSpace.each_object(c) { |o| objs << o if o.class == c }
  lines << "class #{c.name} #{objs.size} #{objs.sum { |o| ObjectSpace.memsize_of(o) }}"
end
lines << "leaf #{address_of($keep.nodes[7].leaf)}"
planted.each { |s| lines << "string #{address_of(s)} #{s.dump}" }
counts = {}
ObjectSpace.count_objects(counts)
%i[T_IMEMO T_ICLASS T_CLASS T_MODULE T_DATA].each { |k| lines << "kind #{k} #{counts[k]}" }
File.write(expected_path, lines.join("\n") + "\n")

File.open(dump_path, 'w') { |io| ObjectSpace.dump_all(output: io) }
tags.size
