#!/bin/sh
# A real `jcmd PID GC.heap_dump -gz=1` dump (HotSpot writes gzip members of
# 1 MiB each, the first with the comment "HPROF BLOCKSIZE=1048576") reads like
# its uncompressed twin: every command `gcheap --help` lists prints the same
# output, status and messages for dump.hprof.gz and for `gzip -dc` of it. Until
# an HPROF reader is merged both are refused alike; the decompression (every
# member's CRC) is exercised either way, and the comparison becomes the real
# one once HPROF is read.
#
#   sh test_gzip_jcmd.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -u
bin=$1
. "$(dirname "$0")/need.sh"
need test_gzip_jcmd gzip gzip || exit 0
need test_gzip_jcmd openjdk-17-jdk-headless java jcmd || exit 0
pass=0
fail=0
check() {
    if eval "$2"; then pass=$((pass + 1)); else echo "FAIL: $1"; fail=$((fail + 1)); fi
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_gzip_jcmd.XXXXXX") || exit 1
pid=
trap '[ -n "$pid" ] && kill "$pid" 2> /dev/null; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

cat > "$tmp/Hold.java" <<'JAVA'
import java.util.*;
public class Hold {
    public static void main(String[] args) throws Exception {
        List<Object> keep = new ArrayList<>();
        for (int i = 0; i < 20000; i++) keep.add(new int[i % 64]);
        keep.add("a string kept alive");
        System.out.println("ready");
        System.out.flush();
        Thread.sleep(120000);
        System.out.println(keep.size());
    }
}
JAVA
java -Xmx64m "$tmp/Hold.java" > "$tmp/java.out" 2>&1 &
pid=$!
for _ in $(seq 1 60); do
    grep -q ready "$tmp/java.out" 2> /dev/null && break
    sleep 0.5
done
jcmd "$pid" GC.heap_dump -gz=1 "$tmp/dump.hprof.gz" > "$tmp/jcmd.out" 2>&1
kill "$pid" 2> /dev/null
pid=
if [ ! -s "$tmp/dump.hprof.gz" ]; then
    echo "FAIL: jcmd wrote no dump: $(cat "$tmp/jcmd.out")"
    exit 1
fi
gzip -dc "$tmp/dump.hprof.gz" > "$tmp/dump.hprof"
check "jcmd -gz output decompresses with gzip" '[ -s "$tmp/dump.hprof" ]'
members=$(od -An -c "$tmp/dump.hprof.gz" | tr -d ' \n' | grep -o 'HPROFBLOCKSIZE' | wc -l)
check "the dump has the HPROF block-size comment" '[ "$members" -ge 1 ]'

for cmd in $("$bin" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p'); do
    case $cmd in
    shell | mcp) continue ;; # standard input is their own (tests/cli/test_shell.sh, test_mcp.sh)
    index) continue ;;       # writes DUMP.gcx beside the dump, never from a pipe: tests/cli/test_index.sh
    waste) continue ;;       # HPROF contents are read again from a plain file only (docs/waste.md)
    esac
    args=
    [ "$cmd" = diff ] && args="$tmp/dump.hprof"
    "$bin" "$cmd" "$tmp/dump.hprof" $args > "$tmp/a" 2> "$tmp/ea"
    sa=$?
    [ "$cmd" = diff ] && args="$tmp/dump.hprof.gz"
    "$bin" "$cmd" "$tmp/dump.hprof.gz" $args > "$tmp/b" 2> "$tmp/eb"
    sb=$?
    [ "$cmd" = info ] && grep -v '^compression  *gzip$' "$tmp/b" > "$tmp/b.f" && mv "$tmp/b.f" "$tmp/b"
    if [ "$cmd" = report ]; then # the page names the file it shows
        for x in a b; do
            sed "s|$tmp/dump.hprof.gz|DUMP|g; s|$tmp/dump.hprof|DUMP|g" "$tmp/$x" > "$tmp/$x.f" && mv "$tmp/$x.f" "$tmp/$x"
        done
    fi
    sed "s|$tmp/dump.hprof.gz|DUMP|g; s|$tmp/dump.hprof|DUMP|g; s| (in the decompressed data)||" "$tmp/ea" > "$tmp/ea.n"
    sed "s|$tmp/dump.hprof.gz|DUMP|g; s|$tmp/dump.hprof|DUMP|g; s| (in the decompressed data)||" "$tmp/eb" > "$tmp/eb.n"
    check "$cmd: status" '[ $sa -eq $sb ]'
    check "$cmd: output" 'cmp -s "$tmp/a" "$tmp/b"'
    check "$cmd: messages" 'cmp -s "$tmp/ea.n" "$tmp/eb.n"'
    # A gzip error would mean the decompression failed on jcmd's output.
    check "$cmd: no gzip error" '! grep -q "gzip:" "$tmp/eb"'
done

echo "test_gzip_jcmd: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
