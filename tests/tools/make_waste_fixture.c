/* Developer tool (not a test): writes testdata/hprof/waste.hprof, the small
 * HPROF dump of the README's `gcheap waste` example and of the golden cases
 * testdata/cases/waste_*.case (tests/support/hprof_writer.c; identifier
 * size 8). What it holds, so that the expected rows can be checked by hand:
 *   12 Strings "SELECT * FROM users WHERE id = ?", each with its own byte[33];
 *   10 byte[256] filled with 0x2A, held by no String;
 *   20 app.Session, each holding in .items an empty java.util.ArrayList
 *   whose elementData is an Object[10], and in .tags a java.util.HashMap of
 *   1 entry whose table is an Object[64] (under-filled: 1/64);
 *   3 int[0] and 2 Strings with values of their own.
 * Sizes follow the reader's rule for 8-byte ids without compressed oops
 * (docs/hprof-format.md). Usage: make_waste_fixture OUT.hprof */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hprof_writer.h"

enum { C_STRING = 0x100, C_BYTES = 0x110, C_INTS = 0x120, C_OBJS = 0x130, C_LIST = 0x140,
       C_MAP = 0x150, C_SESSION = 0x160, C_ENTRY = 0x170 };
enum { N_STRING = 1, N_BYTES, N_INTS, N_OBJS, N_LIST, N_MAP, N_SESSION, N_ENTRY, F_VALUE, F_CODER,
       F_SIZE, F_ELEMENTDATA, F_TABLE, F_ITEMS, F_TAGS, F_KEY };

static uint64_t next_id = 0x7f0000000000ull;

static uint64_t new_id(void)
{
    next_id += 0x20;
    return next_id;
}

static void instance(hpw *w, uint64_t id, uint64_t cls, const uint64_t *v, const unsigned *t, size_t n)
{
    unsigned char buf[64];
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += hpw_value(w, t[i], v[i], buf + len);
    hpw_instance(w, id, cls, buf, (uint32_t)len);
}

static uint64_t string(hpw *w, const char *text)
{
    uint64_t arr = new_id(), s = new_id();
    hpw_prim_array(w, arr, 8, (uint32_t)strlen(text), text);
    instance(w, s, C_STRING, (uint64_t[]){ arr, 0 }, (unsigned[]){ 2, 8 }, 2);
    return s;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_waste_fixture OUT.hprof\n");
        return 2;
    }
    hpw *w = hpw_new("1.0.2", 8, 0);
    static const char *const names[] = { NULL, "java/lang/String", "[B", "[I", "[Ljava/lang/Object;",
        "java/util/ArrayList", "java/util/HashMap", "app/Session", "java/util/HashMap$Node",
        "value", "coder", "size", "elementData", "table", "items", "tags", "key" };
    for (unsigned i = 1; i < sizeof names / sizeof *names; i++)
        hpw_string(w, i, names[i]);
    static const uint64_t cls[] = { 0, C_STRING, C_BYTES, C_INTS, C_OBJS, C_LIST, C_MAP, C_SESSION, C_ENTRY };
    for (unsigned i = 1; i < sizeof cls / sizeof *cls; i++)
        hpw_load_class(w, i, cls[i], i);
    hpw_begin(w, 0x1C);
    hpw_class_dump(w, C_STRING, 0, 0, 9, NULL, 0, (hpw_field[]){ { F_VALUE, 2, 0 }, { F_CODER, 8, 0 } }, 2);
    hpw_class_dump(w, C_BYTES, 0, 0, 0, NULL, 0, NULL, 0);
    hpw_class_dump(w, C_INTS, 0, 0, 0, NULL, 0, NULL, 0);
    hpw_class_dump(w, C_OBJS, 0, 0, 0, NULL, 0, NULL, 0);
    hpw_class_dump(w, C_LIST, 0, 0, 12, NULL, 0, (hpw_field[]){ { F_SIZE, 10, 0 }, { F_ELEMENTDATA, 2, 0 } }, 2);
    hpw_class_dump(w, C_MAP, 0, 0, 12, NULL, 0, (hpw_field[]){ { F_TABLE, 2, 0 }, { F_SIZE, 10, 0 } }, 2);
    hpw_class_dump(w, C_SESSION, 0, 0, 16, NULL, 0, (hpw_field[]){ { F_ITEMS, 2, 0 }, { F_TAGS, 2, 0 } }, 2);
    hpw_class_dump(w, C_ENTRY, 0, 0, 8, NULL, 0, (hpw_field[]){ { F_KEY, 2, 0 } }, 1);
    for (int i = 0; i < 12; i++)
        string(w, "SELECT * FROM users WHERE id = ?");
    string(w, "admin");
    string(w, "guest");
    unsigned char stars[256];
    memset(stars, 0x2A, sizeof stars);
    for (int i = 0; i < 10; i++)
        hpw_prim_array(w, new_id(), 8, sizeof stars, stars);
    for (int i = 0; i < 3; i++)
        hpw_prim_array(w, new_id(), 10, 0, NULL);
    static const uint64_t none[64];
    for (int i = 0; i < 20; i++) {
        uint64_t items_array = new_id(), items = new_id();
        hpw_object_array(w, items_array, C_OBJS, none, 10);
        instance(w, items, C_LIST, (uint64_t[]){ 0, items_array }, (unsigned[]){ 10, 2 }, 2);
        uint64_t key = string(w, "role");
        uint64_t node = new_id();
        instance(w, node, C_ENTRY, (uint64_t[]){ key }, (unsigned[]){ 2 }, 1);
        uint64_t slots[64] = { 0 };
        slots[7] = node;
        uint64_t table = new_id(), tags = new_id();
        hpw_object_array(w, table, C_OBJS, slots, 64);
        instance(w, tags, C_MAP, (uint64_t[]){ table, 1 }, (unsigned[]){ 2, 10 }, 2);
        uint64_t session = new_id();
        instance(w, session, C_SESSION, (uint64_t[]){ items, tags }, (unsigned[]){ 2, 2 }, 2);
        hpw_root(w, 0x01, session, 0, 0); /* a JNI global: the sessions are live */
    }
    hpw_end(w);
    hpw_begin(w, 0x2C);
    hpw_end(w);
    FILE *f = fopen(argv[1], "wb");
    if (!f || fwrite(w->buf, 1, w->len, f) != w->len || fclose(f) != 0) {
        perror(argv[1]);
        return 1;
    }
    hpw_free(w);
    return 0;
}
