#!/bin/sh
# The index's byte-identical promise (tests/cli/index_compare.sh) on every
# file of testdata/ (the readers' cases, hostile and malformed inputs too:
# those must fail to index with the parse's own error).
#
#   sh tests/cli/test_index_all.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -uf
G=$1
T=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_index_all.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
files=$(cd "$T" && find . -type f ! -name '*.case' ! -name '*.md' ! -name '*.sh' ! -name 'README*' \
    ! -name '*.gcx' | LC_ALL=C sort | sed "s|^\./|$T/|")
# shellcheck disable=SC2086
sh "$(dirname "$0")/index_compare.sh" "$G" "$tmp" $files
