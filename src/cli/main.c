/* gcheap: the entry point. One command line is a session with one run
 * (session.h): the same code path the shell and the MCP server use; here,
 * and only here, the run's output goes to stdout, its messages to stderr, and
 * its status becomes the exit status. */
#include <stdio.h>

#include "gcheap/alloc.h"
#include "platform.h"
#include "session.h"
#include "session_internal.h"

int main(int argc, char **argv)
{
    /* Before any library call (gch_set_allocator's rule). */
    gch_set_allocator(plat_big_page_allocator());
    cli_session *s = cli_session_new();
    if (!s) {
        fputs("gcheap: out of memory\n", stderr);
        return 2;
    }
    cli_session_set_one_shot(s);
    int rc = cli_session_run(s, argc - 1, argv + 1, stdout, stderr);
    cli_session_free(s);
    return rc;
}
