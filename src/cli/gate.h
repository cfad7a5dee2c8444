/* The CI gates shared by `check` and `diff`: per-type rows of a heap matched by
 * name, the limits given on the command line, their evaluation, the
 * "limit exceeded" messages and the json "limits" array.
 *
 * A limit is evaluated per section (heap). `check` gives each type row only
 * "new" values (base 0, never read by max limits); `diff` gives both.
 */
#ifndef GCHEAP_CLI_GATE_H
#define GCHEAP_CLI_GATE_H

#include <stdint.h>
#include <stdio.h>

#include "gcheap/heap.h"
#include "gcheap/limits.h"
#include "json.h"
#include "gcheap/analysis.h"
#include "options.h"

/* One type of a section: what the base and the new dump hold of it. */
typedef struct gate_type {
    const char *name;
    uint64_t base_count, new_count;
    uint64_t base_bytes, new_bytes;
    uint64_t base_retained, new_retained; /* diff --retained only */
} gate_type;

/* A type of one heap, by display name (types whose display names are equal -
 * e.g. with --short-names - are summed into one). */
typedef struct named_type {
    char *name;
    uint64_t count, bytes;
    uint64_t retained;  /* type retained size, when asked for */
} named_type;

/* The types of heap (all objects, or those with live[i] != 0 when live is not
 * NULL) sorted by name with strcmp; type_retained (per type index, may be NULL)
 * fills the retained field. Prints an error and returns EXIT_INPUT on
 * failure. Free with named_types_free. */
int named_types_of(const gch_heap *heap, const uint8_t *live, const uint64_t *type_retained,
                   const cli_common *common, named_type **out, size_t *count);
void named_types_free(named_type *types, size_t count);

/* The objects/bytes of a heap, or of its live part when live is set (needs
 * references). With retained (needs references) each type also gets its
 * retained size from the dominator tree, and *live_bytes (may be NULL) the
 * heap's live bytes. Prints an error and returns EXIT_INPUT on failure. */
int heap_types_for(gch_analysis *an, const gch_heap *heap, int live, int retained,
                   const cli_common *common, named_type **out, size_t *count, uint64_t *live_bytes);

typedef struct gate_section {
    const char *name;
    gate_type *types;
    size_t ntypes;
    uint64_t base_count, new_count, base_bytes, new_bytes;
    uint64_t base_retained, new_retained; /* live bytes, with --retained */
    uint64_t new_waste;                   /* wasted bytes (gcheap waste), with --max-waste */
} gate_section;

typedef enum gate_scope { SCOPE_TOTAL, SCOPE_TYPE, SCOPE_TYPES } gate_scope;
typedef enum gate_measure { MEASURE_OBJECTS, MEASURE_BYTES, MEASURE_WASTE } gate_measure;

typedef struct gate_limit {
    const char *option;  /* "max-bytes", "fail-on-type", ... */
    const char *spec;    /* the argument as given */
    gate_scope scope;
    gate_measure measure;
    gch_bound bound;
    const char *pattern; /* type scopes: the glob (owned by the gate) */
} gate_limit;

typedef struct gate_result {
    const gate_limit *limit;
    const char *section;
    const char *subject; /* type name, pattern (no match / sum), or NULL for total */
    uint64_t matched;    /* SCOPE_TYPES: number of types summed */
    uint64_t base, value;
    int exceeded;
} gate_result;

typedef struct gate {
    gate_limit *limits;
    size_t nlimits;
    gch_type_limit *type_limits;
    size_t ntype_limits;
    gate_result *results;
    size_t nresults;
    size_t exceeded;
    int allow_missing;   /* --allow-missing: a type pattern may match no type */
} gate;

/* Adds a total limit (--max-bytes, --fail-on-growth, ...): spec is parsed
 * with gch_parse_bound flags. Prints a usage error naming the option and
 * returns EXIT_INPUT on a bad spec. */
int gate_add_total(gate *g, const char *command, const char *option, const char *spec,
                   gate_measure measure, unsigned flags);
/* Adds a type limit NAME=COUNT[:SIZE] (one gate limit per part given); sum:
 * the parts bound the sum over every matching type (SCOPE_TYPES) instead of
 * each type (SCOPE_TYPE). */
int gate_add_type(gate *g, const char *command, const char *option, const char *spec,
                  int growth_ok, int sum);

/* Evaluates every limit on every section, printing one "gcheap: limit
 * exceeded: ..." line on stderr per violation (prefixed with [SECTION] when
 * multi). Returns the number of violations. */
size_t gate_evaluate(gate *g, const gate_section *sections, size_t nsections, int multi);

/* CI gates never pass by accident: unless g->allow_missing, a type limit
 * whose pattern matches no type of any section (of either dump) prints
 * "gcheap: CMD: --OPTION 'SPEC': no type matches 'PATTERN' (did you mean
 * ...?)" and returns EXIT_INPUT; else 0. Call before gate_evaluate. */
int gate_check_missing(const gate *g, const char *command, const gate_section *sections,
                       size_t nsections);

/* One result in words, as in the messages but with ">" or "<=" by verdict
 * (without the "gcheap: limit exceeded: " prefix). malloc'd. */
char *gate_describe(const gate_result *r, int multi);

/* The json members "pass" and "limits" (the array of results; keys in
 * docs/ci-gates.md) into w; nothing when w is NULL (not json). */
void gate_write_json(const gate *g, json_writer *w, int diff);

void gate_free(gate *g);

#endif
