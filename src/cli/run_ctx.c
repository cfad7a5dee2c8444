/* See run_ctx.h. */
#include "run_ctx.h"

#include <stdlib.h>
#include <string.h>


static _Thread_local cli_ctx *current;

cli_ctx *cli_ctx_get(void)
{
    /* Outside a run: the process's own streams (stdout/stderr are not
     * constants, so the default is filled on first use per thread). */
    static _Thread_local cli_ctx outside;
    if (current)
        return current;
    outside.out = stdout;
    outside.err = stderr;
    return &outside;
}

cli_ctx *cli_ctx_enter(cli_ctx *ctx)
{
    cli_ctx *previous = current;
    ctx->error = NULL;
    ctx->error_len = ctx->error_cap = 0;
    current = ctx;
    return previous;
}

void cli_ctx_leave(cli_ctx *previous) { current = previous; }

void cli_ctx_add_error(cli_ctx *ctx, const char *text, size_t len)
{
    if (ctx->error_len + len + 1 > ctx->error_cap) {
        size_t cap = ctx->error_cap ? ctx->error_cap : 256;
        while (cap < ctx->error_len + len + 1 && cap < ((size_t)1 << 30))
            cap *= 2;
        char *p = cap >= ctx->error_len + len + 1 ? realloc(ctx->error, cap) : NULL;
        if (!p) {
            if (!ctx->error_cap)
                return;
            len = ctx->error_cap - ctx->error_len - 1; /* keep what fits */
        } else {
            ctx->error = p;
            ctx->error_cap = cap;
        }
    }
    memcpy(ctx->error + ctx->error_len, text, len);
    ctx->error_len += len;
    ctx->error[ctx->error_len] = '\0';
}

void cli_ctx_flush_error(cli_ctx *ctx, FILE *f)
{
    if (ctx->error_len) {
        fwrite(ctx->error, 1, ctx->error_len, f);
        fflush(f);
    }
    free(ctx->error);
    ctx->error = NULL;
    ctx->error_len = ctx->error_cap = 0;
}
