#!/bin/sh
# Line coverage of src/mcp (the MCP server) by its tests, measured with gcc
# --coverage and gcov: the unit test, the hostile-input test and the SDK test
# (skipped when Node.js/npm cannot be had: then the figure is lower).
#   sh tests/tools/mcp_coverage.sh [BUILD_DIR]     (default build-cov)
# Prints one line per file and the total ("N of M lines: P%").
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
b=${1:-$top/build-cov}
cmake -S "$top" -B "$b" -DCMAKE_BUILD_TYPE=Debug -DGCHEAP_TESTS=ON -DGCHEAP_BENCH=OFF \
    -DCMAKE_C_FLAGS="--coverage -O0" -DCMAKE_EXE_LINKER_FLAGS="--coverage" > /dev/null || exit 1
cmake --build "$b" -j2 --target gcheap test_mcp json_check > /dev/null || exit 1
find "$b" -name '*.gcda' -delete
"$b/tests/test_mcp" > /dev/null 2>&1 || echo "mcp_coverage: test_mcp failed" >&2
sh "$top/tests/cli/test_mcp_hostile.sh" "$b/gcheap" "$top/testdata" "$b/tests" | tail -n 1
sh "$top/tests/cli/test_mcp.sh" "$b/gcheap" "$top/testdata" "$b/tests" | tail -n 1
cd "$b/CMakeFiles/gcheapcli.dir/src/mcp" || exit 1
gcov -n ./*.gcno 2>/dev/null | grep -A1 "^File '.*src/mcp/" | paste - - |
    sed "s|^File '.*/src/mcp/\([^']*\)'.*Lines executed:\([0-9.]*\)% of \([0-9]*\)|\1 \2 \3|" |
    awk '{ printf "%-16s %6.2f%% of %d\n", $1, $2, $3; c += $2 * $3 / 100; t += $3 }
         END { printf "total: %.0f of %d lines: %.1f%%\n", c, t, 100 * c / t }'
