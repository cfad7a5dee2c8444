/* xml_nodes.h - test-only: a small scanner for PerfView's XML listing of a
 * MemoryGraph (<Node Index=".." TypeIndex=".." Size=".." Type=".."
 * NumChildren=".." Address="0x.."> children </Node>), used as an oracle. */
#ifndef GCHEAP_TEST_XML_NODES_H
#define GCHEAP_TEST_XML_NODES_H

#include <stddef.h>
#include <stdint.h>

typedef struct xml_node {
    uint32_t index;
    uint64_t size;
    uint64_t address;
    uint32_t num_children;  /* as the attribute says */
    char *type;             /* unescaped */
    size_t child_start, child_count; /* into xml_graph.children, as parsed */
} xml_node;

typedef struct xml_graph {
    int64_t total_size;     /* <MemoryGraph TotalSize=".."> */
    uint32_t root_index;    /* <RootIndex> */
    xml_node *nodes;
    size_t node_count;
    uint32_t *children;
    size_t child_total;
} xml_graph;

/* Returns 0, -1 when the file cannot be opened, -2 when it is not understood. */
int xml_graph_load(const char *path, xml_graph *g);
void xml_graph_free(xml_graph *g);

#endif
