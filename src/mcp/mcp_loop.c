/* mcp_server_serve: lines from the client, each at most max_message bytes
 * (a longer one is read to its end without being kept, and answered -32700);
 * an allocation failure while a message is handled is answered -32603 and
 * the server goes on: each message is handled in a run context of its own
 * (run_ctx.h) whose out-of-memory landing point is here. */
#include "mcp_internal.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "run_ctx.h"

/* Reads one line into buf (cap bytes): its length, or SIZE_MAX at end of
 * input with nothing read; *oversized when it was longer than cap. */
static size_t read_line(FILE *in, char *buf, size_t cap, int *oversized)
{
    size_t n = 0;
    int c;
    *oversized = 0;
    while ((c = getc(in)) != EOF && c != '\n') {
        if (n < cap)
            buf[n++] = (char)c;
        else
            *oversized = 1;
    }
    if (c == EOF && n == 0 && !*oversized)
        return SIZE_MAX;
    return n;
}

/* One message, with the out-of-memory hook aimed here. */
static void guarded(mcp_server *s, const char *buf, size_t n, int oversized, FILE *out)
{
    jmp_buf here;
    cli_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.out = ctx.err = s->cfg.log ? s->cfg.log : stderr; /* never the protocol's stream */
    cli_ctx *previous = cli_ctx_enter(&ctx);
    ctx.oom = &here;
    if (setjmp(here) == 0) {
        if (oversized)
            mcp_server_oversized(s, out);
        else
            mcp_server_feed(s, buf, n, out);
    } else {
        s->out = out;
        if (s->cfg.log)
            fprintf(s->cfg.log, "gcheap: mcp: out of memory while answering a message\n");
        mcp_reply_error(s, NULL, -1, RPC_INTERNAL_ERROR, "out of memory");
    }
    ctx.oom = NULL;
    cli_ctx_leave(previous);
    cli_ctx_flush_error(&ctx, s->cfg.log ? s->cfg.log : stderr);
}

int mcp_server_serve(mcp_server *s, FILE *in, FILE *out)
{
    size_t cap = s->cfg.max_message;
    char *buf = malloc(cap ? cap : 1);
    if (!buf)
        return 2;
    for (;;) {
        int oversized;
        size_t n = read_line(in, buf, cap, &oversized);
        if (n == SIZE_MAX)
            break;
        guarded(s, buf, n, oversized, out);
        if (s->write_failed)
            break;
    }
    free(buf);
    if (s->write_failed) {
        if (s->cfg.log)
            fprintf(s->cfg.log, "gcheap: mcp: cannot write to the client\n");
        return 2;
    }
    return 0;
}
