/* Pass 2 of the HPROF reader: Java names, instance field layouts through the
 * class hierarchy, and the rule that gives objects their JVM sizes. See
 * hprof_internal.h and docs/hprof-format.md. */
#include <stdio.h>
#include <string.h>

#include "gcheap/reader.h"
#include "grow.h"
#include "hprof_internal.h"

#define MAX_NAME_BYTES 4096        /* longer class and field names are cut */
#define VOTE_OBJECTS (1u << 20)    /* address gaps sampled to choose the size rule */

gch_status hp_name_add(hprof_reader *r, const char *s, size_t len, uint32_t *off)
{
    if (len > MAX_NAME_BYTES)
        len = MAX_NAME_BYTES;
    if (r->names_size + len + 1 > UINT32_MAX - 1)
        return gch_error_set(r->err, GCH_ELIMIT, "names take more than 4 GiB");
    if (!gch_grow((void **)&r->names, &r->names_cap, r->names_size + len + 1, 1, 4096))
        return hp_oom(r);
    memcpy(r->names + r->names_size, s, len);
    r->names[r->names_size + len] = '\0';
    *off = (uint32_t)r->names_size;
    r->names_size += len + 1;
    return GCH_OK;
}

/* ------------------------------------------------------------------------ */
/* Names */

static const char *primitive_name(char c)
{
    switch (c) {
    case 'Z': return "boolean";
    case 'C': return "char";
    case 'F': return "float";
    case 'D': return "double";
    case 'B': return "byte";
    case 'S': return "short";
    case 'I': return "int";
    case 'J': return "long";
    default: return NULL;
    }
}

/* Appends the Java name of the internal name s (len bytes) to out (cap
 * bytes; cut when longer): "java/lang/String" -> "java.lang.String",
 * "[[B" -> "byte[][]", "[Ljava/lang/Object;" -> "java.lang.Object[]", and a
 * hidden class "Leak$$Lambda$1+0x0800" -> "Leak$$Lambda$1/0x0800" as the JVM
 * prints it. */
static size_t java_name(const char *s, size_t len, char *out, size_t cap)
{
    size_t dims = 0, n = 0;
    while (dims < len && s[dims] == '[')
        dims++;
    const char *base = s + dims;
    size_t blen = len - dims;
    const char *prim = dims && blen == 1 ? primitive_name(base[0]) : NULL;
    if (prim) {
        n = (size_t)snprintf(out, cap, "%s", prim);
    } else {
        if (dims && blen >= 2 && base[0] == 'L' && base[blen - 1] == ';') {
            base++;
            blen -= 2;
        }
        for (size_t i = 0; i < blen && n + 1 < cap; i++) {
            char c = base[i];
            if (c == '/')
                c = '.';
            else if (c == '+' && i + 2 < blen && base[i + 1] == '0' && base[i + 2] == 'x')
                c = '/';
            out[n++] = c;
        }
        out[n] = '\0';
    }
    for (size_t d = 0; d < dims && n + 3 <= cap; d++) {
        out[n++] = '[';
        out[n++] = ']';
        out[n] = '\0';
    }
    return n < cap ? n : cap - 1;
}

static gch_status name_class(hprof_reader *r, hp_class *k)
{
    char buf[MAX_NAME_BYTES + 64];
    uint32_t si = k->name_id ? hp_string_index(r, k->name_id) : HP_NONE;
    if (si != HP_NONE && r->class_name_of[si] != HP_NONE) {
        k->name = r->class_name_of[si]; /* classes named by one string share its copy */
        return GCH_OK;
    }
    size_t n;
    if (si != HP_NONE)
        n = java_name((const char *)r->data + r->strings[si].off, r->strings[si].len, buf, sizeof buf);
    else
        n = (size_t)snprintf(buf, sizeof buf, "<class 0x%llx>", (unsigned long long)k->id);
    gch_status st = hp_name_add(r, buf, n, &k->name);
    if (st == GCH_OK && si != HP_NONE)
        r->class_name_of[si] = k->name;
    return st;
}

/* HotSpot (JDK 17) adds fields the dump does not list: the injected fields
 * of javaClasses.hpp (ALL_INJECTED_FIELDS; intptr_t fields take 8 bytes on a
 * 64-bit JVM) and the padding of @Contended field groups (two times
 * ContendedPaddingWidth, 128 by default). Subclasses inherit them. */
static const struct hidden_fields {
    const char *name;
    uint32_t bytes, refs;
} hidden_fields[] = {
    { "java/lang/Class", 8 + 8 + 4 + 4, 3 },   /* klass, array_klass, oop_size,
                                                   static_oop_field_count; protection_domain,
                                                   signers, source_file */
    { "java/lang/ClassLoader", 8, 0 },          /* loader_data */
    { "java/lang/Module", 8, 0 },               /* module_entry */
    { "java/lang/invoke/MemberName", 8, 0 },    /* vmindex */
    { "java/lang/invoke/ResolvedMethodName", 8, 1 }, /* vmtarget; vmholder */
    { "java/lang/invoke/MethodHandleNatives$CallSiteContext", 16, 0 }, /* vmdependencies, last_cleanup */
    { "java/lang/StackFrameInfo", 2, 0 },       /* version */
    { "java/lang/InternalError", 1, 0 },        /* during_unsafe_access */
};

/* The classes of JDK 17 that carry @jdk.internal.vm.annotation.Contended
 * (every class file of the runtime image holding the annotation's
 * descriptor; the annotation works only for JDK classes unless
 * -XX:-RestrictContended). A dump records no annotation, and the address
 * gaps cannot tell padding from the garbage between live objects (a single
 * ForkJoinPool), so they are known by name: docs/hprof-format.md, "Sizes";
 * tests/cli/test_hprof_jvm.sh compares each with the JVM's histogram. */
static const char *const thread_tlr[] = { "threadLocalRandomSeed", "threadLocalRandomProbe",
                                          "threadLocalRandomSecondarySeed", NULL };
static const char *const pool_ctl[] = { "ctl", NULL };
static const char *const queue_w[] = { "top", "source", "nsteals", NULL };
static const char *const subscription_demand[] = { "demand", "waiting", NULL };
static const struct contended_class {
    const char *name;
    int class_level;                 /* the whole class is @Contended */
    const char *const *group;        /* fields of its one @Contended group, or NULL */
} contended_classes[] = {
    { "java/lang/Thread", 0, thread_tlr },
    { "java/util/concurrent/ForkJoinPool", 0, pool_ctl },
    { "java/util/concurrent/ForkJoinPool$WorkQueue", 0, queue_w },
    { "java/util/concurrent/atomic/Striped64$Cell", 1, NULL },
    { "java/util/concurrent/ConcurrentHashMap$CounterCell", 1, NULL },
    { "java/util/concurrent/Exchanger$Node", 1, NULL },
    { "java/util/concurrent/SubmissionPublisher$BufferedSubscription", 1, subscription_demand },
};

static void note_hidden_fields(hp_class *k, const char *s, uint32_t len)
{
    for (size_t i = 0; i < sizeof contended_classes / sizeof *contended_classes; i++)
        if (strlen(contended_classes[i].name) == len && memcmp(contended_classes[i].name, s, len) == 0) {
            k->contended_class = (uint8_t)(contended_classes[i].class_level ? 1 : 0);
            k->contended_fields = contended_classes[i].group;
            k->contended = 1;
        }
    for (size_t i = 0; i < sizeof hidden_fields / sizeof *hidden_fields; i++)
        if (strlen(hidden_fields[i].name) == len && memcmp(hidden_fields[i].name, s, len) == 0) {
            k->hidden_bytes = hidden_fields[i].bytes;
            k->hidden_refs = hidden_fields[i].refs;
        }
}

/* Finds the well-known classes by their internal names. */
static void find_known_classes(hprof_reader *r)
{
    static const struct { unsigned type; const char *name; } prims[] = {
        { HP_T_BOOLEAN, "[Z" }, { HP_T_CHAR, "[C" }, { HP_T_FLOAT, "[F" }, { HP_T_DOUBLE, "[D" },
        { HP_T_BYTE, "[B" }, { HP_T_SHORT, "[S" }, { HP_T_INT, "[I" }, { HP_T_LONG, "[J" },
    };
    r->class_class = r->reference_class = HP_NONE;
    for (size_t i = 0; i < r->class_count; i++) {
        uint32_t len;
        const char *s = r->classes[i].name_id ? hp_string_get(r, r->classes[i].name_id, &len) : NULL;
        if (!s)
            continue;
        if (!r->art && r->id_size == 8)
            note_hidden_fields(&r->classes[i], s, len);
        if (len == 15 && memcmp(s, "java/lang/Class", 15) == 0 && r->class_class == HP_NONE)
            r->class_class = (uint32_t)i;
        else if (len == 23 && memcmp(s, "java/lang/ref/Reference", 23) == 0 &&
                 r->reference_class == HP_NONE)
            r->reference_class = (uint32_t)i;
        else if (len == 2 && s[0] == '[')
            for (size_t p = 0; p < sizeof prims / sizeof *prims; p++)
                if (s[1] == prims[p].name[1] && !r->prim_array_class[prims[p].type])
                    r->prim_array_class[prims[p].type] = r->classes[i].id;
    }
}

/* ------------------------------------------------------------------------ */
/* Fields */

static gch_status add_own_fields(hprof_reader *r, uint32_t ki)
{
    hp_class *k = &r->classes[ki];
    size_t p = k->fields + 2;
    if (!gch_grow((void **)&r->layout, &r->layout_cap, r->layout_count + k->field_count + 1,
                  sizeof *r->layout, 256))
        return hp_oom(r);
    k->layout_first = (uint32_t)r->layout_count;
    for (size_t i = 0; i < k->field_count; i++, p += r->id_size + 1) {
        hp_field *f = &r->layout[r->layout_count++];
        f->name_id = hp_id(r, r->data + p);
        f->type = r->data[p + r->id_size];
        f->weak = 0;
        f->label = HP_NONE;
        if (f->type != HP_T_OBJECT && f->type != HP_T_ARRAY_OBJECT)
            continue;
        uint32_t si = hp_string_index(r, f->name_id);
        if (si == HP_NONE)
            continue;
        const hp_string *name = &r->strings[si];
        /* One copy per distinct name, however many fields it names. */
        if (r->field_label_of[si] == HP_NONE) {
            gch_status st = hp_name_add(r, (const char *)r->data + name->off, name->len,
                                        &r->field_label_of[si]);
            if (st != GCH_OK)
                return st;
        }
        f->label = r->field_label_of[si];
        f->weak = ki == r->reference_class && name->len == 8 &&
                  memcmp(r->data + name->off, "referent", 8) == 0;
    }
    return GCH_OK;
}

/* Labels "static NAME" of the static fields of object type, sizes of the rest. */
static gch_status add_statics(hprof_reader *r, hp_class *k)
{
    size_t p = k->statics + 2;
    if (!gch_grow((void **)&r->static_label, &r->static_label_cap,
                  r->static_label_count + k->static_count + 1, sizeof *r->static_label, 256))
        return hp_oom(r);
    k->static_labels = (uint32_t)r->static_label_count;
    for (size_t i = 0; i < k->static_count; i++) {
        unsigned t = r->data[p + r->id_size];
        uint32_t len = 0, label = HP_NONE;
        uint32_t si = hp_string_index(r, hp_id(r, r->data + p));
        const char *name = si == HP_NONE ? NULL : (const char *)r->data + r->strings[si].off;
        len = si == HP_NONE ? 0 : r->strings[si].len;
        /* OpenJDK adds "<resolved_references>" and "<init_lock>": not fields. */
        int pseudo = name && len && name[0] == '<';
        if (t == HP_T_OBJECT || t == HP_T_ARRAY_OBJECT) {
            if (si != HP_NONE && r->static_label_of[si] != HP_NONE) {
                label = r->static_label_of[si]; /* one copy per distinct name */
            } else {
                char buf[MAX_NAME_BYTES + 16];
                int n = snprintf(buf, sizeof buf, "static %.*s",
                                 name ? (int)(len > MAX_NAME_BYTES ? MAX_NAME_BYTES : len) : 1,
                                 name ? name : "?");
                gch_status st = hp_name_add(r, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1,
                                            &label);
                if (st != GCH_OK)
                    return st;
                if (si != HP_NONE)
                    r->static_label_of[si] = label;
            }
            if (!pseudo)
                k->static_refs++;
        } else if (!pseudo) {
            k->static_prim_bytes += gch_elem_size(t);
        }
        r->static_label[r->static_label_count++] = label;
        p += r->id_size + 1 + hp_type_size(r, t);
    }
    return GCH_OK;
}

/* The JVM layouts gcheap knows (docs/hprof-format.md, "Sizes"). */
enum { RULE_COMPRESSED, RULE_WIDE_REFS, RULE_WIDE_ALL, RULE_32BIT, RULE_ART, RULE_COUNT };

static const hp_layout_rule rules[RULE_COUNT] = {
    { 4, 12, 16, 0, 0, "64-bit, compressed references and class pointers" },
    { 8, 12, 16, 0, 1, "64-bit, 8-byte references, compressed class pointers" },
    { 8, 16, 24, 0, 2, "64-bit, 8-byte references and class pointers" },
    { 4, 8, 12, 0, -1, "32-bit" },
    { 4, 8, 12, 1, -1, "Android ART" },
};

/* HotSpot's field layout (JDK 15+, fieldLayoutBuilder.cpp) where @Contended
 * changes it, for one rule (header, reference size):
 *  - a class whose superclass has contended annotations lays its fields
 *    after the superclass's last field plus ContendedPaddingWidth (128)
 *    bytes (fill_holes: the holes and that tail are padding), appended in
 *    order of size, largest first, references last;
 *  - a class-level @Contended class: 128 bytes of padding before its fields
 *    and after them (its fields appended likewise);
 *  - a @Contended group: the other fields packed as usual, then 128 bytes,
 *    the group's fields appended, 128 bytes after them.
 * contended_last is the end of the last field, contended_end the instance's
 * end before alignment. The other classes keep the packed sum. */
#define CONTENDED_PADDING 128 /* HotSpot's ContendedPaddingWidth default */

static int in_group(const hprof_reader *r, const hp_class *k, const hp_field *f)
{
    if (!k->contended_fields)
        return 0;
    uint32_t len;
    const char *name = hp_string_get(r, f->name_id, &len);
    for (const char *const *g = k->contended_fields; name && *g; g++)
        if (strlen(*g) == len && memcmp(*g, name, len) == 0)
            return 1;
    return 0;
}

static unsigned field_bytes(const hp_field *f, unsigned ref)
{
    return f->type == HP_T_OBJECT || f->type == HP_T_ARRAY_OBJECT ? ref : gch_elem_size(f->type);
}

/* Appends the fields of k (group: those of its @Contended group, or the
 * others) at *pos: primitives by size, largest first, then references, each
 * aligned to its size. Returns how many. */
static uint32_t append_fields(const hprof_reader *r, const hp_class *k, int group, unsigned ref,
                              uint64_t *pos)
{
    static const unsigned sizes[] = { 8, 4, 2, 1, 0 };
    uint32_t n = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        for (uint32_t i = 0; i < k->field_count; i++) {
            const hp_field *f = &r->layout[k->layout_first + i];
            int is_ref = f->type == HP_T_OBJECT || f->type == HP_T_ARRAY_OBJECT;
            if (in_group(r, k, f) != group || (sizes[si] ? is_ref || gch_elem_size(f->type) != sizes[si] : !is_ref))
                continue;
            unsigned b = field_bytes(f, ref);
            *pos = (*pos + b - 1) / b * b + b;
            n++;
        }
    return n;
}

static void contended_layout(const hprof_reader *r, hp_class *c)
{
    const hp_class *s = c->super_index == HP_NONE ? NULL : &r->classes[c->super_index];
    for (int slot = 0; slot < 3; slot++) {
        unsigned header = rules[slot].header, ref = rules[slot].ref_size;
        int padded_super = s && s->contended;
        uint64_t pos;
        if (padded_super)
            pos = s->contended_last[slot] + CONTENDED_PADDING;
        else
            pos = s ? header + s->prim_bytes + s->ref_fields * ref : header;
        if (c->contended_class)
            pos += CONTENDED_PADDING;
        uint64_t own;
        if (padded_super || c->contended_class) {
            own = append_fields(r, c, 0, ref, &pos);
        } else {
            own = 0;
            for (uint32_t i = 0; i < c->field_count; i++) {
                const hp_field *f = &r->layout[c->layout_first + i];
                if (!in_group(r, c, f)) {
                    pos += field_bytes(f, ref);
                    own++;
                }
            }
            pos += c->hidden_bytes + (uint64_t)c->hidden_refs * ref;
        }
        int tail = c->contended_class;
        if (c->contended_fields) {
            pos += CONTENDED_PADDING;
            own += append_fields(r, c, 1, ref, &pos);
            tail = 1;
        }
        uint64_t last = own || !padded_super ? pos : s->contended_last[slot];
        uint64_t end = tail ? last + CONTENDED_PADDING : pos;
        c->contended_last[slot] = last > UINT32_MAX ? UINT32_MAX : (uint32_t)last;
        c->contended_end[slot] = end > UINT32_MAX ? UINT32_MAX : (uint32_t)end;
    }
    c->contended = 1;
}

/* Totals over the hierarchy, without recursion: climbs to the first class
 * whose totals are known, then fills the path back down. A cycle in the
 * superclass links is malformed input. */
static gch_status hierarchy_totals(hprof_reader *r, uint32_t start, uint32_t *path)
{
    size_t n = 0;
    uint32_t k = start;
    while (k != HP_NONE && r->classes[k].state != 2) {
        if (r->classes[k].state == 1)
            return hp_fail(r, r->classes[k].record - 1, "class 0x%llx is its own superclass",
                           (unsigned long long)r->classes[k].id);
        r->classes[k].state = 1;
        path[n++] = k;
        k = r->classes[k].super_index;
    }
    while (n > 0) {
        hp_class *c = &r->classes[path[--n]];
        const hp_class *s = c->super_index == HP_NONE ? NULL : &r->classes[c->super_index];
        c->dump_bytes = s ? s->dump_bytes : 0;
        c->prim_bytes = (s ? s->prim_bytes : 0) + c->hidden_bytes;
        c->ref_fields = (s ? s->ref_fields : 0) + c->hidden_refs;
        c->is_reference = (s && s->is_reference) || path[n] == r->reference_class;
        c->next_fields = !s ? HP_NONE : s->field_count ? c->super_index : s->next_fields;
        if (c->contended || (s && s->contended))
            contended_layout(r, c);
        for (uint32_t i = 0; i < c->field_count; i++) {
            const hp_field *f = &r->layout[c->layout_first + i];
            unsigned sz = hp_type_size(r, f->type);
            c->dump_bytes += sz;
            if (f->type == HP_T_OBJECT || f->type == HP_T_ARRAY_OBJECT)
                c->ref_fields++;
            else
                c->prim_bytes += sz;
        }
        c->state = 2;
    }
    return GCH_OK;
}

/* The per-string copies of names (HP_NONE: none yet). */
static gch_status name_copies(hprof_reader *r)
{
    if (r->string_count == 0)
        return GCH_OK;
    uint32_t **arrays[3] = { &r->field_label_of, &r->static_label_of, &r->class_name_of };
    for (int a = 0; a < 3; a++) {
        *arrays[a] = gch_malloc(r->string_count * sizeof **arrays[a]);
        if (!*arrays[a])
            return hp_oom(r);
        memset(*arrays[a], 0xFF, r->string_count * sizeof **arrays[a]);
    }
    return GCH_OK;
}

static gch_status prepare_layouts(hprof_reader *r)
{
    gch_status st = name_copies(r);
    for (uint32_t i = 0; i < r->class_count && st == GCH_OK; i++) {
        hp_class *k = &r->classes[i];
        k->super_index = k->super_id ? hp_class_find(r, k->super_id) : HP_NONE;
        if ((st = name_class(r, k)) == GCH_OK && (st = add_own_fields(r, i)) == GCH_OK)
            st = add_statics(r, k);
    }
    if (st != GCH_OK || r->class_count == 0)
        return st;
    uint32_t *path = gch_malloc(r->class_count * sizeof *path);
    if (!path)
        return hp_oom(r);
    for (uint32_t i = 0; i < r->class_count && st == GCH_OK; i++)
        st = hierarchy_totals(r, i, path);
    gch_free(path);
    return st;
}

/* ------------------------------------------------------------------------ */
/* Sizes */

static uint64_t align8(uint64_t n)
{
    return (n + 7) & ~(uint64_t)7;
}

static uint64_t instance_size_by(const hp_layout_rule *rule, const hp_class *k)
{
    if (rule->art)
        return align8(k->instance_size ? k->instance_size : rule->header);
    if (k->contended && rule->slot >= 0)
        return align8(k->contended_end[rule->slot]);
    return align8(rule->header + k->prim_bytes + k->ref_fields * rule->ref_size);
}

static uint64_t array_size_by(const hp_layout_rule *rule, unsigned elem_bytes, uint64_t length)
{
    uint64_t base = rule->array_header;
    if (elem_bytes == 8)
        base = align8(base);
    return align8(base + length * elem_bytes);
}

uint64_t hp_instance_size(const hprof_reader *r, const hp_class *k)
{
    return instance_size_by(&r->rule, k);
}

uint64_t hp_array_size(const hprof_reader *r, unsigned elem_bytes, uint64_t length)
{
    return array_size_by(&r->rule, elem_bytes, length);
}

/* A class mirror: a java.lang.Class instance with the static fields after its
 * own fields (HotSpot's InstanceMirrorKlass). */
uint64_t hp_class_object_size(const hprof_reader *r, const hp_class *k)
{
    uint64_t base = r->rule.header;
    if (r->class_class != HP_NONE) {
        const hp_class *c = &r->classes[r->class_class];
        base += c->prim_bytes + c->ref_fields * r->rule.ref_size;
    }
    return align8(base + k->static_prim_bytes + (uint64_t)k->static_refs * r->rule.ref_size);
}

/* Sizes of the object whose sub-record is at off under each candidate rule;
 * returns 0 when it is not an object with a known class. */
static int candidate_sizes(hprof_reader *r, size_t off, uint64_t *id, uint64_t sizes[RULE_COUNT])
{
    const unsigned char *d = r->data + off + 1;
    unsigned tag = r->data[off];
    *id = hp_id(r, d);
    for (unsigned h = 0; h < RULE_COUNT; h++) {
        const hp_layout_rule *rule = &rules[h];
        if (tag == HP_INSTANCE_DUMP) {
            uint32_t k = hp_class_find(r, hp_id(r, d + r->id_size + 4));
            if (k == HP_NONE)
                return 0;
            sizes[h] = instance_size_by(rule, &r->classes[k]);
        } else if (tag == HP_OBJ_ARRAY_DUMP) {
            sizes[h] = array_size_by(rule, rule->ref_size, hp_u4(d + r->id_size + 4));
        } else if (tag == HP_PRIM_ARRAY_DUMP) {
            sizes[h] = array_size_by(rule, gch_elem_size(d[r->id_size + 8]), hp_u4(d + r->id_size + 4));
        } else {
            return 0;
        }
    }
    return 1;
}

/* Chooses among the 64-bit rules [first, last] the one whose sizes best
 * match the gaps between consecutive object addresses (objects lie next to
 * each other in the heap and dumps list most of them in address order). */
static unsigned vote(hprof_reader *r, unsigned first, unsigned last)
{
    uint64_t matched[RULE_COUNT] = { 0 }, prev_sizes[RULE_COUNT], prev_id = 0, sampled = 0;
    int have_prev = 0;
    hp_walk w;
    size_t off, next;
    hp_walk_init(r, &w);
    while (sampled < VOTE_OBJECTS && hp_walk_next(r, &w, &off, &next)) {
        uint64_t id, sizes[RULE_COUNT];
        if (!candidate_sizes(r, off, &id, sizes)) {
            have_prev = 0;
            continue;
        }
        if (have_prev && id > prev_id) {
            sampled++;
            for (unsigned h = first; h <= last; h++)
                matched[h] += prev_sizes[h] == id - prev_id;
        }
        memcpy(prev_sizes, sizes, sizeof sizes);
        prev_id = id;
        have_prev = 1;
    }
    unsigned best = first;
    for (unsigned h = first + 1; h <= last; h++)
        if (matched[h] > matched[best])
            best = h;
    r->gaps_sampled = sampled;
    r->gaps_matched = matched[best];
    return best;
}

static void choose_rule(hprof_reader *r)
{
    unsigned h;
    if (r->art)
        h = RULE_ART;
    else if (r->id_size == 4)
        h = RULE_32BIT;
    else if (r->opts->hprof_compressed_refs == GCH_HPROF_REFS_COMPRESSED)
        h = vote(r, RULE_COMPRESSED, RULE_COMPRESSED);
    else if (r->opts->hprof_compressed_refs == GCH_HPROF_REFS_WIDE)
        h = vote(r, RULE_WIDE_REFS, RULE_WIDE_ALL);
    else
        h = vote(r, RULE_COMPRESSED, RULE_WIDE_ALL);
    r->rule = rules[h];
}

gch_status hp_prepare_classes(hprof_reader *r)
{
    find_known_classes(r);
    gch_status st = prepare_layouts(r);
    if (st == GCH_OK)
        choose_rule(r);
    return st;
}
