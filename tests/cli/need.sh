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
        apt-get update -qq > /dev/null 2>&1
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$_package" > /dev/null 2>&1
    fi
    for _tool in "$@"; do
        if ! command -v "$_tool" > /dev/null 2>&1; then
            echo "SKIP $_test: no $_tool, and $_package could not be installed (apt-get install $_package, as root; or sh tests/setup.sh)"
            echo "0 passed, 0 failed (skipped)"
            return 1
        fi
    done
}
