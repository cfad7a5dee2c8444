#!/bin/sh
# Every thread gcheap starts goes through the threading shim
# (src/util/threading.c; the program reaches it through gcheap/task.h): under
# ThreadSanitizer the shim uses POSIX threads, which TSan sees, while glibc's
# thrd_create bypasses its interceptors and every race check on such a thread
# is wrong (issue 36, finding 7: report_data.c started one with thrd_create).
# This lists any other file that creates a thread itself.
#   sh tests/cli/test_threading_shim.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
found=$(grep -rlE '\b(thrd_create|pthread_create)[[:space:]]*\(' "$root/src" | grep -v '/src/util/threading\.c$')
if [ -n "$found" ]; then
    echo "FAIL - threads started outside the shim in:"
    echo "$found"
    exit 1
fi
echo "ok   - no thread is started outside src/util/threading.c"
