/* A series of dumps compared by gch_leaks_* (gcheap leaks, gcheap report
 * DUMP1 DUMP2 DUMP3 ...): loading the later dumps one at a time through the
 * session, the checks that they are one process in one format, and the rows
 * in the order `leaks` shows them. One implementation for both commands, so
 * that the report's leak rows are the ones `leaks` prints. */
#ifndef GCHEAP_CLI_LEAK_SERIES_H
#define GCHEAP_CLI_LEAK_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "gcheap/leaks.h"

typedef struct leak_series {
    gch_leak_report *reports; /* one per section of DUMP1 (--domain's) */
    char **names;             /* the sections' names */
    size_t sections;
    int radix;                /* the last dump's id radix */
    const char *format;       /* the last dump's format (static storage) */
    /* With keep_last: the last dump, held (leak_series_free releases it),
     * and its selected sections, in the order of reports. */
    cli_held *last;
    gch_heap **last_heaps;
    size_t last_count;
} leak_series;

/* Compares the dumps run->args[0 .. nargs-1], oldest first: args[0] is
 * run->in[0] (loaded by the driver), the others are loaded here one at a
 * time (one later heap in memory at a time, with references and labels),
 * each warned about as the driver warns. stable_ids: --stable-ids;
 * internals: --internals. keep_last: keep the last dump held in out->last
 * (NULL when it is DUMP1 itself). 0, or EXIT_INPUT with the run's error set
 * (a dump of another format or with another number of sections is refused).
 * out is always safe to pass to leak_series_free. */
int leak_series_run(cli_run *run, int stable_ids, int internals, int keep_last, leak_series *out);
void leak_series_free(cli_session *session, leak_series *s);

/* One row as `leaks` shows it: kind "leak", "leak-type", "path" or "type";
 * count_growth and bytes_growth "" for leak and leak-type rows. */
typedef struct leak_row {
    const char *kind;
    uint64_t objects, bytes, heads;
    const char *count_growth, *bytes_growth;
    uint64_t example_id;
    const char *what;
} leak_row;

/* Calls fn for the rows of r in `leaks`' order: leak rows (each followed by
 * its first LEAK_TYPES_SHOWN leak-type rows), then path rows, then type
 * rows, until `limit` rows of the three kinds (leak-type rows not counted)
 * were given. Returns the number given (leak-type rows not counted). */
#define LEAK_TYPES_SHOWN 5
uint64_t leak_rows_each(const gch_leak_report *r, uint64_t limit,
                        void (*fn)(void *ctx, const leak_row *row), void *ctx);
/* Leak, path and type rows of r in all. */
uint64_t leak_rows_total(const gch_leak_report *r);
/* Bytes a growth row grew by from the first dump to the last (0 if less). */
uint64_t leak_growth_bytes(const gch_growth *g, size_t dumps);

#endif
