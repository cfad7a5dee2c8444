/* tools/call: the arguments become a command line (options as
 * --long=value, then "--" and the positional arguments, paths checked and
 * made canonical), the command runs through the configured runner with its
 * stdout and stderr in memory, and its json document is paged into
 * structuredContent. */
#include "mcp_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mcp_page.h"
#include "xalloc.h"

typedef struct argv_list {
    char **v;
    size_t n, cap;
} argv_list;

static void push(argv_list *a, char *s)
{
    a->v = xgrow(a->v, &a->cap, a->n + 2, sizeof *a->v);
    a->v[a->n++] = s;
    a->v[a->n] = NULL;
}

static void push_copy(argv_list *a, const char *s) { push(a, xstrdup(s)); }

static void argv_free(argv_list *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->v[i]);
    free(a->v);
}

typedef struct call {
    mcp_server *s;
    const mj_doc *d;
    const mcp_tool *tool;
    argv_list opts, pos;     /* options; positionals in usage order */
    char *dump_paths[3];     /* the canonical dump paths (dump or base, new) for the report tool */
    char *output;            /* report: the canonical output path */
    int series;              /* report: given dumps, listed as files in its answer */
    uint64_t limit, skip;
    int cursor_given;
    uint64_t cursor_hash;
    strbuf err;              /* a tool error's message */
} call;

/* The name of a property, short and escaped, for messages. */
static void prop_name(strbuf *b, const mj_doc *d, size_t key)
{
    char *name = mj_string(d, key, NULL);
    if (name && strlen(name) > 40)
        strcpy(name + 37, "...");
    sb_escape(b, ESC_MESSAGE, name ? name : "?");
    free(name);
}

static int fail(call *c, const char *fmt, const char *name)
{
    if (!c->err.len) {
        sb_addf(&c->err, "gcheap: %s: ", c->tool->spec->name);
        sb_addf(&c->err, fmt, name);
    }
    return -1;
}

/* A scalar argument as command-line text: a string unescaped (no NUL), a
 * number as written; NULL for other kinds. */
static char *scalar_text(call *c, size_t node, const char *name)
{
    const mj_node *n = &c->d->nodes[node];
    if (n->kind == MJ_NUMBER) {
        char *t = xmalloc(n->len + 1);
        memcpy(t, c->d->text + n->start, n->len);
        t[n->len] = '\0';
        return t;
    }
    if (n->kind != MJ_STRING)
        return NULL;
    int nul;
    char *t = mj_string(c->d, node, &nul);
    if (!t)
        die("out of memory");
    if (nul) {
        free(t);
        fail(c, "argument '%s' holds a NUL character", name);
        return NULL;
    }
    return t;
}

static int add_path(call *c, const mcp_param *p, size_t node, argv_list *into, int mode)
{
    char *path = scalar_text(c, node, p->name);
    if (!path || c->d->nodes[node].kind != MJ_STRING) {
        free(path);
        return fail(c, "argument '%s' must be a path (a string)", p->name);
    }
    char *real;
    int rc = mcp_access_check(&c->s->access, path, mode, &real, &c->err);
    free(path);
    if (rc)
        return -1;
    push(into, real);
    return 0;
}

static int add_option_value(call *c, const mcp_param *p, size_t node)
{
    const cli_option *o = p->opt;
    const mj_node *n = &c->d->nodes[node];
    strbuf arg = STRBUF_INIT;
    sb_addf(&arg, "--%s", o->long_name);
    if (o->kind == CLI_OPT_BOOL || (o->optional_value && (n->kind == MJ_TRUE || n->kind == MJ_FALSE))) {
        if (n->kind != MJ_TRUE && n->kind != MJ_FALSE) {
            sb_free(&arg);
            return fail(c, "argument '%s' must be true or false", p->name);
        }
        if (n->kind == MJ_TRUE)
            push(&c->opts, arg.s ? arg.s : xstrdup(""));
        else
            sb_free(&arg);
        return 0;
    }
    if (p->path) {
        sb_free(&arg);
        argv_list one = { NULL, 0, 0 };
        if (add_path(c, p, node, &one, MCP_WRITE))
            return -1;
        strbuf v = STRBUF_INIT;
        sb_addf(&v, "--%s=%s", o->long_name, one.v[0]);
        c->output = one.v[0];
        free(one.v);
        push(&c->opts, v.s);
        return 0;
    }
    char *text = scalar_text(c, node, p->name);
    int numeric_ok = o->kind != CLI_OPT_STRING && o->kind != CLI_OPT_ENUM && o->kind != CLI_OPT_WORD;
    if (!text || (n->kind == MJ_NUMBER && !numeric_ok) ||
        (n->kind == MJ_STRING && o->kind == CLI_OPT_UINT)) {
        free(text);
        sb_free(&arg);
        return fail(c, o->kind == CLI_OPT_UINT ? "argument '%s' must be an integer"
                                               : "argument '%s' must be a string", p->name);
    }
    sb_addc(&arg, '=');
    sb_add(&arg, text);
    free(text);
    push(&c->opts, arg.s);
    return 0;
}

static int add_option(call *c, const mcp_param *p, size_t node)
{
    const mj_node *n = &c->d->nodes[node];
    if (n->kind == MJ_ARRAY && p->opt->kind == CLI_OPT_CALLBACK && !p->opt->optional_value) {
        size_t i = node + 1;
        for (uint32_t k = 0; k < n->count; k++, i = c->d->nodes[i].next)
            if (add_option_value(c, p, i))
                return -1;
        return 0;
    }
    return add_option_value(c, p, node);
}

static int add_positional(call *c, const mcp_param *p, size_t node)
{
    const mj_node *n = &c->d->nodes[node];
    if (p->role == MCP_DUMP)
        return add_path(c, p, node, &c->pos, MCP_READ);
    if (p->role == MCP_ARG) {
        char *t = scalar_text(c, node, p->name);
        if (!t || !*t || strcmp(t, "-") == 0) {
            free(t);
            return fail(c, "argument '%s' must be an id (a string or a number)", p->name);
        }
        push(&c->pos, t);
        return 0;
    }
    if (n->kind != MJ_ARRAY)
        return fail(c, "argument '%s' must be an array", p->name);
    size_t i = node + 1;
    for (uint32_t k = 0; k < n->count; k++, i = c->d->nodes[i].next) {
        if (p->role == MCP_DUMPS) {
            if (add_path(c, p, i, &c->pos, MCP_READ))
                return -1;
            continue;
        }
        char *t = scalar_text(c, i, p->name);
        if (!t || !*t || strcmp(t, "-") == 0) {
            free(t);
            return fail(c, "argument '%s' must hold ids (strings or numbers)", p->name);
        }
        push(&c->pos, t);
    }
    return 0;
}

static int paging_arg(call *c, size_t key, size_t value)
{
    if (mj_string_is(c->d, key, "limit")) {
        if (mj_u64(c->d, value, &c->limit) || c->limit == 0)
            return fail(c, "argument '%s' must be a positive integer", "limit");
        return 0;
    }
    char *t = c->d->nodes[value].kind == MJ_STRING ? mj_string(c->d, value, NULL) : NULL;
    char *dot = t ? strchr(t, '.') : NULL;
    int ok = dot && dot > t && strlen(dot + 1) == 16;
    for (char *q = t; ok && q < dot; q++)
        ok = *q >= '0' && *q <= '9' && q - t < 19;
    if (ok) {
        c->skip = strtoull(t, NULL, 10);
        c->cursor_hash = strtoull(dot + 1, NULL, 16);
        c->cursor_given = 1;
    }
    free(t);
    return ok ? 0 : fail(c, "argument '%s' is not a cursor this server gave", "cursor");
}

/* The member of args named like a property, or NULL (and the paging
 * arguments into c); -1 after an unknown one. */
static int match_arguments(call *c, long args, long *found)
{
    const mj_doc *d = c->d;
    const mcp_tool *t = c->tool;
    size_t key = (size_t)args + 1;
    for (uint32_t m = 0; m < d->nodes[args].count; m++, key = d->nodes[key + 1].next) {
        size_t i = 0;
        while (i < t->nparams && !mj_string_is(d, key, t->params[i].name))
            i++;
        if (i < t->nparams) {
            found[i] = (long)key + 1;
            continue;
        }
        if (!t->writes_file && (mj_string_is(d, key, "limit") || mj_string_is(d, key, "cursor"))) {
            if (paging_arg(c, key, key + 1))
                return -1;
            continue;
        }
        strbuf name = STRBUF_INIT;
        prop_name(&name, d, key);
        fail(c, "unknown argument '%s' (tools/list gives each tool's inputSchema)", sb_str(&name));
        sb_free(&name);
        return -1;
    }
    return 0;
}

/* report's dumps: two or more, and not with dump (whose path, if given,
 * came first among the positionals). */
static int series_count(call *c, size_t node)
{
    const mj_node *n = &c->d->nodes[node];
    if (c->pos.n)
        return fail(c, "give '%s' or 'dumps', not both", "dump");
    if (n->kind == MJ_ARRAY && n->count < 2)
        return fail(c, "argument '%s' needs two dumps or more (one dump: 'dump')", "dumps");
    c->series = 1;
    return 0;
}

/* The arguments object into options and positionals. */
static int read_arguments(call *c, long args)
{
    const mcp_tool *t = c->tool;
    long *found = xmalloc_array(t->nparams ? t->nparams : 1, sizeof *found);
    for (size_t i = 0; i < t->nparams; i++)
        found[i] = -1;
    int rc = args >= 0 ? match_arguments(c, args, found) : 0;
    for (size_t i = 0; rc == 0 && i < t->nparams; i++) {
        const mcp_param *p = &t->params[i];
        if (found[i] < 0) {
            if (p->required && p->role != MCP_OPTION)
                break; /* the command says what is missing; later positionals would shift */
            if (p->required)
                rc = fail(c, "missing argument '%s'", p->name);
            continue;
        }
        if (p->series && rc == 0)
            rc = series_count(c, (size_t)found[i]);
        if (rc)
            break;
        rc = p->role == MCP_OPTION ? add_option(c, p, (size_t)found[i])
                                   : add_positional(c, p, (size_t)found[i]);
        if (rc == 0 && p->role == MCP_DUMP && i < 3 && c->pos.n)
            c->dump_paths[i] = c->pos.v[c->pos.n - 1];
    }
    if (rc == 0 && t->writes_file && c->pos.n == 0)
        rc = fail(c, "missing argument '%s' (or 'dumps': two dumps, or three or more for a series)", "dump");
    free(found);
    return rc;
}

/* FNV-1a over the command line: a cursor belongs to one call's arguments. */
static uint64_t fingerprint(const argv_list *a)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < a->n; i++)
        for (const unsigned char *p = (const unsigned char *)a->v[i];; p++) {
            h = (h ^ *p) * 1099511628211ULL;
            if (!*p)
                break;
        }
    return h;
}

/* A tools/call result: text as its one content item, with structured as
 * structuredContent when it succeeded; without structured, an error result
 * (isError true) whose text says why. */
static void tool_result(mcp_server *s, const mj_doc *d, long id, const char *text, const char *structured)
{
    strbuf b = STRBUF_INIT;
    mcp_reply_start(&b, d, id);
    json_writer w;
    json_init(&w, &b);
    json_begin_object(&w, NULL);
    json_begin_array(&w, "content");
    json_begin_object(&w, NULL);
    json_string(&w, "type", "text");
    json_string(&w, "text", text);
    json_end_object(&w);
    json_end_array(&w);
    if (structured)
        json_raw(&w, "structuredContent", structured);
    json_bool(&w, "isError", !structured);
    json_end_object(&w);
    sb_addc(&b, '}');
    mcp_send(s, &b);
    sb_free(&b);
}

static void tool_error(mcp_server *s, const mj_doc *d, long id, const char *message)
{
    tool_result(s, d, id, message, NULL);
}

static void progress(mcp_server *s, const mj_doc *d, long token, unsigned step, const char *what)
{
    if (token < 0)
        return;
    strbuf b = STRBUF_INIT;
    sb_add(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":");
    sb_addn(&b, d->text + d->nodes[token].start, d->nodes[token].len);
    sb_addf(&b, ",\"progress\":%u,\"total\":2,\"message\":", step);
    sb_escape(&b, ESC_JSON, what);
    sb_add(&b, "}}");
    mcp_send(s, &b);
    sb_free(&b);
}

/* What a command printed, as text (NUL bytes cut, which the CLI never writes). */
typedef struct captured {
    char *out, *err;
    size_t out_len, err_len;
} captured;

static int run_command(mcp_server *s, argv_list *argv, captured *cap)
{
    memset(cap, 0, sizeof *cap);
    FILE *out = s->cfg.memstream(&cap->out, &cap->out_len);
    FILE *err = s->cfg.memstream(&cap->err, &cap->err_len);
    if (!out || !err)
        die("out of memory");
    int rc = s->cfg.run(s->cfg.run_ctx, (int)argv->n, argv->v, out, err);
    fclose(out);
    fclose(err);
    return rc;
}

static void paged_result(mcp_server *s, const mj_doc *d, long id, call *c, const captured *cap,
                         uint64_t hash)
{
    mj_limits lim = { cap->out_len, MCP_MAX_DEPTH, cap->out_len + 1 };
    mj_doc doc;
    if (mj_parse(cap->out, cap->out_len, &lim, &doc) != MJ_OK) {
        tool_error(s, d, id, "gcheap: the command's output is not one JSON document "
                             "(too large for this server, or a bug in gcheap)");
        return;
    }
    char cursor[48];
    uint64_t next = c->skip + c->limit < c->skip ? UINT64_MAX : c->skip + c->limit;
    snprintf(cursor, sizeof cursor, "%" PRIu64 ".%016" PRIx64, next, hash);
    strbuf page = STRBUF_INIT, text = STRBUF_INIT;
    mcp_page_info info;
    if (mcp_page_write(&doc, c->skip, c->limit, cursor, &page, &info) != 0) {
        tool_error(s, d, id, "gcheap: the command's output is not a JSON object");
    } else {
        mcp_page_summary(&doc, c->tool->spec->name, c->skip, &info, cursor, &text);
        if (cap->err_len) { /* warnings: shown as data, cut short */
            sb_add(&text, " Warnings: ");
            char first[160];
            snprintf(first, sizeof first, "%.*s", (int)(cap->err_len < 150 ? cap->err_len : 150), cap->err);
            sb_escape(&text, ESC_JSON, first);
        }
        tool_result(s, d, id, sb_str(&text), sb_str(&page));
    }
    sb_free(&page);
    sb_free(&text);
    mj_free(&doc);
}

static void report_result(mcp_server *s, const mj_doc *d, long id, const call *c)
{
    strbuf sc = STRBUF_INIT, text = STRBUF_INIT;
    json_writer w;
    json_init(&w, &sc);
    json_begin_object(&w, NULL);
    json_string(&w, "command", c->tool->spec->name);
    if (c->dump_paths[0])
        json_string(&w, "file", c->dump_paths[0]);
    if (c->series) {
        json_begin_array(&w, "files");
        for (size_t i = 0; i < c->pos.n; i++)
            json_string(&w, NULL, c->pos.v[i]);
        json_end_array(&w);
    }
    json_string(&w, "output", c->output ? c->output : "");
    json_end_object(&w);
    sb_add(&text, "report: wrote the HTML page to ");
    sb_escape(&text, ESC_JSON, c->output ? c->output : "");
    sb_add(&text, " (for people: open it in a browser).");
    tool_result(s, d, id, sb_str(&text), sb_str(&sc));
    sb_free(&sc);
    sb_free(&text);
}

static void execute(mcp_server *s, const mj_doc *d, long id, call *c, long token)
{
    argv_list argv = { NULL, 0, 0 };
    push_copy(&argv, c->tool->spec->name);
    if (!c->tool->writes_file)
        push_copy(&argv, "--format=json");
    for (size_t i = 0; i < c->opts.n; i++)
        push_copy(&argv, c->opts.v[i]);
    push_copy(&argv, "--");
    for (size_t i = 0; i < c->pos.n; i++)
        push_copy(&argv, c->pos.v[i]);
    uint64_t hash = fingerprint(&argv);
    if (c->cursor_given && c->cursor_hash != hash) {
        tool_error(s, d, id, "gcheap: this cursor belongs to a call with other arguments");
        argv_free(&argv);
        return;
    }
    strbuf what = STRBUF_INIT;
    sb_addf(&what, "running %s", c->tool->spec->name);
    progress(s, d, token, 0, sb_str(&what));
    captured cap;
    int rc = run_command(s, &argv, &cap);
    progress(s, d, token, 1, "paging the result");
    if (rc == EXIT_INPUT || (c->tool->writes_file && rc != 0)) {
        while (cap.err_len && (cap.err[cap.err_len - 1] == '\n'))
            cap.err[--cap.err_len] = '\0';
        tool_error(s, d, id, cap.err_len ? cap.err : "gcheap: the command failed");
    } else if (c->tool->writes_file) {
        report_result(s, d, id, c);
    } else {
        paged_result(s, d, id, c, &cap, hash);
    }
    free(cap.out);
    free(cap.err);
    sb_free(&what);
    argv_free(&argv);
}

void mcp_tools_call(mcp_server *s, const mj_doc *d, long id, long params)
{
    long name = params >= 0 ? mj_get(d, (size_t)params, "name") : -1;
    long args = params >= 0 ? mj_get(d, (size_t)params, "arguments") : -1;
    if (name < 0 || d->nodes[name].kind != MJ_STRING) {
        mcp_reply_error(s, d, id, RPC_INVALID_PARAMS, "tools/call needs params.name, a tool's name");
        return;
    }
    if (args >= 0 && d->nodes[args].kind != MJ_OBJECT) {
        mcp_reply_error(s, d, id, RPC_INVALID_PARAMS, "tools/call's arguments must be an object");
        return;
    }
    const mcp_tool *tool = NULL;
    for (size_t i = 0; i < s->ntools && !tool; i++)
        if (mj_string_is(d, (size_t)name, s->tools[i].spec->name))
            tool = &s->tools[i];
    if (!tool) {
        strbuf m = STRBUF_INIT;
        sb_add(&m, "unknown tool '");
        prop_name(&m, d, (size_t)name);
        sb_add(&m, "' (tools/list names them)");
        mcp_reply_error(s, d, id, RPC_INVALID_PARAMS, sb_str(&m));
        sb_free(&m);
        return;
    }
    long meta = mj_get(d, (size_t)params, "_meta");
    long token = meta >= 0 ? mj_get(d, (size_t)meta, "progressToken") : -1;
    if (token >= 0 && d->nodes[token].kind != MJ_STRING && d->nodes[token].kind != MJ_NUMBER)
        token = -1;
    call c = { .s = s, .d = d, .tool = tool, .limit = MCP_LIMIT_DEFAULT };
    if (read_arguments(&c, args) == 0)
        execute(s, d, id, &c, token);
    else
        tool_error(s, d, id, sb_str(&c.err));
    argv_free(&c.opts);
    argv_free(&c.pos);
    free(c.output);
    sb_free(&c.err);
}
