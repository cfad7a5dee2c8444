/* A JSON value parser for the MCP server (RFC 8259), built for hostile input:
 * the whole text is checked and turned into a flat array of nodes in
 * document order ("a tape"); strings and numbers are not copied, each node
 * points at its bytes in the text. Containers are tracked on an explicit
 * stack (no recursion the input controls); the depth, the byte count and the
 * node count have limits the caller sets; the memory is one node array of at
 * most one node per byte of text (16 bytes a node) plus the depth stack, so
 * it stays within a constant factor of the message.
 *
 * An object's members are a key node (MJ_STRING) followed by the value's
 * nodes; node.count is the number of members (objects) or elements (arrays),
 * node.next the index just past the node's whole subtree, so siblings are
 * walked with i = nodes[i].next. */
#ifndef GCHEAP_MCP_JSON_H
#define GCHEAP_MCP_JSON_H

#include <stddef.h>
#include <stdint.h>

typedef enum mj_kind {
    MJ_NULL, MJ_FALSE, MJ_TRUE, MJ_NUMBER, MJ_STRING, MJ_ARRAY, MJ_OBJECT
} mj_kind;

typedef struct mj_node {
    uint32_t kind;  /* an mj_kind */
    uint32_t start; /* the value's first byte in the text (a string's opening quote) */
    uint32_t len;   /* its bytes: a string with its quotes, a container with its brackets */
    uint32_t count; /* members of an object, elements of an array */
    uint32_t next;  /* index of the node after this subtree */
} mj_node;

typedef struct mj_limits {
    size_t max_bytes;  /* the longest text accepted (at most UINT32_MAX - 1) */
    size_t max_depth;  /* nesting of arrays and objects */
    size_t max_nodes;  /* values and keys */
} mj_limits;

typedef enum mj_status {
    MJ_OK = 0, MJ_ESYNTAX, MJ_EDEPTH, MJ_ESIZE, MJ_ECOUNT, MJ_ENOMEM
} mj_status;

typedef struct mj_doc {
    const char *text;   /* not owned */
    size_t size;
    mj_node *nodes;     /* owned; nodes[0] is the top value */
    size_t count;
    size_t error_at;    /* the offset of the first bad byte (MJ_ESYNTAX) */
} mj_doc;

/* Parses text[0..size) as one JSON value with optional whitespace around it.
 * On failure doc->nodes is NULL and error_at says where (for syntax errors). */
mj_status mj_parse(const char *text, size_t size, const mj_limits *lim, mj_doc *doc);
void mj_free(mj_doc *doc);
/* A short English phrase for a status ("nesting too deep"). */
const char *mj_status_text(mj_status s);

/* The node of member key in object node obj, or -1 (the first one when the
 * key repeats). Keys are compared after unescaping. */
long mj_get(const mj_doc *d, size_t obj, const char *key);
/* A string node's value unescaped into a new NUL-terminated buffer (the
 * caller frees it); NULL when out of memory or not a string. *has_nul
 * (optional) is set when the value holds U+0000. Lone surrogates become
 * U+FFFD. The result is never longer than the raw string. */
char *mj_string(const mj_doc *d, size_t node, int *has_nul);
/* 1 when string node equals s after unescaping. */
int mj_string_is(const mj_doc *d, size_t node, const char *s);
/* A number node that is a whole non-negative integer without fraction or
 * exponent, at most UINT64_MAX: 0 and *v; else -1. */
int mj_u64(const mj_doc *d, size_t node, uint64_t *v);

#endif
