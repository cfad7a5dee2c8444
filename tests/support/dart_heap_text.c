/* Canonical heap text for tests: see dart_heap_text.h. */
#include "dart_heap_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void add(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        abort();
    if (t->len + (size_t)n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (cap < t->len + (size_t)n + 1)
            cap *= 2;
        t->s = realloc(t->s, cap);
        if (!t->s)
            abort();
        t->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

char *dart_test_heap_text(const gch_heap *h, int with_meta)
{
    text t = { NULL, 0, 0 };
    add(&t, "");
    for (uint32_t i = 0; i < h->object_count; i++) {
        add(&t, "object %llu %s size %llu", (unsigned long long)h->object_id[i],
            gch_type_name(h, h->object_type[i]), (unsigned long long)gch_object_size(h, i));
        if (h->refs_loaded && h->out_start[i] < h->out_start[i + 1]) {
            add(&t, " ->");
            for (uint32_t r = h->out_start[i]; r < h->out_start[i + 1]; r++) {
                add(&t, r == h->out_start[i] ? " " : ", ");
                if (h->out_label && h->out_label[r] != GCH_NONE)
                    add(&t, ".%s ", gch_heap_string(h, h->out_label[r]));
                add(&t, "%llu", (unsigned long long)h->object_id[h->out_target[r]]);
            }
        }
        add(&t, "\n");
    }
    for (uint32_t r = 0; r < h->root_count; r++) {
        add(&t, "root %s %llu", gch_root_kind_name(h->root_kind[r]),
            (unsigned long long)h->root_raw_id[r]);
        if (h->root_object[r] == GCH_NONE)
            add(&t, " (absent)");
        if (h->root_label[r] != GCH_NONE)
            add(&t, " %s", gch_heap_string(h, h->root_label[r]));
        add(&t, "\n");
    }
    if (with_meta)
        for (size_t m = 0; m < h->meta_count; m++)
            add(&t, "meta %s: %s\n", h->meta[m].key, h->meta[m].value);
    return t.s;
}

const char *dart_test_meta(const gch_heap *h, const char *key)
{
    for (size_t m = 0; m < h->meta_count; m++)
        if (strcmp(h->meta[m].key, key) == 0)
            return h->meta[m].value;
    return NULL;
}
