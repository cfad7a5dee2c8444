/* What the files of src/mcp share: the server's state and the reply helpers. */
#ifndef GCHEAP_MCP_INTERNAL_H
#define GCHEAP_MCP_INTERNAL_H

#include "mcp_json.h"
#include "mcp_server.h"
#include "mcp_tools.h"

/* JSON-RPC 2.0 error codes. */
enum {
    RPC_PARSE_ERROR = -32700, RPC_INVALID_REQUEST = -32600, RPC_METHOD_NOT_FOUND = -32601,
    RPC_INVALID_PARAMS = -32602, RPC_INTERNAL_ERROR = -32603
};

typedef struct queued {
    char *line;
    size_t len;
} queued;

struct mcp_server {
    mcp_config cfg;
    mcp_access access;
    mcp_tool *tools;
    size_t ntools;
    char *tools_json;       /* the tools/list result, built once */
    int client_roots;       /* the client declared the roots capability */
    int roots_pending;      /* our roots/list request awaits its answer */
    unsigned long roots_asked;
    queued *queue;          /* requests read while roots_pending */
    size_t nqueue, queue_bytes;
    FILE *out;              /* where answers go during one feed */
    int write_failed;
};

/* One message to the client: text + newline, flushed. */
void mcp_send(mcp_server *s, const strbuf *msg);
/* {"jsonrpc":"2.0","id":ID,"result": ...  (the caller adds the result and "}") */
void mcp_reply_start(strbuf *b, const mj_doc *d, long id);
void mcp_reply_error(mcp_server *s, const mj_doc *d, long id, int code, const char *message);

/* tools/call: the request's params node (an object or -1). */
void mcp_tools_call(mcp_server *s, const mj_doc *d, long id, long params);

#endif
