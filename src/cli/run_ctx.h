/* The sinks of one command run: where what the CLI prints goes, and the
 * run's error as a value.
 *
 * A run (cli_session_run, session.h) enters a context for its duration;
 * everything below reaches it through cli_ctx_get() instead of stdout and
 * stderr: the output layer writes to ctx->out, warnings and progress lines to
 * ctx->err as they happen, and an error (cli_error, cli_usage_error) is
 * recorded in the context, not printed: the run's caller writes it to its
 * error sink when the run ends. An allocation failure of xmalloc & co. inside
 * a run jumps back to the run's start (ctx->oom) with "out of memory" as the
 * error; outside a run (no context entered) it ends the program as before.
 *
 * The current context is per thread, so sessions on different threads do not
 * see each other's sinks. */
#ifndef GCHEAP_CLI_RUN_CTX_H
#define GCHEAP_CLI_RUN_CTX_H

#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>

typedef struct cli_ctx {
    FILE *out;            /* what gcheap prints on stdout */
    FILE *err;            /* warnings and progress (what gcheap prints on stderr) */
    char *error;          /* the run's error message(s), each line ending in '\n'; NULL: none */
    size_t error_len, error_cap;
    jmp_buf *oom;         /* where an allocation failure goes; NULL: exit(2) */
} cli_ctx;

/* The context of the run on this thread; outside any run, one whose sinks are
 * stdout and stderr. Never NULL. */
cli_ctx *cli_ctx_get(void);
/* Makes ctx current (ctx->error starts empty); returns the previous one for
 * cli_ctx_leave. */
cli_ctx *cli_ctx_enter(cli_ctx *ctx);
void cli_ctx_leave(cli_ctx *previous);

/* Appends text to the run's error message (plain malloc: a failure truncates
 * the message rather than jumping). */
void cli_ctx_add_error(cli_ctx *ctx, const char *text, size_t len);
/* Writes the recorded error to f and forgets it. */
void cli_ctx_flush_error(cli_ctx *ctx, FILE *f);

/* 1 when the run's diagnostics go to the process's stderr and that is a
 * terminal: only then are progress lines drawn. */
int cli_ctx_err_is_tty(void);

#endif
