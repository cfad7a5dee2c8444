/* See json.h. */
#include "json.h"

#include "xalloc.h"

void json_init(json_writer *w, strbuf *out)
{
    w->out = out;
    w->depth = 0;
    w->has_items[0] = 0;
}

void json_init_members(json_writer *w, strbuf *out, int after_first)
{
    w->out = out;
    w->depth = 1;
    w->has_items[1] = after_first != 0;
}

/* The comma and the key in front of a value. */
static void value_start(json_writer *w, const char *key)
{
    if (w->depth > 0 && w->has_items[w->depth])
        sb_addc(w->out, ',');
    w->has_items[w->depth] = 1;
    if (key) {
        sb_escape(w->out, ESC_JSON, key);
        sb_addc(w->out, ':');
    }
}

static void open_level(json_writer *w, const char *key, char bracket)
{
    value_start(w, key);
    sb_addc(w->out, bracket);
    if (w->depth + 1 >= JSON_MAX_DEPTH)
        die("json nesting too deep");
    w->has_items[++w->depth] = 0;
}

static void close_level(json_writer *w, char bracket)
{
    sb_addc(w->out, bracket);
    w->depth--;
}

void json_begin_object(json_writer *w, const char *key) { open_level(w, key, '{'); }
void json_end_object(json_writer *w) { close_level(w, '}'); }
void json_begin_array(json_writer *w, const char *key) { open_level(w, key, '['); }
void json_end_array(json_writer *w) { close_level(w, ']'); }

void json_string(json_writer *w, const char *key, const char *value)
{
    value_start(w, key);
    sb_escape(w->out, ESC_JSON, value);
}

void json_u64(json_writer *w, const char *key, uint64_t value)
{
    value_start(w, key);
    sb_u64(w->out, value);
}

void json_signed(json_writer *w, const char *key, int negative, uint64_t magnitude)
{
    value_start(w, key);
    if (negative && magnitude)
        sb_addc(w->out, '-');
    sb_u64(w->out, magnitude);
}

void json_bool(json_writer *w, const char *key, int value)
{
    value_start(w, key);
    sb_add(w->out, value ? "true" : "false");
}

void json_null(json_writer *w, const char *key)
{
    value_start(w, key);
    sb_add(w->out, "null");
}

void json_raw(json_writer *w, const char *key, const char *json_text)
{
    value_start(w, key);
    sb_add(w->out, json_text);
}
