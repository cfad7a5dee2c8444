#!/bin/sh
# Installs what the test suite needs, when it is missing (Debian/Ubuntu, as
# root or with sudo): cmocka to build the tests; a JDK (real HPROF dumps and
# the JVM's own class histogram), Node.js (real V8 heap snapshots), Ruby
# (real ObjectSpace.dump_all dumps) and Chromium (the HTML report in a real
# browser) for the tests that compare with real producers. When another
# apt-get or dpkg holds the package lock, it waits for it (up to
# GCHEAP_APT_LOCK_TIMEOUT seconds, 900 by default) with a message. cmocka is
# required (without it this fails: no test can be built); a producer that
# cannot be installed is reported here, and each test that needs it tries
# again itself and prints one SKIP line (tests/cli/need.sh).
#   sh tests/setup.sh            # everything
#   GCHEAP_NO_INSTALL=1 ...      # install nothing (tests skip what is missing)
set -u
[ "${GCHEAP_NO_INSTALL:-0}" = 1 ] && exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && command -v sudo > /dev/null && sudo=sudo
updated=0
# Another apt-get or dpkg (an unattended upgrade, another install) may hold
# the package lock: apt waits for it up to this long instead of failing.
lock_wait=${GCHEAP_APT_LOCK_TIMEOUT:-900}
apt() { # apt-get ARGS..., waiting for the lock; its last error line on failure
    if ! $sudo apt-get -o DPkg::Lock::Timeout="$lock_wait" "$@" > "${TMPDIR:-/tmp}/gcheap-setup.$$" 2>&1; then
        grep -E '^(E|W):' "${TMPDIR:-/tmp}/gcheap-setup.$$" | tail -1 >&2
        rm -f "${TMPDIR:-/tmp}/gcheap-setup.$$"
        return 1
    fi
    rm -f "${TMPDIR:-/tmp}/gcheap-setup.$$"
}
install() { # PACKAGE...
    command -v apt-get > /dev/null 2>&1 || { echo "tests/setup.sh: no apt-get: cannot install $*" >&2; return 1; }
    if [ "$(id -u)" -ne 0 ] && [ -z "$sudo" ]; then
        echo "tests/setup.sh: not root and no sudo: cannot install $*" >&2
        return 1
    fi
    echo "tests/setup.sh: installing $* (waiting up to ${lock_wait}s for the package lock if another apt or dpkg holds it)" >&2
    if [ $updated -eq 0 ]; then
        apt update -qq
        updated=1
    fi
    DEBIAN_FRONTEND=noninteractive apt install -y -qq --no-install-recommends "$@" ||
        { echo "tests/setup.sh: could not install $*" >&2; return 1; }
}
have_header() {
    for d in /usr/include /usr/local/include; do
        [ -f "$d/$1" ] && return 0
    done
    return 1
}
have_header cmocka.h || install libcmocka-dev || exit 1
{ command -v javac > /dev/null && command -v jcmd > /dev/null; } || install openjdk-17-jdk-headless
command -v node > /dev/null || install nodejs
command -v ruby > /dev/null || install ruby
command -v chromium > /dev/null || install chromium
# A real Tomcat for the stopped-classloader leak rule (tests/cli/test_rules_tomcat.sh).
[ -f /usr/share/tomcat10/bin/bootstrap.jar ] || install tomcat10
exit 0
