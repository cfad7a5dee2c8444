# Sourced by the tests that need a real producer or peer (a JDK, Node.js,
# Chromium): `need TEST PACKAGE TOOL...` installs PACKAGE with apt-get when
# a TOOL is missing (as root, where apt-get exists), then returns 0 when every
# TOOL is on PATH. Otherwise it prints the one SKIP line that says why and
# what would install them, and returns 1: the caller exits 0.
need() {
    _test=$1 _package=$2
    shift 2
    _missing=
    for _tool in "$@"; do
        command -v "$_tool" > /dev/null 2>&1 || _missing="$_missing $_tool"
    done
    [ -z "$_missing" ] && return 0
    if [ "$(id -u)" -eq 0 ] && command -v apt-get > /dev/null 2>&1; then
        echo "$_test: installing $_package (missing:$_missing)" >&2
        # Wait for the package lock rather than fail when another apt holds it.
        apt-get -o DPkg::Lock::Timeout="${GCHEAP_APT_LOCK_TIMEOUT:-900}" update -qq > /dev/null 2>&1
        DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout="${GCHEAP_APT_LOCK_TIMEOUT:-900}" \
            install -y -qq "$_package" > /dev/null 2>&1
    fi
    for _tool in "$@"; do
        if ! command -v "$_tool" > /dev/null 2>&1; then
            echo "SKIP $_test: no $_tool, and $_package could not be installed (apt-get install $_package, as root; or sh tests/setup.sh)"
            echo "0 passed, 0 failed (skipped)"
            return 1
        fi
    done
}

# scratch NAME GCHEAP_BIN [BUILD_TESTS_DIR]: the start every such test shares.
# Sets bin (the program, absolute: the tests cd), root (the repository) and
# tmp (a new folder under BUILD_TESTS_DIR, else $TMPDIR or /tmp), and traps
# the exit to stop $pid (a producer the test started in the background, when
# set), close descriptor 3 (its control pipe) and remove tmp. 1 on failure.
scratch() {
    case $2 in
    /*) bin=$2 ;;
    *) bin=$(pwd)/$2 ;;
    esac
    root=$(cd "$(dirname "$0")/../.." && pwd)
    _work=$(cd "${3:-${TMPDIR:-/tmp}}" && pwd) || return 1
    tmp=$(mktemp -d "$_work/$1.XXXXXX") || return 1
    pid=
    trap '[ -n "$pid" ] && kill "$pid" 2> /dev/null; exec 3>&- 2> /dev/null; rm -rf "$tmp"' EXIT
    trap 'exit 130' INT TERM
}
