/* thin.h - test-only: how much of a long randomized or exhaustive loop a run
 * does. GCHEAP_TEST_THIN=K (default 1) runs every K-th case: tests/tsan.sh
 * sets it, since ThreadSanitizer slows the loops about tenfold and needs the
 * threaded paths exercised, not every one of thousands of inputs (the
 * Release and ASan runs do them all). */
#ifndef GCHEAP_TEST_THIN_H
#define GCHEAP_TEST_THIN_H

#include <stdlib.h>

static inline unsigned test_thin(void)
{
    const char *s = getenv("GCHEAP_TEST_THIN");
    long k = s ? strtol(s, NULL, 10) : 1;
    return k >= 1 && k <= 1000 ? (unsigned)k : 1;
}

#endif
