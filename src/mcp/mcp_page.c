/* See mcp_page.h. The document is walked in node order with an explicit
 * stack of open containers (its depth is bounded by the parser's limit). */
#include "mcp_page.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

typedef struct frame {
    uint32_t node;
    uint32_t left;   /* members or elements still to visit */
    uint8_t object;
    uint8_t rows;    /* a "rows" list (not inside another) */
    uint8_t wrote;   /* an item was written: the next takes a comma */
} frame;

typedef struct walk {
    const mj_doc *d;
    strbuf *out;
    uint64_t skip, limit, row;
    mcp_page_info *info;
    const char *cursor;
} walk;

/* Writing is skipped when out is NULL (the counting pass). */
static void put(walk *w, const char *s)
{
    if (w->out)
        sb_add(w->out, s);
}

static void raw(walk *w, uint32_t node)
{
    const mj_node *n = &w->d->nodes[node];
    if (w->out)
        sb_addn(w->out, w->d->text + n->start, n->len);
}

static void close_frame(walk *w, const frame *f, int top)
{
    if (top && w->info->more && w->out) {
        put(w, f->wrote ? "," : "");
        put(w, "\"truncated\":true,\"next_cursor\":");
        sb_escape(w->out, ESC_JSON, w->cursor);
    }
    put(w, f->object ? "}" : "]");
}

/* Visits the document, writing the page (stack: room for its depth). */
static void run(walk *w, frame *stack)
{
    const mj_node *nodes = w->d->nodes;
    size_t depth = 0, in_rows = 0;
    uint32_t cur = 0;
    int pending_rows = 0;
    for (;;) {
        const mj_node *n = &nodes[cur];
        if (n->kind == MJ_ARRAY || n->kind == MJ_OBJECT) {
            put(w, n->kind == MJ_OBJECT ? "{" : "[");
            frame *f = &stack[depth++];
            f->node = cur;
            f->left = n->count;
            f->object = n->kind == MJ_OBJECT;
            f->rows = (uint8_t)(pending_rows && n->kind == MJ_ARRAY && in_rows == 0);
            f->wrote = 0;
            in_rows += f->rows;
            if (depth == 2 && stack[0].object && !f->object && pending_rows == 0 &&
                w->info->sections == 0 && cur > 0 && mj_string_is(w->d, cur - 1, "sections"))
                w->info->sections = n->count;
            cur++;
        } else {
            raw(w, cur);
            cur = n->next;
        }
        pending_rows = 0;
        /* the next value to write, closing finished containers */
        for (;;) {
            if (depth == 0)
                return;
            frame *f = &stack[depth - 1];
            if (f->left == 0) {
                close_frame(w, f, depth == 1);
                in_rows -= f->rows;
                depth--;
                continue;
            }
            f->left--;
            if (f->object) {
                put(w, f->wrote ? "," : "");
                raw(w, cur);
                put(w, ":");
                f->wrote = 1;
                pending_rows = nodes[cur + 1].kind == MJ_ARRAY && mj_string_is(w->d, cur, "rows");
                cur++;
                break;
            }
            if (f->rows) {
                uint64_t r = w->row++;
                if (r < w->skip || r - w->skip >= w->limit) {
                    cur = nodes[cur].next;
                    continue;
                }
                if (w->out) {
                    if (w->info->first_row < 0)
                        w->info->first_row = (long)cur;
                    w->info->shown++;
                }
            }
            put(w, f->wrote ? "," : "");
            f->wrote = 1;
            break;
        }
    }
}

int mcp_page_write(const mj_doc *doc, uint64_t skip, uint64_t limit, const char *cursor,
                   strbuf *out, mcp_page_info *info)
{
    memset(info, 0, sizeof *info);
    info->first_row = -1;
    if (doc->count == 0 || doc->nodes[0].kind != MJ_OBJECT)
        return -1;
    /* the depth never exceeds the node count */
    frame *stack = xmalloc_array(doc->count, sizeof *stack);
    walk count = { doc, NULL, UINT64_MAX, 0, 0, info, cursor };
    run(&count, stack); /* numbers the rows: count.row is the total */
    info->total = count.row;
    info->more = skip < info->total && info->total - skip > limit;
    info->sections = 0;
    walk w = { doc, out, skip, limit, 0, info, cursor };
    run(&w, stack);
    free(stack);
    return 0;
}

/* ---- the text summary ---- */

/* A name from the dump, as a short json-quoted string: at most 40 bytes
 * (cut at a character boundary), escaped by the json rule (control and bidi
 * characters as \u escapes), so it reads as data, never as instructions. */
static void quote_name(strbuf *out, const char *s)
{
    char cut[48];
    size_t n = strlen(s);
    if (n > 40) {
        n = 40;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
    }
    memcpy(cut, s, n);
    strcpy(cut + n, strlen(s) > n ? "..." : "");
    sb_escape(out, ESC_JSON, cut);
}

/* Member key of row (an object node) as a string, or NULL (malloc'd). */
static char *member_text(const mj_doc *d, long row, const char *key)
{
    long v = mj_get(d, (size_t)row, key);
    if (v < 0)
        return NULL;
    if (d->nodes[v].kind == MJ_STRING)
        return mj_string(d, (size_t)v, NULL);
    if (d->nodes[v].kind != MJ_NUMBER)
        return NULL;
    char *s = xmalloc(d->nodes[v].len + 1);
    memcpy(s, d->text + d->nodes[v].start, d->nodes[v].len);
    s[d->nodes[v].len] = '\0';
    return s;
}

static void first_row(const mj_doc *d, const char *command, long row, strbuf *out)
{
    if (row < 0 || d->nodes[row].kind != MJ_OBJECT)
        return;
    char *id = member_text(d, row, "id"), *type = member_text(d, row, "type");
    char *target = member_text(d, row, "target");
    char *retained = member_text(d, row, "retained"), *bytes = member_text(d, row, "bytes");
    sb_add(out, " First row:");
    if (id && *id) {
        sb_add(out, " id ");
        quote_name(out, id);
    }
    if (type) {
        sb_add(out, " type ");
        quote_name(out, type);
    }
    if (retained)
        sb_addf(out, " retained %.24s", retained);
    else if (bytes)
        sb_addf(out, " bytes %.24s", bytes);
    sb_add(out, ".");
    if (strcmp(command, "retainers") == 0 && target && *target) {
        sb_add(out, " Next: objsize with ids [");
        quote_name(out, target);
        sb_add(out, "] says what it keeps alive.");
    } else if (id && *id && strcmp(command, "retainers") != 0) {
        sb_add(out, " Next: retainers with ids [");
        quote_name(out, id);
        sb_add(out, "] shows why it is alive.");
    } else if (type && *type && strcmp(command, "objects") != 0) {
        sb_add(out, " Next: objects with type ");
        quote_name(out, type);
        sb_add(out, " lists its instances.");
    }
    free(id);
    free(type);
    free(target);
    free(retained);
    free(bytes);
}

void mcp_page_summary(const mj_doc *doc, const char *command, uint64_t skip,
                      const mcp_page_info *info, const char *cursor, strbuf *out)
{
    sb_addf(out, "%s: ", command);
    if (info->shown)
        sb_addf(out, "rows %llu-%llu of %llu", (unsigned long long)skip + 1,
                (unsigned long long)(skip + info->shown), (unsigned long long)info->total);
    else
        sb_addf(out, "no rows on this page (%llu in all)", (unsigned long long)info->total);
    sb_addf(out, " in %llu section%s; the data is in structuredContent.",
            (unsigned long long)info->sections, info->sections == 1 ? "" : "s");
    long pass = mj_get(doc, 0, "pass");
    if (pass >= 0 && doc->nodes[pass].kind == MJ_FALSE)
        sb_add(out, " A limit was exceeded (pass: false).");
    first_row(doc, command, info->first_row, out);
    if (info->more) {
        sb_add(out, " More rows: call again with the same arguments and cursor ");
        sb_escape(out, ESC_JSON, cursor);
        sb_add(out, ".");
    }
}
