/* gcdump_oracle.h - test-only: a deliberately simple, separate decoder of the
 * MemoryGraph in real .gcdump files, used as an independent oracle for the
 * reader. It assumes the layout every PerfView / dotnet-gcdump file has (the
 * fixed 84-byte prefix up to the graph's fields) instead of parsing the
 * framing, and shares no code with src/. */
#ifndef GCHEAP_TEST_GCDUMP_ORACLE_H
#define GCHEAP_TEST_GCDUMP_ORACLE_H

#include <stddef.h>
#include <stdint.h>

typedef struct gco_graph {
    int64_t total_size;        /* as recorded */
    uint32_t root;
    uint32_t type_count;
    char **type_names;         /* UTF-8 ("" for null) */
    uint32_t node_count;
    uint32_t *node_type;
    uint32_t *node_size;
    uint8_t *node_defined;     /* 0: blob offset 0 (never defined) */
    uint64_t *node_address;
    uint32_t *child_start;     /* node_count + 1 entries into children */
    uint32_t *children;
} gco_graph;

/* Reads a whole file (malloc'ed). Returns 0, or -1 when it cannot be opened. */
int gco_read_file(const char *path, unsigned char **data, size_t *size);

/* Decodes the graph; returns 0, or -1 when the file does not look as expected. */
int gco_load(const unsigned char *data, size_t size, gco_graph *g);
void gco_free(gco_graph *g);

/* Heap objects (defined nodes with an address, not the root) reachable from
 * the root node through every edge, pseudo-nodes included, except edges out of
 * a weak-handle category (an address-0 node whose name says "weak" and
 * "handle", any case, and is not a "[static var ...]"): those root nothing.
 * This is PerfView's view of what is rooted; the rest is what its spanning
 * tree puts under "not reachable" orphans. */
void gco_reachable(const gco_graph *g, uint64_t *objects, uint64_t *bytes);

/* The name with a dotnet-gcdump size bucket removed (malloc'ed). */
char *gco_strip_bucket(const char *name);

#endif
