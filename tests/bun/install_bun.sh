# Sourced by the tests that need Bun (real JavaScriptCore heap snapshots):
# `bun_install TEST DIR` installs the npm package bun (pinned) into DIR with
# npm when DIR has no working one, and sets $bun to its binary. The package
# `bun` ships the binary as an optional dependency (@oven/bun-linux-x64 and
# the others); its postinstall links it to node_modules/bun/bin/bun.exe.
# Without AVX2 the -baseline build is the one that runs. Returns 1 after
# printing the one SKIP line when Bun cannot be had (no npm, no network).
BUN_VERSION=1.4.5
bun_works() { [ -x "$1" ] && "$1" --version > /dev/null 2>&1; }
bun_find() { # DIR: sets bun to the first binary of DIR that runs
    for _b in "$1/node_modules/bun/bin/bun.exe" \
              "$1/node_modules/@oven/bun-linux-x64/bin/bun" \
              "$1/node_modules/@oven/bun-linux-x64-baseline/bin/bun" \
              "$1/node_modules/@oven/bun-linux-aarch64/bin/bun"; do
        if bun_works "$_b"; then
            bun=$_b
            return 0
        fi
    done
    return 1
}
bun_install() { # TEST DIR
    mkdir -p "$2" || return 1
    bun_find "$2" && return 0
    if ! command -v npm > /dev/null 2>&1; then
        need "$1" npm npm || return 1
    fi
    echo "$1: installing bun@$BUN_VERSION from npm into $2" >&2
    (cd "$2" && npm install --no-audit --no-fund --foreground-scripts "bun@$BUN_VERSION" > install.log 2>&1)
    bun_find "$2" && return 0
    if ! grep -qw avx2 /proc/cpuinfo 2>/dev/null; then
        (cd "$2" && npm install --no-audit --no-fund "@oven/bun-linux-x64-baseline@$BUN_VERSION" >> install.log 2>&1)
        bun_find "$2" && return 0
    fi
    echo "SKIP $1: Bun could not be installed from npm (npm install bun@$BUN_VERSION into $2; see $2/install.log)"
    echo "0 passed, 0 failed (skipped)"
    return 1
}
