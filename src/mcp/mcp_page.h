/* Paging a command's --format json document for MCP: the rows of every
 * "rows" list, counted across all sections in document order, are numbered
 * 0, 1, ...; a page holds rows [skip, skip + limit) and everything else of
 * the document unchanged (its bytes copied as the CLI wrote them), so the
 * pages of one call, their rows concatenated section by section, are exactly
 * the CLI's document. A page with rows after it ends with the members
 * "truncated":true and "next_cursor". */
#ifndef GCHEAP_MCP_PAGE_H
#define GCHEAP_MCP_PAGE_H

#include <stdint.h>

#include "mcp_json.h"
#include "text.h"

typedef struct mcp_page_info {
    uint64_t total;     /* rows in the whole document */
    uint64_t shown;     /* rows on this page */
    uint64_t sections;  /* elements of "sections" */
    long first_row;     /* the node of the page's first row, or -1 */
    int more;           /* rows remain after this page */
} mcp_page_info;

/* Writes the page of doc (an object) into out; cursor is the text of
 * next_cursor (used only when rows remain). -1 when doc is not an object. */
int mcp_page_write(const mj_doc *doc, uint64_t skip, uint64_t limit, const char *cursor,
                   strbuf *out, mcp_page_info *info);

/* A short summary of a page for the text content: what was answered and the
 * next useful call. Names from the dump are quoted, escaped and cut short. */
void mcp_page_summary(const mj_doc *doc, const char *command, uint64_t skip,
                      const mcp_page_info *info, const char *cursor, strbuf *out);

#endif
