# The floor a Ruby tool cannot beat: the dump read line by line with
# JSON.parse and counted per type (what `heapy read` does first, with
# nothing else). bench/ruby_bench.sh times it.
require 'json'
counts = Hash.new(0)
File.foreach(ARGV[0]) { |line| counts[JSON.parse(line)['type']] += 1 }
counts.sort_by { |_, c| -c }.first(5).each { |t, c| puts "#{c} #{t}" }
