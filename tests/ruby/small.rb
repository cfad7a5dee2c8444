# The small real dump of testdata/ruby/small.json.gz (README examples):
#   ruby --disable-gems tests/ruby/small.rb small.json && gzip -9 small.json
# 40 Session objects in an Array held by a Cache in the global $cache.
require 'objspace'
ObjectSpace.trace_object_allocations_start
class Session
  def initialize(id)
    @id = id
    @token = "token-#{id}"
  end
end
class Cache
  def initialize
    @sessions = Array.new(40) { |i| Session.new(i) }
  end
end
$cache = Cache.new
GC.start
File.open(ARGV[0], 'w') { |io| ObjectSpace.dump_all(output: io) }
