/* sweeps.h - test-only: a unit test whose long sweeps (every truncation,
 * thousands of random corruptions) belong to the `slow` label. Such a test
 * names them test_sweep_* and calls sweeps_select() first in main; ctest runs
 * it twice (tests/CMakeLists.txt, gcheap_sweeps()): `fast` with
 * GCHEAP_SWEEPS=skip (every test but the sweeps) and `slow` with
 * GCHEAP_SWEEPS=only (the sweeps alone). Run by hand, it runs everything. */
#ifndef GCHEAP_TEST_SWEEPS_H
#define GCHEAP_TEST_SWEEPS_H

#include <stdlib.h>
#include <string.h>

static inline void sweeps_select(void)
{
    const char *mode = getenv("GCHEAP_SWEEPS");
    if (mode && strcmp(mode, "skip") == 0)
        cmocka_set_skip_filter("test_sweep_*");
    else if (mode && strcmp(mode, "only") == 0)
        cmocka_set_test_filter("test_sweep_*");
}

#endif
