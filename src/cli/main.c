/* gcheap: the command table and the entry point. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#ifndef GCHEAP_VERSION
#define GCHEAP_VERSION "dev"
#endif

#define COMMAND(name) extern const cli_spec name##_command;
#include "commands.h"
#undef COMMAND

/* The table is commands.h: one line per command. */
static const cli_spec *const commands[] = {
#define COMMAND(name) &name##_command,
#include "commands.h"
#undef COMMAND
};

#define NCOMMANDS (sizeof commands / sizeof *commands)

static void usage(FILE *f)
{
    fprintf(f, "usage: gcheap COMMAND [OPTIONS] DUMP...\n"
               "       gcheap --help | --version | help COMMAND | COMMAND --help\n\n"
               "Analyze garbage-collected heap dumps (.gclog, .gcdump, Dart, V8 and JavaScriptCore\n"
               "heap snapshots, HPROF; gzip-compressed or not).\n"
               "DUMP may be '-' for standard input; the format is detected from the first bytes.\n\n"
               "Commands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
    fprintf(f, "\nExit status: 0 fine, 1 a limit in check/diff was exceeded, 2 usage or input error.\n"
               "Run 'gcheap COMMAND --help' for a command's options.\n");
}

static const cli_spec *find_command(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(name, commands[i]->name) == 0)
            return commands[i];
    return NULL;
}

static int unknown_command(const char *name)
{
    const char *names[NCOMMANDS];
    for (size_t i = 0; i < NCOMMANDS; i++)
        names[i] = commands[i]->name;
    const char *near = cli_closest(name, names, (int)NCOMMANDS);
    if (near)
        stderr_printf("gcheap: unknown command '%s' (did you mean '%s'?)\n", name, near);
    else
        stderr_printf("gcheap: unknown command '%s'\n", name);
    fprintf(stderr, "Try 'gcheap --help'.\n");
    return EXIT_INPUT;
}

/* gcheap help [COMMAND] */
static int help(int argc, char **argv)
{
    if (argc < 3) {
        usage(stdout);
        return EXIT_FINE;
    }
    if (argc > 3)
        return cli_usage_error(NULL, "help: too many arguments (expected one COMMAND)");
    const cli_spec *spec = find_command(argv[2]);
    if (!spec)
        return unknown_command(argv[2]);
    cli_print_help(spec);
    return EXIT_FINE;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_INPUT;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)
        return help(1, argv);
    if (strcmp(name, "help") == 0)
        return help(argc, argv);
    if (strcmp(name, "--version") == 0) {
        printf("gcheap %s\n", GCHEAP_VERSION);
        return EXIT_FINE;
    }
    const cli_spec *spec = find_command(name);
    if (spec)
        return cli_run_command(spec, argc - 1, argv + 1);
    return unknown_command(name);
}
