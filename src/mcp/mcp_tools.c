/* See mcp_tools.h. */
#include "mcp_tools.h"

#include <stdlib.h>
#include <string.h>

/* Commands that are no question about a dump: no tool. */
static int is_interactive(const cli_spec *spec)
{
    return strcmp(spec->name, "mcp") == 0 || strcmp(spec->name, "shell") == 0 ||
           (spec->flags & CLI_NO_LOAD);
}

/* Common options that make no sense through MCP: the output form and help
 * (results are json), terminal niceties, and the thread count (the server's). */
static int common_hidden(const char *name)
{
    static const char *const hidden[] = { "format", "help", "human", "quiet", "no-progress",
                                          "threads", NULL };
    for (size_t i = 0; hidden[i]; i++)
        if (strcmp(hidden[i], name) == 0)
            return 1;
    return 0;
}

static void set_name(mcp_param *p, const char *name, size_t len)
{
    if (len >= sizeof p->name)
        len = sizeof p->name - 1;
    for (size_t i = 0; i < len; i++) {
        char c = name[i];
        p->name[i] = c == '-' ? '_' : (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
    }
    p->name[len] = '\0';
}

/* The positional arguments named on the usage line's first line after
 * "[OPTIONS]": DUMP, BASE NEW, DUMP1 DUMP2 [DUMP3 ...], ID..., [ID]. Stops at
 * an option ("[-o") or a remark ("('-' reads ..."). */
static size_t positionals(const cli_spec *spec, mcp_param *out)
{
    const char *u = strstr(spec->usage, "[OPTIONS]");
    size_t n = 0;
    if (!u)
        return 0;
    u += strlen("[OPTIONS]");
    while (*u && *u != '\n' && n < 8) {
        while (*u == ' ')
            u++;
        size_t len = strcspn(u, " \n");
        if (!len)
            break;
        const char *w = u;
        u += len;
        if (w[0] == '(' || (w[0] == '[' && w[1] == '-') || w[0] == '-')
            break;
        int optional = w[0] == '[';
        if (optional) {
            w++;
            len--;
        }
        while (len && (w[len - 1] == ']'))
            len--;
        int many = len > 3 && strncmp(w + len - 3, "...", 3) == 0;
        if (many)
            len -= 3;
        if (!len)
            continue;
        mcp_param *p = &out[n];
        memset(p, 0, sizeof *p);
        if (strncmp(w, "DUMP", 4) == 0 && len > 4) { /* DUMP1 DUMP2 [DUMP3 ...]: one array */
            if (n && out[n - 1].role == MCP_DUMPS)
                continue;
            set_name(p, "dumps", 5);
            p->role = MCP_DUMPS;
        } else if ((len == 4 && strncmp(w, "DUMP", 4) == 0) || (len == 4 && strncmp(w, "BASE", 4) == 0) ||
                   (len == 3 && strncmp(w, "NEW", 3) == 0)) {
            set_name(p, w, len);
            p->role = MCP_DUMP;
        } else {
            set_name(p, w, len);
            if (many && len + 1 < sizeof p->name)
                strcat(p->name, "s");
            p->role = many ? MCP_ARG_LIST : MCP_ARG;
        }
        p->path = p->role == MCP_DUMP || p->role == MCP_DUMPS;
        p->required = p->path && !optional;
        n++;
    }
    return n;
}

static int is_path_value(const cli_option *o)
{
    return o->kind == CLI_OPT_STRING && o->value_name &&
           (strstr(o->value_name, "FILE") || strstr(o->value_name, "DIR"));
}

static void add_option(mcp_tool *t, const cli_option *o, const cli_spec *spec)
{
    const char *const *words = o->words;
    if (o->kind == CLI_OPT_WORD && !words) {
        if (!spec->sort_keys)
            return; /* --sort on a command without an order */
        words = spec->sort_keys;
    }
    mcp_param tmp;
    memset(&tmp, 0, sizeof tmp);
    set_name(&tmp, o->long_name, strlen(o->long_name));
    if (mcp_param_find(t, tmp.name, strlen(tmp.name)) || strcmp(tmp.name, "limit") == 0 ||
        strcmp(tmp.name, "cursor") == 0)
        return; /* the command's own option of that name came first */
    mcp_param *p = &t->params[t->nparams++];
    *p = tmp;
    p->role = MCP_OPTION;
    p->opt = o;
    p->words = words;
    p->path = is_path_value(o) ? 2 : 0;
}

static size_t count_options(const cli_option *o)
{
    size_t n = 0;
    for (; o && o->kind != CLI_OPT_END; o++)
        n++;
    return n;
}

/* report's other usage lines (BASE NEW, DUMP1 DUMP2 DUMP3 ...) as one more
 * argument, dumps: the tool takes dump or dumps, and says so when neither or
 * both come (mcp_call.c). */
static void add_series(mcp_tool *t)
{
    for (size_t i = 0; i < t->nparams; i++)
        if (t->params[i].role == MCP_DUMP)
            t->params[i].required = 0;
    mcp_param *p = &t->params[t->nparams++];
    memset(p, 0, sizeof *p);
    set_name(p, "dumps", 5);
    p->role = MCP_DUMPS;
    p->path = 1;
    p->series = 1;
}

static int build(mcp_tool *t, const cli_spec *spec, const cli_option *common)
{
    size_t cap = 8 + count_options(spec->options) + count_options(common);
    t->spec = spec;
    t->params = calloc(cap, sizeof *t->params);
    if (!t->params)
        return -1;
    t->nparams = positionals(spec, t->params);
    t->writes_file = strcmp(spec->name, "report") == 0;
    if (t->writes_file)
        add_series(t);
    for (const cli_option *o = spec->options; o && o->kind != CLI_OPT_END; o++)
        add_option(t, o, spec);
    for (const cli_option *o = common; o && o->kind != CLI_OPT_END; o++)
        if (!common_hidden(o->long_name))
            add_option(t, o, spec);
    for (size_t i = 0; i < t->nparams; i++)
        if (t->writes_file && t->params[i].path == 2)
            t->params[i].required = 1;
    return 0;
}

mcp_tool *mcp_tools_new(const cli_spec *const *specs, size_t n, const cli_option *common,
                        size_t *count)
{
    mcp_tool *tools = calloc(n ? n : 1, sizeof *tools);
    *count = 0;
    if (!tools)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (is_interactive(specs[i]))
            continue;
        if (build(&tools[*count], specs[i], common)) {
            mcp_tools_free(tools, *count);
            return NULL;
        }
        (*count)++;
    }
    return tools;
}

void mcp_tools_free(mcp_tool *tools, size_t count)
{
    for (size_t i = 0; tools && i < count; i++)
        free(tools[i].params);
    free(tools);
}

const mcp_param *mcp_param_find(const mcp_tool *t, const char *name, size_t len)
{
    for (size_t i = 0; i < t->nparams; i++)
        if (strlen(t->params[i].name) == len && memcmp(t->params[i].name, name, len) == 0)
            return &t->params[i];
    return NULL;
}

/* ---- schemas ---- */

static void types(json_writer *w, const char *const *names)
{
    json_begin_array(w, "type");
    for (size_t i = 0; names[i]; i++)
        json_string(w, NULL, names[i]);
    json_end_array(w);
}

static void option_schema(json_writer *w, const mcp_param *p)
{
    const cli_option *o = p->opt;
    strbuf d = STRBUF_INIT;
    sb_add(&d, o->help);
    switch (o->kind) {
    case CLI_OPT_BOOL: json_string(w, "type", "boolean"); break;
    case CLI_OPT_UINT:
        json_string(w, "type", "integer");
        json_u64(w, "minimum", o->min);
        if (o->max != UINT64_MAX)
            json_u64(w, "maximum", o->max);
        break;
    case CLI_OPT_SIZE: {
        static const char *const t[] = { "integer", "string", NULL };
        types(w, t);
        sb_add(&d, " (bytes, or a string with a unit: \"64KiB\", \"1.5MB\")");
        break;
    }
    case CLI_OPT_ENUM:
    case CLI_OPT_WORD:
        json_string(w, "type", "string");
        json_begin_array(w, "enum");
        for (size_t i = 0; p->words[i]; i++)
            json_string(w, NULL, p->words[i]);
        json_end_array(w);
        break;
    case CLI_OPT_CALLBACK: {
        static const char *const flag[] = { "boolean", "string", "integer", NULL };
        static const char *const t[] = { "string", "integer", "array", NULL };
        static const char *const item[] = { "string", "integer", NULL };
        if (o->optional_value) {
            types(w, flag);
            sb_add(&d, " (true: the option without a value)");
        } else {
            types(w, t);
            json_begin_object(w, "items");
            types(w, item);
            json_end_object(w);
            sb_add(&d, " (an array repeats the option)");
        }
        break;
    }
    default: json_string(w, "type", "string"); break;
    }
    if (p->path)
        sb_add(&d, " (a path inside the allowed folders)");
    json_string(w, "description", sb_str(&d));
    sb_free(&d);
}

static void param_schema(json_writer *w, const mcp_param *p, const cli_spec *spec)
{
    json_begin_object(w, p->name);
    if (p->role == MCP_OPTION) {
        option_schema(w, p);
    } else if (p->role == MCP_DUMPS || p->role == MCP_ARG_LIST) {
        json_string(w, "type", "array");
        json_begin_object(w, "items");
        if (p->role == MCP_ARG_LIST) {
            static const char *const t[] = { "string", "integer", NULL };
            types(w, t);
        } else
            json_string(w, "type", "string");
        json_end_object(w);
        if (p->series)
            json_u64(w, "minItems", 2);
        else if (p->role == MCP_DUMPS && spec->min_args > 0)
            json_u64(w, "minItems", (uint64_t)spec->min_args);
        json_string(w, "description",
                    p->series ? "instead of dump: two heap dump paths (what changed, base then new) or "
                                "three or more (a leak series, oldest first), inside the allowed folders"
                    : p->role == MCP_DUMPS ? "heap dump paths, oldest first (inside the allowed folders)"
                                           : "object ids as the dump writes them (hex or decimal)");
    } else if (p->role == MCP_DUMP) {
        json_string(w, "type", "string");
        json_string(w, "description", strcmp(p->name, "base") == 0 ? "the older heap dump's path"
                                      : strcmp(p->name, "new") == 0 ? "the newer heap dump's path"
                                                                    : "the heap dump's path (inside the allowed folders)");
    } else {
        static const char *const t[] = { "string", "integer", NULL };
        types(w, t);
        json_string(w, "description", "an object id as the dump writes it");
    }
    json_end_object(w);
}

static void paging_schema(json_writer *w)
{
    json_begin_object(w, "limit");
    json_string(w, "type", "integer");
    json_u64(w, "minimum", 1);
    json_string(w, "description", "at most this many rows in this answer, across all sections "
                                  "(default 100); the rest with cursor");
    json_end_object(w);
    json_begin_object(w, "cursor");
    json_string(w, "type", "string");
    json_string(w, "description", "next_cursor of the previous answer to the same call: "
                                  "continues where it stopped");
    json_end_object(w);
}

static void input_schema(json_writer *w, const mcp_tool *t)
{
    json_begin_object(w, "inputSchema");
    json_string(w, "type", "object");
    json_begin_object(w, "properties");
    for (size_t i = 0; i < t->nparams; i++)
        param_schema(w, &t->params[i], t->spec);
    if (!t->writes_file)
        paging_schema(w);
    json_end_object(w);
    json_begin_array(w, "required");
    for (size_t i = 0; i < t->nparams; i++)
        if (t->params[i].required)
            json_string(w, NULL, t->params[i].name);
    json_end_array(w);
    json_bool(w, "additionalProperties", 0);
    json_end_object(w);
}

static void output_schema(json_writer *w, const mcp_tool *t)
{
    json_begin_object(w, "outputSchema");
    json_string(w, "type", "object");
    json_begin_object(w, "properties");
    json_begin_object(w, "command");
    json_string(w, "const", t->spec->name);
    json_end_object(w);
    if (t->writes_file) {
        json_begin_object(w, "output");
        json_string(w, "type", "string");
        json_string(w, "description", "the path the HTML report was written to");
        json_end_object(w);
        json_begin_object(w, "files");
        json_string(w, "type", "array");
        json_begin_object(w, "items");
        json_string(w, "type", "string");
        json_end_object(w);
        json_string(w, "description", "with dumps: the dumps the report read, as the server resolved them");
        json_end_object(w);
    } else {
        json_begin_object(w, "sections");
        json_string(w, "type", "array");
        json_begin_object(w, "items");
        json_string(w, "type", "object");
        json_end_object(w);
        json_string(w, "description", "gcheap's --format json sections; each \"rows\" list is paged");
        json_end_object(w);
        json_begin_object(w, "truncated");
        json_string(w, "type", "boolean");
        json_string(w, "description", "true when rows remain: call again with next_cursor");
        json_end_object(w);
        json_begin_object(w, "next_cursor");
        json_string(w, "type", "string");
        json_end_object(w);
    }
    json_end_object(w);
    json_begin_array(w, "required");
    json_string(w, NULL, "command");
    json_end_array(w);
    json_end_object(w);
}

void mcp_tool_describe(const mcp_tool *t, json_writer *w)
{
    strbuf d = STRBUF_INIT;
    const char *usage = t->spec->usage, *nl = strchr(usage, '\n');
    sb_add(&d, t->spec->summary);
    sb_add(&d, ". ");
    sb_addn(&d, usage, nl ? (size_t)(nl - usage) : strlen(usage));
    if (t->writes_file)
        sb_add(&d, ". Writes the HTML page to `output` and returns that path.");
    else
        sb_add(&d, ". Returns the command's --format json document (rows paged by limit/cursor).");
    json_begin_object(w, NULL);
    json_string(w, "name", t->spec->name);
    json_string(w, "title", t->spec->summary);
    json_string(w, "description", sb_str(&d));
    input_schema(w, t);
    output_schema(w, t);
    json_end_object(w);
    sb_free(&d);
}
