/* Failed assertions: see invariant.h. */
#include "invariant.h"

#include <stdio.h>
#include <stdlib.h>

static gch_assert_handler handler;

void gch_internal_set_assert_handler(gch_assert_handler h) { handler = h; }

void gch_assert_failed(const char *cond, const char *file, int line)
{
    if (handler) {
        handler(cond, file, line);
        return;
    }
    /* The library's one message of its own: a bug, not an input error. */
    fprintf(stderr, "gcheap: internal error: %s:%d: assertion '%s' failed\n", file, line, cond);
    abort();
}
