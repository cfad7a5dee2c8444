/* gcheap shell DUMP: command lines read from standard input, run against one
 * loaded dump (a session, session.h: the dump and what is derived from it
 * stay loaded between lines). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "platform.h"
#include "run_ctx.h"
#include "session.h"
#include "session_internal.h"
#include "shell_words.h"

static const char description[] =
    "Loads DUMP once and runs the command lines read from standard input\n"
    "against it, each printed as 'gcheap COMMAND ... DUMP ...' would print it:\n"
    "a line is a command and its arguments without 'gcheap' and without DUMP\n"
    "('top --top 5', 'retainers 0x1f00', 'stat --format json'); commands that\n"
    "take more dumps name the others after it ('diff NEW', 'leaks D2 D3').\n"
    "Words are split as a shell's basic quoting does: 'single', \"double\" (\\\"\n"
    "\\\\ \\$ \\` escaped), a backslash outside quotes; # starts a comment.\n"
    "The dump and its dominator trees, paths and id lookup are computed once\n"
    "and kept: later questions answer without loading again (a dump that\n"
    "changed on disk is loaded again). A bad line prints its error on stderr\n"
    "and the shell goes on. 'help' lists the commands, 'help COMMAND' shows\n"
    "one's options; 'quit', 'exit' or the end of the input ends the shell.\n"
    "On a terminal it prompts with 'gcheap> '. The options given to 'shell'\n"
    "apply to every line (a line's own come after them and win).\n"
    "Exit status: 0 at the end of the input, 2 when DUMP cannot be loaded.";

static void shell_help(FILE *out)
{
    fputs("Commands (the dump is implied; 'help COMMAND' for one's options):\n", out);
    for (const char *const *n = cli_command_names(); *n; n++)
        if (strcmp(*n, "shell") != 0)
            fprintf(out, "  %s\n", *n);
    fputs("  quit       end the shell (also 'exit' or end of input)\n", out);
}

/* One line of any length from f (NULL at the end of the input); the caller
 * frees it. */
static char *read_line(FILE *f)
{
    size_t cap = 256, n = 0;
    char *s = xmalloc(cap);
    int c;
    while ((c = getc(f)) != EOF) {
        if (n + 1 >= cap)
            s = xgrow(s, &cap, n + 2, 1);
        s[n++] = (char)c;
        if (c == '\n')
            break;
    }
    if (n == 0 && c == EOF) {
        free(s);
        return NULL;
    }
    s[n] = '\0';
    return s;
}

/* The shell's own options (everything but DUMP), passed on to every line. */
typedef struct forwarded {
    char **argv;
    int argc;
} forwarded;

static int run_line(cli_session *s, const forwarded *fw, const char *dump, char **words, int n,
                    FILE *out, FILE *err)
{
    /* COMMAND, the shell's options, DUMP, the line's other words. */
    char **argv = xmalloc_array((size_t)n + (size_t)fw->argc + 2, sizeof *argv);
    int argc = 0;
    argv[argc++] = words[0];
    for (int i = 0; i < fw->argc; i++)
        argv[argc++] = fw->argv[i];
    argv[argc++] = (char *)dump;
    for (int i = 1; i < n; i++)
        argv[argc++] = words[i];
    argv[argc] = NULL;
    int rc = cli_session_run(s, argc, argv, out, err);
    free(argv);
    return rc;
}

/* The loop: returns at the end of the input or on quit. */
static void shell_loop(cli_session *s, const forwarded *fw, const char *dump, FILE *out, FILE *err)
{
    int prompt = plat_stdin_is_tty();
    for (;;) {
        if (prompt) {
            fputs("gcheap> ", out);
            fflush(out);
        }
        char *line = read_line(stdin);
        if (!line)
            break;
        char **words;
        int n;
        const char *why;
        if (shell_split(line, &words, &n, &why) != 0) {
            fprintf(err, "gcheap: shell: %s\n", why);
            fflush(err);
            free(line);
            continue;
        }
        free(line);
        int quit = n == 1 && (strcmp(words[0], "quit") == 0 || strcmp(words[0], "exit") == 0);
        if (n == 1 && strcmp(words[0], "help") == 0) {
            shell_help(out);
            fflush(out);
        } else if (n > 0 && !quit) {
            if (strcmp(words[0], "help") == 0 || strcmp(words[0], "shell") == 0 ||
                (words[0][0] == '-' && n == 1))
                cli_session_run(s, n, words, out, err); /* help CMD, --version: no dump */
            else
                run_line(s, fw, dump, words, n, out, err);
        }
        free(words);
        if (quit)
            break;
    }
    if (prompt)
        fputc('\n', out);
}

static int shell_report(cli_run *run)
{
    const char *dump = run->args[0];
    if (strcmp(dump, "-") == 0)
        return cli_usage_error("shell", "DUMP cannot be standard input: the shell reads its commands there");
    cli_session *s = cli_session_new();
    if (!s) {
        cli_error("out of memory");
        return EXIT_INPUT;
    }
    forwarded fw = { xmalloc_array((size_t)run->argc + 1, sizeof *fw.argv), 0 };
    for (int i = 1; i < run->argc; i++)
        if (run->argv[i] != run->args[0])
            fw.argv[fw.argc++] = run->argv[i];
    /* Load now: a dump that cannot be read ends the shell before any line. */
    cli_held *held;
    int rc = cli_session_open(s, dump, run->c, CLI_LOAD_REFS | CLI_LOAD_LABELS, &held);
    if (rc == 0) {
        cli_session_close(s, held);
        cli_ctx *ctx = cli_ctx_get();
        shell_loop(s, &fw, dump, ctx->out, ctx->err);
    }
    free(fw.argv);
    cli_session_free(s);
    return rc;
}

const cli_spec shell_command = {
    .name = "shell", .summary = "run commands read from standard input on one loaded dump",
    .usage = "usage: gcheap shell [OPTIONS] DUMP", .description = description,
    .min_args = 1, .max_args = 1, .flags = CLI_NO_LOAD, .report = shell_report,
};
