/* The data of an HTML report: what `gcheap report` collects from the library
 * (totals, the type histogram with retained sizes, the dominator tree bounded
 * by gch_dom_summary_build, the comparison of two dumps) and writes as one
 * JSON document (docs/report.md describes its schema). */
#ifndef GCHEAP_CLI_REPORT_REPORT_DATA_H
#define GCHEAP_CLI_REPORT_REPORT_DATA_H

#include <stdint.h>
#include <stdio.h>

#include "gcheap/analysis.h"
#include "gcheap/heap.h"
#include "leak_series.h"
#include "options.h"

typedef struct report_limits {
    uint32_t max_nodes;  /* objects kept in each section's tree */
    uint32_t max_types;  /* histogram and comparison rows per section */
    int suspects;        /* nonzero: leak suspects per section (gch_suspects_find) */
    int waste;           /* nonzero: each section's waste (report_waste.h) */
    uint32_t instances;      /* biggest instances listed per covered type row (0: none) */
    uint32_t instance_types; /* rows covered: this many with the most bytes, and with the
                                most retained bytes (report_instances.h) */
} report_limits;

/* One loaded dump and the sections the report covers. */
typedef struct report_dump {
    const char *path;        /* as shown */
    const gch_dump *dump;
    gch_analysis *an;        /* its loaded heap (trees, retained sizes) */
    int labels;              /* field names loaded for the report (else not shown, even
                                when a session kept them for another command) */
    gch_heap *const *heaps;
    size_t count;
} report_dump;

/* A series (report DUMP1 DUMP2 DUMP3 ...): the leaks computed on it; base is
 * DUMP1 and new the last dump, whose loaded heap the leak rows' paths come
 * from. */
typedef struct report_series {
    const leak_series *leaks;
    const char *const *files;
    size_t nfiles;
} report_series;

/* Writes the JSON document for one dump (new = NULL) or the comparison of
 * base and new: {"schema":1,"generator":...,"dumps":[...],"compare":...,
 * "leaks":...} ("leaks" null unless series is given). Every string goes
 * through html_json_string, so the text can be embedded in a <script> element
 * as it is. Prints the error and returns EXIT_INPUT when an analysis fails
 * (memory), else 0. */
int report_write_json(FILE *f, const report_dump *base, const report_dump *new_dump,
                      const report_series *series, const report_limits *lim,
                      const cli_common *c);

#endif
