/* The MCP server (Model Context Protocol, revisions 2025-06-18 and
 * 2025-11-25) over JSON-RPC 2.0, one message per line: initialize, ping,
 * tools/list, tools/call, the notifications initialized, cancelled,
 * roots/list_changed; progress notifications for a tools/call that carries a
 * progressToken; roots/list asked of a client that declares roots.
 *
 * Errors: a line that is not JSON -32700; not a request, or a batch (an
 * array) -32600; an unknown method -32601; tools/call without a tool name,
 * with non-object arguments or naming an unknown tool -32602. A failed
 * command (bad option, missing or malformed dump, a path outside the allowed
 * folders) is a tool result with isError. Nothing is answered to a
 * notification. Requests are answered in order, one at a time.
 *
 * The commands run through a caller-given function (cli_session_run in the
 * program; tests pass their own), so this layer holds no dump itself. */
#ifndef GCHEAP_MCP_SERVER_H
#define GCHEAP_MCP_SERVER_H

#include <stddef.h>
#include <stdio.h>

#include "cli.h"
#include "mcp_access.h"

typedef int (*mcp_run_fn)(void *ctx, int argc, char **argv, FILE *out, FILE *err);
typedef FILE *(*mcp_memstream_fn)(char **buf, size_t *len);

typedef struct mcp_config {
    const cli_spec *const *specs;   /* the command table */
    size_t nspecs;
    const cli_option *common;       /* the common options */
    mcp_run_fn run;
    void *run_ctx;
    mcp_realpath_fn realpath;
    mcp_memstream_fn memstream;
    const char *const *allow;       /* --allow folders (none: ".") */
    size_t nallow;
    size_t max_message;             /* longest line accepted (0: MCP_MAX_MESSAGE) */
    const char *version;            /* serverInfo.version */
    FILE *log;                      /* diagnostics (stderr), or NULL */
} mcp_config;

#define MCP_MAX_MESSAGE ((size_t)4 << 20)
#define MCP_MAX_DEPTH 64

typedef struct mcp_server mcp_server;

/* NULL with why filled when an --allow folder cannot be resolved. */
mcp_server *mcp_server_new(const mcp_config *config, strbuf *why);
void mcp_server_free(mcp_server *s);

/* One line (without its newline) from the client; answers go to out, one
 * line each. While the server waits for the client's roots, requests are
 * queued (in order) and answered once the roots are known. */
void mcp_server_feed(mcp_server *s, const char *line, size_t len, FILE *out);
/* A line longer than the limit (already discarded): answered -32700. */
void mcp_server_oversized(mcp_server *s, FILE *out);
/* Reads lines from in until end of input; 0 (end of input), or 2 when the
 * answers cannot be written. */
int mcp_server_serve(mcp_server *s, FILE *in, FILE *out);

#endif
