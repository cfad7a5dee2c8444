/* gcheap: the command table and the entry point. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#ifndef GCHEAP_VERSION
#define GCHEAP_VERSION "dev"
#endif

static const cli_command commands[] = {
    { "info", cmd_info, "what is in the dump: sections, counts, metadata, anomalies" },
    { "stat", cmd_stat, "per-type histogram: count and bytes, biggest first" },
    { "roots", cmd_roots, "GC roots by kind and flags, and the list of roots" },
    { "top", cmd_top, "the live objects that retain the most (dominator tree)" },
    { "dom", cmd_dom, "the dominator tree, from the roots or from one object" },
    { "objsize", cmd_objsize, "what an object (or a type) keeps reachable, and retains" },
    { "retainers", cmd_retainers, "why an object is alive: shortest paths from the GC roots" },
    { "diff", cmd_diff, "per-type growth between two dumps; CI gate on growth" },
    { "check", cmd_check, "CI gate: fail when a dump exceeds size/count/type limits" },
    { "report", cmd_report, "one self-contained HTML report: overview, dominator tree chart, types" },
};

static void usage(FILE *f)
{
    fprintf(f, "usage: gcheap COMMAND [OPTIONS] DUMP...\n"
               "       gcheap --help | --version | COMMAND --help\n\n"
               "Analyze garbage-collected heap dumps (.gclog, .gcdump, Dart heap snapshots).\n"
               "DUMP may be '-' for standard input; the format is detected from the first bytes.\n\n"
               "Commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nExit status: 0 fine, 1 a limit in check/diff was exceeded, 2 usage or input error.\n"
               "Run 'gcheap COMMAND --help' for a command's options.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_INPUT;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "help") == 0) {
        usage(stdout);
        return EXIT_FINE;
    }
    if (strcmp(name, "--version") == 0) {
        printf("gcheap %s\n", GCHEAP_VERSION);
        return EXIT_FINE;
    }
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (strcmp(name, commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "gcheap: unknown command '%s'\nTry 'gcheap --help'.\n", name);
    return EXIT_INPUT;
}
