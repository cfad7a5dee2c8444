#!/bin/sh
# gcheap against the heap snapshot worker of Chrome DevTools itself: the npm
# package chrome-devtools-frontend (its TypeScript sources of
# front_end/entrypoints/heap_snapshot_worker/, bundled with esbuild from npm
# by tests/node/devtools_bundle.js) runs once per snapshot
# (tests/node/devtools_oracle.js) and tests/node/devtools_compare.js checks,
# in one run, every node's self size, retained size, distance and class and
# every Summary row's count, self size, retained size and distance against
# gcheap's `stat --retained --format json` and `objects --retained`.
# Snapshots: tests/node/leaky.js and tests/node/server_like.js (Node.js,
# v8.writeHeapSnapshot), tests/browser/detached_dom.html (headless Chromium
# over CDP, HeapProfiler.takeHeapSnapshot: detached DOM trees).
#   sh test_v8_devtools.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
# The npm packages go to a cache folder ($GCHEAP_CACHE, else
# ~/.cache/gcheap); without npm or the registry the test skips, saying so.
set -u
. "$(dirname "$0")/need.sh"
scratch v8_devtools "$1" "${3:-}" || exit 1
need test_v8_devtools nodejs node || exit 0
need test_v8_devtools npm npm || exit 0
here=$root/tests
DEVTOOLS_VERSION=1.0.1705227
ESBUILD_VERSION=0.28.2
cache=${GCHEAP_CACHE:-${HOME:-/tmp}/.cache/gcheap}/devtools-$DEVTOOLS_VERSION
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

if [ ! -s "$cache/worker.mjs" ]; then
    mkdir -p "$cache/esbuild" || exit 1
    if ! (cd "$cache" && npm pack --silent "chrome-devtools-frontend@$DEVTOOLS_VERSION" > /dev/null 2>&1 &&
          tar xzf "chrome-devtools-frontend-$DEVTOOLS_VERSION.tgz" &&
          rm -f "chrome-devtools-frontend-$DEVTOOLS_VERSION.tgz" &&
          cd esbuild && npm install --silent --no-save --no-audit --no-fund "esbuild@$ESBUILD_VERSION" > /dev/null 2>&1); then
        echo "SKIP test_v8_devtools: npm could not fetch chrome-devtools-frontend@$DEVTOOLS_VERSION and esbuild@$ESBUILD_VERSION"
        echo "0 passed, 0 failed (skipped)"
        exit 0
    fi
    node "$here/node/devtools_bundle.js" "$cache/esbuild" "$cache/package" "$cache/worker.mjs.tmp" &&
        mv "$cache/worker.mjs.tmp" "$cache/worker.mjs" || { echo "FAIL: the DevTools worker does not bundle"; exit 1; }
fi

compare() { # NAME SNAPSHOT
    mkdir -p "$tmp/$1"
    if ! node "$here/node/devtools_oracle.js" "$cache/worker.mjs" "$2" "$tmp/$1"; then
        bad "$1: the DevTools worker failed"
        return
    fi
    "$bin" stat --retained --format json "$2" > "$tmp/$1.stat.json" || bad "$1: stat exit $?"
    "$bin" objects --retained --format tsv "$2" > "$tmp/$1.objects.tsv" || bad "$1: objects exit $?"
    if node "$here/node/devtools_compare.js" "$tmp/$1" "$tmp/$1.stat.json" "$tmp/$1.objects.tsv" > "$tmp/$1.out"; then
        ok
    else
        bad "$1: gcheap differs from DevTools"
    fi
    sed "s/^/  $1: /" "$tmp/$1.out"
    # Without references (lean edges: only those the view asks about) the
    # rows must be those of --retained, which DevTools just confirmed.
    "$bin" stat --format tsv "$2" | LC_ALL=C sort > "$tmp/$1.lean" || bad "$1: stat exit $?"
    "$bin" stat --retained --format tsv "$2" | cut -f 1,2,4,5 | LC_ALL=C sort > "$tmp/$1.full"
    if [ -s "$tmp/$1.lean" ] && cmp -s "$tmp/$1.lean" "$tmp/$1.full"; then
        ok
    else
        bad "$1: stat without references differs from stat --retained"
    fi
}

(cd "$tmp" && node "$here/node/leaky.js" "$tmp/leaky.heapsnapshot" 1000 > /dev/null &&
    node "$here/node/server_like.js" "$tmp/server.heapsnapshot") || { echo "FAIL: node could not write the snapshots"; exit 1; }
compare leaky "$tmp/leaky.heapsnapshot"
compare server "$tmp/server.heapsnapshot"

# The old names still select the same objects (CI gates written before).
a=$("$bin" stat --format tsv --type Function "$tmp/server.heapsnapshot" | sed -n '2p')
b=$("$bin" stat --format tsv --type '(closure)' "$tmp/server.heapsnapshot" | sed -n '2p')
[ -n "$a" ] && [ "$a" = "$b" ] && ok || bad "--type '(closure)' is not Function: '$a' '$b'"

# --v8-raw: the sizes as written (stat equals the direct sum over the nodes array)
"$bin" stat --v8-raw --format json "$tmp/leaky.heapsnapshot" > "$tmp/raw.json" || bad "stat --v8-raw exit $?"
node "$here/node/stat_oracle.js" "$tmp/leaky.heapsnapshot" "$tmp/raw.json" Leaky=1000 Holder=1 > /dev/null && ok ||
    bad "stat --v8-raw differs from the direct sum over the nodes array"

if command -v chromium > /dev/null 2>&1; then
    if timeout 180 node "$here/browser/heap_snapshot.js" chromium "$here/browser/detached_dom.html" \
            "$tmp/page.heapsnapshot" 2> "$tmp/chromium.err"; then
        compare chromium "$tmp/page.heapsnapshot"
        "$bin" stat --format tsv --type 'Detached <div>' "$tmp/page.heapsnapshot" | grep -q '^20	' && ok ||
            bad "chromium: not 20 'Detached <div>'"
    else
        echo "SKIP chromium part: headless Chromium gave no snapshot: $(head -c 300 "$tmp/chromium.err")"
    fi
else
    echo "SKIP chromium part: no chromium (sh tests/setup.sh installs it)"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
