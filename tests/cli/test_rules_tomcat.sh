#!/bin/sh
# The stopped-classloader rule on a real Tomcat (Debian's tomcat10, started by
# this test in a folder of its own, on a loopback port). Three web
# applications are deployed: `leaky` starts a thread it never stops (the
# classic redeploy leak: the thread's class and context class loader are the
# application's), `clean` starts nothing, `running` stays deployed. `leaky`
# and `clean` are then undeployed (their folders removed: autoDeploy stops
# them) and the JVM dumps its heap. What the test built, checked against the
# dump:
#   - exactly one finding, stopped-classloader, on a Tomcat web application
#     class loader, whose reason names the lifecycle state Tomcat set
#     (DESTROYED) and whose path starts at the leaking thread, which Tomcat's
#     own log also names ("appears to have started a thread named
#     [leaky-poller]");
#   - the running application's loader (STARTED) is no finding, and the clean
#     one's is gone from the heap;
#   - --fail-on-rule exits 1.
#   sh test_rules_tomcat.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -u
. "$(dirname "$0")/need.sh"
scratch rules_tomcat "$1" "${3:-}" || exit 1
need test_rules_tomcat openjdk-17-jdk-headless java javac jcmd || exit 0
home=/usr/share/tomcat10
if [ ! -f "$home/bin/bootstrap.jar" ] && [ "$(id -u)" -eq 0 ] && command -v apt-get > /dev/null; then
    echo "test_rules_tomcat: installing tomcat10" >&2
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends tomcat10 > /dev/null 2>&1
fi
if [ ! -f "$home/bin/bootstrap.jar" ] || [ ! -f "$home/lib/servlet-api.jar" ]; then
    echo "SKIP test_rules_tomcat: no Tomcat in $home, and tomcat10 could not be installed (apt-get install tomcat10, as root; or sh tests/setup.sh)"
    echo "0 passed, 0 failed (skipped)"
    exit 0
fi
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

base=$tmp/base
mkdir -p "$base/conf" "$base/webapps" "$base/logs" "$base/temp" "$base/work"
cp /etc/tomcat10/web.xml "$base/conf/" 2> /dev/null || cp "$home/etc/web.xml" "$base/conf/" 2> /dev/null
# No jar scanning: deployment in a second instead of ten.
{ cat /etc/tomcat10/catalina.properties 2> /dev/null ||
    printf 'common.loader="${catalina.base}/lib","${catalina.base}/lib/*.jar","${catalina.home}/lib","${catalina.home}/lib/*.jar"\n'
  printf 'tomcat.util.scan.StandardJarScanFilter.jarsToSkip=*\n'; } > "$base/conf/catalina.properties"
port=$((20000 + $$ % 20000))
cat > "$base/conf/server.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<Server port="-1" shutdown="SHUTDOWN">
  <Service name="Catalina">
    <Connector port="$port" address="127.0.0.1" protocol="HTTP/1.1"/>
    <Engine name="Catalina" defaultHost="localhost" backgroundProcessorDelay="1">
      <Host name="localhost" appBase="webapps" unpackWARs="true" autoDeploy="true"/>
    </Engine>
  </Service>
</Server>
XML
for app in leaky clean; do
    mkdir -p "$base/webapps/$app/WEB-INF/classes"
    javac -cp "$home/lib/servlet-api.jar" -d "$base/webapps/$app/WEB-INF/classes" \
        "$root"/tests/java/tomcat/$app/*.java || { echo "FAIL: javac $app"; exit 1; }
done
cp -r "$base/webapps/clean" "$base/webapps/running"

java -Xmx192m -Dcatalina.home="$home" -Dcatalina.base="$base" -Djava.io.tmpdir="$base/temp" \
    -cp "$home/bin/bootstrap.jar:$home/bin/tomcat-juli.jar" org.apache.catalina.startup.Bootstrap start \
    > "$base/logs/out.txt" 2>&1 &
pid=$!
wait_log() { # PATTERN: until Tomcat's output has it (60 s at most)
    i=0
    while ! grep -q "$1" "$base/logs/out.txt" && [ $i -lt 600 ]; do
        kill -0 "$pid" 2> /dev/null || break
        sleep 0.1
        i=$((i + 1))
    done
    grep -q "$1" "$base/logs/out.txt" || { echo "FAIL: Tomcat never logged '$1'"; tail -20 "$base/logs/out.txt"; exit 1; }
}
wait_log "Server startup in"
rm -rf "$base/webapps/leaky" "$base/webapps/clean"
wait_log "Undeploying context \[/leaky\]"
wait_log "Undeploying context \[/clean\]"
wait_log "started a thread named \[leaky-poller\]"
sleep 1 # the undeploy finishes after its warnings
jcmd "$pid" GC.heap_dump "$tmp/tomcat.hprof" > /dev/null || { echo "FAIL: jcmd GC.heap_dump"; exit 1; }
kill "$pid" 2> /dev/null
wait "$pid" 2> /dev/null
pid=

"$bin" suspects --format tsv "$tmp/tomcat.hprof" > "$tmp/s.tsv" 2> "$tmp/err" || bad "suspects exited $?: $(head -2 "$tmp/err")"
got=$(awk -F'\t' '$2 == "finding" { print $7 "\t" $8 }' "$tmp/s.tsv")
case $got in
"stopped-classloader	org.apache.catalina.loader."*WebappClassLoader) ok ;;
*) bad "findings '$got', expected one stopped-classloader" ;;
esac
n=$(printf '%s\n' "$got" | grep -c .)
if [ "$n" -eq 1 ]; then ok; else bad "$n findings, expected 1"; fi
"$bin" suspects --format json "$tmp/tomcat.hprof" > "$tmp/s.json" 2> /dev/null
if grep -q '"reason":"WebappClassLoaderBase.state is DESTROYED' "$tmp/s.json"; then ok; else bad "no DESTROYED reason: $(head -c 400 "$tmp/s.json")"; fi
if grep -q '"holder":"runtime thread object, thread [0-9]* \\"leaky-poller\\"' "$tmp/s.json"; then ok; else
    bad "the path does not start at the leaky-poller thread: $(grep -o '"path":\[[^]]*' "$tmp/s.json" | head -c 600)"
fi
# Three loaders were made; the clean one was collected, the running one is STARTED.
loaders=$("$bin" objects --type '~WebappClassLoader' --format tsv "$tmp/tomcat.hprof" 2> /dev/null | tail -n +2 | wc -l)
if [ "$loaders" -eq 2 ]; then ok; else bad "$loaders web application loaders in the dump, expected 2 (leaky, running)"; fi
"$bin" suspects --fail-on-rule "$tmp/tomcat.hprof" > /dev/null 2>&1
st=$?
if [ $st -eq 1 ]; then ok; else bad "--fail-on-rule exited $st, expected 1"; fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
