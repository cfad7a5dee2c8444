/* Internal tuning knobs: see tuning.h. */
#include "tuning.h"

#define DEFAULT_PARALLEL_MIN_REFS ((size_t)1 << 16)
#define DEFAULT_PARSE_BLOCK ((size_t)256 << 10)
#define DEFAULT_READ_BLOCK ((size_t)2 << 20)
#define DEFAULT_DFS_TOUCH_AHEAD ((size_t)1 << 16)

static const gch_tuning defaults = { DEFAULT_PARALLEL_MIN_REFS, DEFAULT_PARSE_BLOCK,
                                     DEFAULT_READ_BLOCK, 0, DEFAULT_DFS_TOUCH_AHEAD, 0, 0, 0, 0 };

static gch_tuning knobs = { DEFAULT_PARALLEL_MIN_REFS, DEFAULT_PARSE_BLOCK, DEFAULT_READ_BLOCK, 0,
                            DEFAULT_DFS_TOUCH_AHEAD, 0, 0, 0, 0 };

gch_tuning gch_tuning_get(void) { return knobs; }

void gch_internal_set_tuning(const gch_tuning *t) { knobs = t ? *t : defaults; }
