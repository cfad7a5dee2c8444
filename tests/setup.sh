#!/bin/sh
# Installs what the test suite needs, when it is missing (Debian/Ubuntu, as
# root or with sudo): cmocka to build the tests; a JDK (real HPROF dumps and
# the JVM's own class histogram), Node.js (real V8 heap snapshots), Ruby
# (real ObjectSpace.dump_all dumps) and Chromium (the HTML report in a real
# browser) for the tests that compare
# with real producers. A tool that cannot be installed is reported here and
# the tests that need it skip with a message saying so.
#   sh tests/setup.sh            # everything
#   GCHEAP_NO_INSTALL=1 ...      # install nothing (tests skip what is missing)
set -u
[ "${GCHEAP_NO_INSTALL:-0}" = 1 ] && exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && command -v sudo > /dev/null && sudo=sudo
updated=0
install() { # PACKAGE...
    command -v apt-get > /dev/null 2>&1 || { echo "tests/setup.sh: no apt-get: cannot install $*" >&2; return 1; }
    if [ $updated -eq 0 ]; then
        $sudo apt-get update -qq > /dev/null 2>&1
        updated=1
    fi
    echo "tests/setup.sh: installing $*" >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" > /dev/null 2>&1 ||
        { echo "tests/setup.sh: could not install $* (the tests that need it will skip)" >&2; return 1; }
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
exit 0
