/* The MCP tools: one per command of the command table, generated at start
 * from each cli_spec (its usage line's positional arguments, its options
 * table) and the common options table, the same tables the CLI parses:
 * property names are the long options with '-' as '_', types follow the
 * option kinds, enums list the words, descriptions are the help texts. */
#ifndef GCHEAP_MCP_TOOLS_H
#define GCHEAP_MCP_TOOLS_H

#include <stddef.h>

#include "cli.h"
#include "json.h"

typedef enum mcp_role {
    MCP_OPTION,    /* a command or common option: --long=value */
    MCP_DUMP,      /* a dump path, one positional (dump, base, new) */
    MCP_DUMPS,     /* an array of dump paths (leaks; report's series) */
    MCP_ARG,       /* one other positional (dom's id) */
    MCP_ARG_LIST   /* several (ids) */
} mcp_role;

typedef struct mcp_param {
    char name[48];            /* the property name */
    mcp_role role;
    const cli_option *opt;    /* MCP_OPTION */
    const char *const *words; /* OPT_ENUM / OPT_WORD: the accepted words, or NULL */
    int required;
    int path;                 /* 1 read, 2 write: checked against the allowed folders */
    int series;               /* report's dumps: in place of dump, two or more */
} mcp_param;

typedef struct mcp_tool {
    const cli_spec *spec;
    mcp_param *params;
    size_t nparams;
    int writes_file;          /* report: writes HTML to `output`; no json */
} mcp_tool;

/* The tools for the commands specs[0..n) (mcp and shell left out: they are
 * not questions about a dump). NULL when out of memory. */
mcp_tool *mcp_tools_new(const cli_spec *const *specs, size_t n, const cli_option *common,
                        size_t *count);
void mcp_tools_free(mcp_tool *tools, size_t count);
const mcp_param *mcp_param_find(const mcp_tool *t, const char *name, size_t len);

/* The tool's entry of tools/list: name, title, description, inputSchema,
 * outputSchema (into w, an array element). */
void mcp_tool_describe(const mcp_tool *t, json_writer *w);

/* The paging properties every tool takes beside the command's. */
#define MCP_LIMIT_DEFAULT 100

#endif
