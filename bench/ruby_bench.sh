#!/usr/bin/env bash
# bench/ruby_bench.sh - gcheap on a real Ruby heap dump (ObjectSpace.dump_all,
# written by bench/ruby/fill.rb with allocation tracing), per object against
# the .gclog reader on a gendump dump of the same object count, and against
# the Ruby tools: heapy (Debian's ruby-heapy: `heapy read DUMP`) and the
# floor any Ruby tool sits on, JSON.parse of every line (bench/ruby/json_floor.rb).
# Run by bench/run.sh (unless --no-ruby), or alone:
#
#   bench/ruby_bench.sh [--gcheap PATH] [--gendump PATH] [--objects N] [--dir DIR]
#
# Each command runs 3 times in turn (ruby tools once: they take a minute);
# the median wall time and the median processor time (user + system, all
# threads: what a shared machine does not inflate) are shown, and ns of
# processor time per object (of the dump's object lines). One machine, one
# run: the ratios are what to read.
set -u
here=$(cd "$(dirname "$0")" && pwd)
GCHEAP=$here/../build/gcheap
GENDUMP=
N=1000000
DIR=${GCHEAP_BENCH_DIR:-/tmp/gcheap-bench}
while [ $# -gt 0 ]; do
    case $1 in
    --gcheap) GCHEAP=$2; shift 2 ;;
    --gendump) GENDUMP=$2; shift 2 ;;
    --objects) N=$2; shift 2 ;;
    --dir) DIR=$2; shift 2 ;;
    *) echo "ruby_bench.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
done
[ -n "$GENDUMP" ] || GENDUMP=$(dirname "$GCHEAP")/gendump
command -v ruby > /dev/null || { echo "ruby_bench.sh: no ruby (apt-get install ruby): no Ruby rows"; exit 0; }
mkdir -p "$DIR"
dump=$DIR/ruby-$N.json
if [ ! -s "$dump" ]; then
    echo "ruby_bench.sh: writing $dump with ruby" >&2
    ruby "$here/ruby/fill.rb" "$N" "$dump" || { echo "ruby_bench.sh: ruby failed"; exit 0; }
fi
objects=$(grep -vc '"type":"ROOT"' "$dump")
gclog=$DIR/ruby-twin-$objects.gclog
[ -s "$gclog" ] || "$GENDUMP" --objects "$objects" -o "$gclog" || { echo "ruby_bench.sh: gendump failed"; exit 0; }

wall() { # command... -> "WALL CPU" seconds on stdout; output thrown away
    /usr/bin/time -f '%e %U %S' -o "$DIR/time" "$@" > /dev/null 2>&1
    awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' "$DIR/time"
}
median3() { sort -n -k2 | sed -n 2p; }
row() { # label "WALL CPU"
    set -- "$1" $2
    awk -v l="$1" -v w="$2" -v c="$3" -v n="$objects" \
        'BEGIN { printf "%-44s wall %8.3f s  cpu %8.3f s  %8.1f ns/object\n", l, w, c, c * 1e9 / n }'
}
cpu() { echo "$2"; }

echo "Ruby heap dump: $dump ($(du -m "$dump" | cut -f1) MB, $objects objects; $(ruby -v | cut -d' ' -f1-2))"
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) processors"
declare -A res
for cmd in "stat" "stat --live"; do
    for f in "$dump" "$gclog"; do
        : > "$DIR/t"
        for _ in 1 2 3; do
            # shellcheck disable=SC2086
            wall "$GCHEAP" $cmd "$f" >> "$DIR/t"
        done
        res["$cmd $f"]=$(median3 < "$DIR/t")
    done
    row "gcheap $cmd (ruby)" "${res["$cmd $dump"]}"
    row "gcheap $cmd (.gclog, same object count)" "${res["$cmd $gclog"]}"
done
floor=$(wall ruby "$here/ruby/json_floor.rb" "$dump")
row "ruby JSON.parse of every line (the floor)" "$floor"
if command -v heapy > /dev/null; then
    heapy_s=$(wall heapy read "$dump")
    row "heapy read ($(dpkg-query -W -f '${Version}' ruby-heapy 2>/dev/null || echo '?'))" "$heapy_s"
else
    heapy_s=
    echo "heapy: not installed (apt-get install ruby-heapy)"
fi
ratio() { awk -v a="$(cpu $1)" -v b="$(cpu $2)" 'BEGIN { if (b > 0) printf "%.1f", a / b }'; }
echo "Ratios of processor time: ruby/.gclog per object: stat $(ratio "${res["stat $dump"]}" "${res["stat $gclog"]}"), stat --live $(ratio "${res["stat --live $dump"]}" "${res["stat --live $gclog"]}");" \
     "JSON.parse floor / gcheap stat: $(ratio "$floor" "${res["stat $dump"]}")x${heapy_s:+; heapy read / gcheap stat: $(ratio "$heapy_s" "${res["stat $dump"]}")x (target >= 20x)}"
