/* Helpers shared by the "why is it alive" commands (top, dom, objsize,
 * retainers) and stat --retained: resolving ids and type names, building the
 * dominator tree with the program's messages, text for roots and tree
 * indentation. */
#ifndef GCHEAP_CLI_WHY_H
#define GCHEAP_CLI_WHY_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "gcheap/graph.h"

/* Whether type t matches NAME: exactly, or as a glob ('*', '?', '\\' quotes;
 * the same as diff/check limits: gch_glob_match in gcheap/limits.h). Both the
 * full name and the display name (--short-names, --module) are tried. */
int why_type_matches(const gch_heap *h, uint32_t t, const char *pattern, const cli_common *c);

/* Per selected heap, a type mask (type_count bytes, 1 = matches). Prints
 * "gcheap: CMD: FILE: no type matches 'NAME'" and returns EXIT_INPUT when no
 * type of any selected heap matches. *masks_out: nheaps malloc'd arrays in a
 * malloc'd array (free with why_free_masks). */
int why_match_types(const char *cmd, const char *path, gch_heap **heaps, size_t nheaps,
                    const char *pattern, const cli_common *c, uint8_t ***masks_out);
void why_free_masks(uint8_t **masks, size_t nheaps);

/* The instances of the types marked in mask, in object order. *out malloc'd
 * (never NULL on success); returns 0 or EXIT_INPUT (out of memory). */
int why_instances(const gch_heap *h, const uint8_t *mask, uint32_t **out, size_t *count);

/* Parses ids[0..nids-1] (as written in the dump: hex with optional 0x, decimal
 * for Dart) and finds them in each selected heap of in (its loaded heap's id lookup): (*found)[k*nids + i] is the
 * object index of ids[i] in heaps[k], or GCH_NONE. Prints
 * "gcheap: CMD: FILE: bad object id 'X' ..." or "... no object with id X" and
 * returns EXIT_INPUT when an id is malformed or absent from every selected heap. */
int why_resolve_ids(const char *cmd, const cli_input *in, const char *const *ids, size_t nids,
                    uint32_t **found);

/* What objsize and retainers are asked about: object IDs, or --type NAME. */
typedef struct why_targets {
    size_t nids;      /* object IDs given (0 with --type) */
    uint32_t *found;  /* nheaps x nids: the object in each section, or GCH_NONE */
    uint8_t **masks;  /* with --type: per section, per type, 1 when it matches */
    uint8_t *used;    /* per section: 1 when it holds an ID or a matching type */
    size_t nused;     /* sections used */
    size_t nheaps;
} why_targets;

/* Usage check before loading: IDs (run->args[1..]) or --type, not both. */
int why_check_target_args(const cli_run *run, const char *type);
/* Resolves the IDs or the --type NAME in every section of run->in[0]
 * (printing the error when an ID or NAME matches nothing). 0 or EXIT_INPUT;
 * *t is always safe to free with why_targets_free. */
int why_targets_find(const cli_run *run, const char *type, why_targets *t);
void why_targets_free(why_targets *t);



/* The field label of the first reference from object from to object to, or "". */
const char *why_ref_label(const gch_heap *h, uint32_t from, uint32_t to);

/* The default of --top: table_default in table output, no limit otherwise,
 * unless --top was given. */
uint64_t why_top(const cli_common *c, uint64_t table_default);

/* Tree indentation for table output: two spaces per level up to 32 levels;
 * deeper levels are shown as 64 spaces and "[DEPTH] ". Writes into buf. */
const char *why_indent(uint64_t depth, char *buf, size_t cap);


#endif
