#!/bin/sh
# `gcheap waste` on real HPROF dumps of a JVM that planted known waste.
#   sh test_waste_jvm.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
#
# tests/java/Waste.java plants duplicate strings (1000 and 37 copies made at
# run time, and 9: under --min-count), equal arrays (50 byte[1000], 20
# int[64]), empty collections (2000 WasteList held by WasteHolder.list, 500
# WasteMap held by an Object[], 300 WasteSet) and 100 under-filled
# SparseList(1000) of 5 elements. The expected rows are computed from other
# commands' output on the same dump, never from `waste`: the counts the
# program planted, each object's size from `objects --values`, `stat` and
# `refs` (the String's value array, a collection's backing array, a set's
# map), and from those the bytes and the wasted bytes by the rules of
# docs/waste.md. A run of the program that plants nothing shows no section
# above the default thresholds.
#
# Needs java, javac and jcmd: installed with apt-get (openjdk-17-jdk-headless)
# when missing; skipped with a message only when that is impossible.
set -u
. "$(dirname "$0")/need.sh"
scratch waste_jvm "$1" "${3:-}" || exit 1
json_check=${3:+$(cd "$3" && pwd)/json_check}
need test_waste_jvm openjdk-17-jdk-headless java javac jcmd || exit 0
fail=0
pass=0
bad() {
    echo "FAIL: $*"
    fail=1
}
ok() { pass=$((pass + 1)); }

javac -encoding UTF-8 -d "$tmp" "$root/tests/java/Waste.java" || { echo "FAIL: javac"; exit 1; }

# dump NAME [ARGS]: runs Waste, writes NAME.hprof.
dump() {
    name=$1
    shift
    rm -f "$tmp/in" "$tmp/out"
    mkfifo "$tmp/in"
    java -Xmx64m -cp "$tmp" Waste "$@" < "$tmp/in" > "$tmp/out" &
    pid=$!
    exec 3> "$tmp/in"
    i=0
    while [ ! -s "$tmp/out" ] && [ $i -lt 300 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    [ -s "$tmp/out" ] || { echo "FAIL: Waste did not start"; exit 1; }
    jcmd "$pid" GC.heap_dump "$tmp/$name.hprof" > /dev/null || bad "jcmd GC.heap_dump ($name)"
    echo >&3
    exec 3>&-
    wait "$pid" 2> /dev/null
    pid=
}

dump planted
d=$tmp/planted.hprof
"$bin" stat -q "$d" > /dev/null || bad "stat exited $?"
"$bin" waste -q --holders --threshold 0 --format tsv "$d" > "$tmp/waste.tsv" || bad "waste exited $?"
"$bin" waste -q --holders --threshold 0 --min-count 9 --format tsv "$d" > "$tmp/waste9.tsv" || bad "waste --min-count 9 exited $?"
"$bin" objects -q --values --type java.lang.String --format tsv "$d" > "$tmp/strings.tsv" || bad "objects --values"

# col FILE NAME: the column number of NAME in a tsv header.
col() { head -1 "$1" | tr '\t' '\n' | awk -v n="$2" '$0 == n { print NR; exit }'; }
# row FILE SECTION DETAIL_OR_TYPE_COLUMN VALUE: the waste row (tsv) whose column matches.
row() { awk -F '\t' -v s="$2" -v c="$3" -v v="$4" '$1 == s && $c == v' "$1"; }
field() { echo "$1" | cut -f"$2"; }
cid=$(col "$tmp/strings.tsv" id); csize=$(col "$tmp/strings.tsv" size); cval=$(col "$tmp/strings.tsv" value)
wdetail=$(col "$tmp/waste.tsv" detail); wtype=$(col "$tmp/waste.tsv" type)
wcount=$(col "$tmp/waste.tsv" count); wbytes=$(col "$tmp/waste.tsv" bytes); wwasted=$(col "$tmp/waste.tsv" wasted)
wlen=$(col "$tmp/waste.tsv" length); wfill=$(col "$tmp/waste.tsv" fill)

# sizes_of TYPE < ids: the sizes of the out-references of type TYPE of the ids.
sizes_of() {
    "$bin" refs -q --out --format tsv "$d" - | awk -F '\t' -v t="$1" '
        NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "size") s = i; if ($i == "type") c = i }; next }
        $c == t { print $s }'
}
sum() { awk '{ s += $1 } END { print s + 0 }'; }
ids_of() { "$bin" objects -q --type "$1" --format tsv "$d" | awk -F '\t' 'NR > 1 { print $1 }'; }

# expect_row FILE LABEL ROW COUNT BYTES WASTED
expect_row() {
    if [ -z "$3" ]; then
        bad "$2: no row"
        return
    fi
    [ "$(field "$3" "$wcount")" = "$4" ] && ok || bad "$2: count $(field "$3" "$wcount"), expected $4"
    [ "$(field "$3" "$wbytes")" = "$5" ] && ok || bad "$2: bytes $(field "$3" "$wbytes"), expected $5"
    [ "$(field "$3" "$wwasted")" = "$6" ] && ok || bad "$2: wasted $(field "$3" "$wwasted"), expected $6"
}

# Duplicate strings: count from objects --values, sizes of the String and its value array.
dup_string() {
    text=$1 planted=$2 file=$3
    n=$(awk -F '\t' -v c="$cval" -v v="$text" 'NR > 1 && $c == v' "$tmp/strings.tsv" | wc -l | tr -d ' ')
    [ "$n" = "$planted" ] && ok || bad "\"$text\": $n Strings in the dump, the program made $planted"
    s=$(awk -F '\t' -v c="$cval" -v v="$text" -v k="$csize" 'NR > 1 && $c == v { print $k; exit }' "$tmp/strings.tsv")
    a=$(awk -F '\t' -v c="$cval" -v v="$text" -v k="$cid" 'NR > 1 && $c == v { print $k }' "$tmp/strings.tsv" |
        sizes_of 'byte[]' | sort -u)
    [ "$(echo "$a" | wc -l)" = 1 ] || bad "\"$text\": value arrays of several sizes: $a"
    expect_row "$file" "duplicate \"$text\"" "$(row "$file" duplicate-strings "$wdetail" "$text")" \
        "$n" $((n * (s + a))) $(((n - 1) * (s + a)))
}
dup_string "gcheap waste dup 1" 1000 "$tmp/waste.tsv"
dup_string "gcheap waste dup 2 snowman ☃" 37 "$tmp/waste.tsv"
[ -z "$(row "$tmp/waste.tsv" duplicate-strings "$wdetail" "gcheap waste dup 3")" ] && ok ||
    bad "9 copies reported under the default --min-count 10"
dup_string "gcheap waste dup 3" 9 "$tmp/waste9.tsv"
r=$(row "$tmp/waste.tsv" duplicate-strings "$wdetail" "gcheap waste dup 1")
[ "$(field "$r" "$wlen")" = 18 ] && ok || bad "dup 1: length $(field "$r" "$wlen"), expected 18"

# Duplicate arrays: the holders' arrays, sizes from refs.
ids_of 'Waste$ArrayHolder' > "$tmp/holders"
for t in 'byte[] 50 1000' 'int[] 20 64'; do
    set -- $t
    sizes=$(sizes_of "$1" < "$tmp/holders")
    n=$(echo "$sizes" | wc -l | tr -d ' ')
    [ "$n" = "$2" ] && ok || bad "$1: $n arrays held, the program made $2"
    one=$(echo "$sizes" | sort -u)
    r=$(awk -F '\t' -v t="$1" -v c="$wtype" -v l="$wlen" -v n="$3" '$1 == "duplicate-arrays" && $c == t && $l == n' "$tmp/waste.tsv")
    expect_row "$tmp/waste.tsv" "duplicate $1" "$r" "$n" $((n * one)) $(((n - 1) * one))
done

# Empty collections: the type's bytes from stat, plus backing arrays / inner maps from refs.
typerow() { awk -F '\t' -v s="$1" -v c="$wtype" -v t="$2" '$1 == s && $c == t' "$tmp/waste.tsv"; }
statbytes() { "$bin" stat -q --type "$1" --format tsv "$d" | awk -F '\t' 'NR == 2 { print $2 }'; }
statcount() { "$bin" stat -q --type "$1" --format tsv "$d" | awk -F '\t' 'NR == 2 { print $1 }'; }
own=$(statbytes 'Waste$WasteList')
arrays=$(ids_of 'Waste$WasteList' | sizes_of 'java.lang.Object[]' | sum)
r=$(typerow empty-collections 'Waste$WasteList')
expect_row "$tmp/waste.tsv" "empty WasteList" "$r" "$(statcount 'Waste$WasteList')" $((own + arrays)) $((own + arrays))
[ "$(statcount 'Waste$WasteList')" = 2000 ] && ok || bad "WasteList: $(statcount 'Waste$WasteList') in the dump"
[ "$(field "$r" "$wdetail")" = 'held by Waste$WasteHolder.list (2000)' ] && ok || bad "WasteList holder: $(field "$r" "$wdetail")"
own=$(statbytes 'Waste$WasteMap')
r=$(typerow empty-collections 'Waste$WasteMap')
expect_row "$tmp/waste.tsv" "empty WasteMap" "$r" 500 "$own" "$own"
[ "$(field "$r" "$wdetail")" = 'held by an element of java.lang.Object[] (500)' ] && ok || bad "WasteMap holder: $(field "$r" "$wdetail")"
own=$(statbytes 'Waste$WasteSet')
maps=$(ids_of 'Waste$WasteSet' | sizes_of 'java.util.HashMap' | sum)
expect_row "$tmp/waste.tsv" "empty WasteSet" "$(typerow empty-collections 'Waste$WasteSet')" 300 $((own + maps)) $((own + maps))

# Under-filled: 5 of 1000 slots in each; wasted = the array's bytes x 995/1000, rounded down.
own=$(statbytes 'Waste$SparseList')
sizes=$(ids_of 'Waste$SparseList' | sizes_of 'java.lang.Object[]')
arrays=$(echo "$sizes" | sum)
wasted=$(echo "$sizes" | awk '{ s += int($1 * 995 / 1000) } END { print s }')
r=$(typerow underfilled-collections 'Waste$SparseList')
expect_row "$tmp/waste.tsv" "under-filled SparseList" "$r" 100 $((own + arrays)) "$wasted"
[ "$(field "$r" "$wfill")" = 0.5 ] && ok || bad "SparseList fill $(field "$r" "$wfill"), expected 0.5"

# json and csv carry the same rows; table output cuts nothing here.
"$bin" waste -q --threshold 0 --format json "$d" > "$tmp/waste.json" || bad "json exited $?"
if [ -n "$json_check" ] && [ -x "$json_check" ]; then
    "$json_check" "$tmp/waste.json" > /dev/null && ok || bad "json invalid"
fi
n=$(grep -o '"section":"[a-z-]*"' "$tmp/waste.json" | grep -vc '"total"')
[ "$n" = $(($(wc -l < "$tmp/waste.tsv") - 1)) ] && ok || bad "json has $n rows, tsv $(($(wc -l < "$tmp/waste.tsv") - 1))"

# check --max-waste: the sum of every row of `waste --threshold 0`; strictly greater fails.
total=$(awk -F '\t' -v c="$wwasted" 'NR > 1 { s += $c } END { print s }' "$tmp/waste.tsv")
"$bin" check -q --max-waste "$total" "$d" > /dev/null && ok || bad "check --max-waste $total (the total) failed"
"$bin" check -q --max-waste $((total - 1)) "$d" > /dev/null 2> "$tmp/err"
[ $? = 1 ] && ok || bad "check --max-waste $((total - 1)) did not exit 1"
grep -q "total wasted bytes" "$tmp/err" && ok || bad "check --max-waste: no limit line: $(cat "$tmp/err")"

# A program that plants nothing: no section above the default thresholds.
dump clean clean
"$bin" waste -q --format tsv "$tmp/clean.hprof" > "$tmp/clean.tsv" || bad "waste (clean) exited $?"
[ "$(wc -l < "$tmp/clean.tsv" | tr -d ' ')" = 1 ] && ok || { bad "rows on the clean dump:"; cat "$tmp/clean.tsv"; }
"$bin" waste -q "$d" | grep -q 'Waste$WasteList' && ok || bad "planted dump: WasteList not above the default threshold"

echo "$pass passed, $fail failed"
exit $fail
