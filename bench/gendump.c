/* gendump - a deterministic generator of synthetic .gclog heap dumps for benchmarks.
 *
 *   gendump [--objects N] [--seed S] [--refs-per-object R] [--sections K] [-o FILE]
 *
 * The output depends only on the options (own PRNG, integer-only sampling, no
 * clock, no locale), so a seed names a dump. Shape, per appdomain section:
 *
 *  - a few thousand types with .NET-like names (generic instantiations with
 *    spaces and commas, nested '+' types, arrays), chosen with a Zipf-like
 *    popularity (System.String first); about 15% of the types are declared
 *    after their first object, types never used are declared at the end;
 *  - object ids that look like addresses: increasing by the 8-aligned size,
 *    with an occasional free gap;
 *  - sizes by type: fixed for classes, variable for strings and arrays, a few
 *    huge object arrays with thousands..300k references on one line;
 *  - references: mostly to nearby objects (both directions), some to a set of
 *    popular shared objects, some anywhere in the section. Every reference
 *    names an object of the same section (ids are laid out before any record
 *    is written) and no null (0) reference is written;
 *  - structures: a singly linked chain of 100k+ nodes (for >= 1M objects), a
 *    doubly linked chain, circular lists, extra shorter chains;
 *  - roots of every kind (0-5), statics with a container type, weak and pinned
 *    handles, interior locals, interleaved with the objects.
 *
 * The average number of references per object is R (default 2.5) over the
 * whole dump: the structures' references are counted first and the plain
 * objects' fields are filled with the probability that makes up the rest.
 *
 * At the end a summary goes to stderr:
 *   gendump: objects N references M types T roots X sections K bytes B
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GENDUMP_VERSION "1"

/* ------------------------------------------------------------------ PRNG */

typedef struct rng {
    uint64_t s[4];
} rng;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void rng_seed(rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* xoshiro256** */
static inline uint64_t rnext(rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Uniform in [0, n), n > 0. */
static inline uint64_t rbelow(rng *r, uint64_t n)
{
    uint64_t x = rnext(r);
    if (n <= 0xffffffffull)
        return ((x >> 32) * n) >> 32;
    return x % n;
}

/* True with probability pct/100. */
static inline int rpct(rng *r, unsigned pct) { return rbelow(r, 100) < pct; }

static int bitlen(uint64_t v)
{
    int n = 0;
    while (v) {
        n++;
        v >>= 1;
    }
    return n;
}

/* Log-uniform in [lo, hi] (1 <= lo <= hi): each power of two equally likely. */
static uint64_t rlogu(rng *r, uint64_t lo, uint64_t hi)
{
    if (lo < 1)
        lo = 1;
    if (hi <= lo)
        return lo;
    int blo = bitlen(lo), bhi = bitlen(hi);
    int b = blo + (int)rbelow(r, (uint64_t)(bhi - blo + 1));
    uint64_t a = 1ull << (b - 1);
    uint64_t z = b >= 64 ? UINT64_MAX : (1ull << b) - 1;
    if (a < lo)
        a = lo;
    if (z > hi)
        z = hi;
    return a + rbelow(r, z - a + 1);
}

/* Zipf-like sampler: weight of rank k is 2^40/(k+1) (times boost for rank 0). */
typedef struct zipf {
    uint64_t *cum;
    uint32_t n;
} zipf;

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "gendump: out of memory (%zu bytes)\n", n);
        exit(1);
    }
    return p;
}

static void *xcalloc(size_t n, size_t m)
{
    void *p = calloc(n ? n : 1, m ? m : 1);
    if (!p) {
        fprintf(stderr, "gendump: out of memory\n");
        exit(1);
    }
    return p;
}

static void zipf_init(zipf *z, uint32_t n, unsigned boost0)
{
    z->n = n;
    z->cum = xmalloc(sizeof(uint64_t) * (n ? n : 1));
    uint64_t acc = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint64_t w = (1ull << 40) / (k + 1);
        if (k == 0)
            w *= boost0;
        acc += w;
        z->cum[k] = acc;
    }
}

/* A rank in [0, m), m <= z->n: the table's prefix is the same distribution. */
static uint32_t zipf_pick_n(const zipf *z, rng *r, uint32_t m)
{
    uint64_t u = rbelow(r, z->cum[m - 1]);
    uint32_t lo = 0, hi = m - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (z->cum[mid] > u)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

static inline uint32_t zipf_pick(const zipf *z, rng *r) { return zipf_pick_n(z, r, z->n); }

/* ---------------------------------------------------------------- output */

#define OBUF_SIZE (1u << 20)

static char obuf[OBUF_SIZE];
static size_t opos;
static FILE *ofp;
static const char *oname = "stdout";
static uint64_t obytes;

static void oflush(void)
{
    if (opos && fwrite(obuf, 1, opos, ofp) != opos) {
        fprintf(stderr, "gendump: write error on %s: %s\n", oname, strerror(errno));
        exit(1);
    }
    obytes += opos;
    opos = 0;
}

static inline void oreserve(size_t n)
{
    if (opos + n > OBUF_SIZE)
        oflush();
}

static inline void ochar(char c) { obuf[opos++] = c; }

/* Lowercase hex without 0x; the caller reserved 16 bytes. */
static inline void ohex(uint64_t v)
{
    char tmp[16];
    int n = 16;
    do {
        tmp[--n] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    memcpy(obuf + opos, tmp + n, (size_t)(16 - n));
    opos += (size_t)(16 - n);
}

static void ostr(const char *s)
{
    size_t n = strlen(s);
    oreserve(n);
    if (n > OBUF_SIZE) { /* never happens with the names below */
        oflush();
        if (fwrite(s, 1, n, ofp) != n) {
            fprintf(stderr, "gendump: write error on %s: %s\n", oname, strerror(errno));
            exit(1);
        }
        obytes += n;
        return;
    }
    memcpy(obuf + opos, s, n);
    opos += n;
}

/* ----------------------------------------------------------------- types */

enum kind {
    K_CLASS,   /* fixed size, `fields` reference fields */
    K_STRING,  /* variable size, no references */
    K_PRIMARR, /* variable size (elem bytes each), no references */
    K_REFARR,  /* variable size, one reference per element */
    K_CHAIN1,  /* node of a singly linked chain: next (+ value every 4th) */
    K_CHAIN2,  /* node of a doubly linked chain: next, prev */
    K_RING     /* node of a circular list: next */
};

typedef struct tinfo {
    char *name;
    uint32_t id;
    uint8_t kind;
    uint8_t elem;
    uint16_t fields;
    uint32_t size;
} tinfo;

typedef struct wk {
    const char *name;
    uint8_t kind, elem;
    uint16_t fields;
} wk;

/* Well-known types, most popular first. */
static const wk well_known[] = {
    { "System.String", K_STRING, 2, 0 },
    { "System.Object[]", K_REFARR, 4, 0 },
    { "System.Byte[]", K_PRIMARR, 1, 0 },
    { "System.Collections.Generic.Dictionary`2+Entry[[System.String, mscorlib],[System.Object, mscorlib]][]",
      K_REFARR, 4, 0 },
    { "System.Char[]", K_PRIMARR, 2, 0 },
    { "System.Int32[]", K_PRIMARR, 4, 0 },
    { "System.Collections.Hashtable+bucket[]", K_REFARR, 4, 0 },
    { "System.RuntimeType", K_CLASS, 0, 1 },
    { "System.Collections.Generic.List`1[[System.String, mscorlib]]", K_CLASS, 0, 1 },
    { "System.Text.StringBuilder", K_CLASS, 0, 1 },
    { "System.Collections.Hashtable", K_CLASS, 0, 4 },
    { "System.String[]", K_REFARR, 4, 0 },
    { "System.EventHandler", K_CLASS, 0, 2 },
    { "System.Reflection.RuntimeMethodInfo", K_CLASS, 0, 3 },
    { "System.WeakReference", K_CLASS, 0, 0 },
    { "System.Collections.ArrayList", K_CLASS, 0, 1 },
    { "System.Collections.Generic.Dictionary`2[[System.String, mscorlib],[System.Object, mscorlib]]", K_CLASS,
      0, 4 },
    { "System.Xml.XmlElement", K_CLASS, 0, 5 },
    { "System.Xml.XmlAttribute", K_CLASS, 0, 3 },
    { "System.Xml.XmlText", K_CLASS, 0, 3 },
    { "System.Threading.Thread", K_CLASS, 0, 4 },
    { "System.IO.MemoryStream", K_CLASS, 0, 1 },
    { "System.Globalization.CultureInfo", K_CLASS, 0, 8 },
    { "System.Drawing.Bitmap", K_CLASS, 0, 2 },
    { "System.Windows.Forms.Label", K_CLASS, 0, 10 },
    { "System.Windows.Forms.Panel", K_CLASS, 0, 12 },
    { "System.Single[]", K_PRIMARR, 4, 0 },
    { "System.Int64[]", K_PRIMARR, 8, 0 },
    { "System.Delegate[]", K_REFARR, 4, 0 },
    { "System.Exception", K_CLASS, 0, 6 },
    { "System.Net.Sockets.Socket", K_CLASS, 0, 3 },
    { "System.Boolean[]", K_PRIMARR, 1, 0 },
    { "System.Double[]", K_PRIMARR, 8, 0 },
    { "System.UInt16[]", K_PRIMARR, 2, 0 },
    { "System.Collections.Generic.List`1[[System.Object, mscorlib]]", K_CLASS, 0, 1 },
    { "System.Collections.Generic.Dictionary`2[[System.String, mscorlib],[System.Int32, mscorlib]]", K_CLASS,
      0, 4 },
    { "System.Collections.Generic.Dictionary`2+Entry[[System.String, mscorlib],[System.Int32, mscorlib]][]",
      K_REFARR, 4, 0 },
    { "System.Reflection.RuntimeFieldInfo", K_CLASS, 0, 3 },
    { "System.Threading.ManualResetEvent", K_CLASS, 0, 1 },
    { "System.Version", K_CLASS, 0, 0 },
};
#define N_WELL_KNOWN (sizeof well_known / sizeof well_known[0])

static const char *const app_ns[] = {
    "Contoso.Sales",          "Contoso.Sales.Data",         "Contoso.Inventory",
    "Contoso.Inventory.Model", "Fabrikam.Mobile.UI",        "Fabrikam.Mobile.Sync",
    "Northwind.Orders",       "Northwind.Orders.Services",  "AdventureWorks.Field.Controls",
    "Litware.Telemetry",      "Tailspin.Maps.Rendering",    "Wingtip.Net.Http",
    "Woodgrove.Banking.Core", "Woodgrove.Banking.Security", "Proseware.Game.Engine",
    "Proseware.Game.Physics",
};
static const char *const fw_ns[] = {
    "System",           "System.Collections",    "System.Collections.Generic", "System.Text",
    "System.IO",        "System.Threading",      "System.Xml",                 "System.Net",
    "System.Net.Sockets", "System.Windows.Forms", "System.Drawing",            "System.Reflection",
    "System.Globalization", "System.Data",       "Microsoft.Win32",            "System.ComponentModel",
};
static const char *const nouns[] = {
    "Order",   "Customer", "Invoice",  "Product",  "Shipment", "Account",  "Session", "Token",
    "Cache",   "Buffer",   "Record",   "Entry",    "Item",     "Message",  "Packet",  "Channel",
    "Connection", "Request", "Response", "Document", "Element", "Attribute", "Node",  "Tile",
    "Layer",   "Sprite",   "Texture",  "Font",     "Brush",    "Control",  "Form",    "Panel",
    "Grid",    "Row",      "Column",   "Cell",     "Schedule", "Team",     "Player",  "Game",
    "Map",     "Route",    "Location", "Sensor",   "Reading",  "Metric",   "Event",   "Task",
    "Job",     "Queue",    "Worker",   "Timer",    "Setting",  "Profile",  "User",    "Address",
    "Contact", "Price",    "Discount", "Catalog",  "Category", "Image",    "Stream",  "File",
    "Folder",  "Page",     "View",     "Model",    "Log",      "Ledger",   "Payment", "Cart",
};
static const char *const suffixes[] = {
    "",          "",        "",           "Manager", "Provider", "Factory",  "Service",   "Handler",
    "Context",   "Builder", "Reader",     "Writer",  "Info",     "Data",     "Collection", "Helper",
    "Adapter",   "Controller", "Presenter", "Descriptor", "Options", "State", "Snapshot", "Proxy",
    "Wrapper",   "EventArgs", "Callback", "Converter", "Validator", "Store",  "Repository", "Map",
};
static const char *const prim_args[] = {
    "System.String, mscorlib", "System.Int32, mscorlib",   "System.Object, mscorlib",
    "System.Guid, mscorlib",   "System.DateTime, mscorlib", "System.Int64, mscorlib",
    "System.Boolean, mscorlib", "System.Double, mscorlib",
};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Open-addressing set of names, to keep type names unique. */
typedef struct nameset {
    char **slot;
    size_t cap;
} nameset;

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
    return h;
}

/* Adds s (copied) unless present; returns the stored copy or NULL if present. */
static char *nameset_add(nameset *ns, const char *s)
{
    size_t i = (size_t)fnv1a(s) & (ns->cap - 1);
    while (ns->slot[i]) {
        if (strcmp(ns->slot[i], s) == 0)
            return NULL;
        i = (i + 1) & (ns->cap - 1);
    }
    size_t n = strlen(s) + 1;
    ns->slot[i] = xmalloc(n);
    memcpy(ns->slot[i], s, n);
    return ns->slot[i];
}

typedef struct appclass {
    const char *name;
    const char *ns;
} appclass;

/* Assembly of an app namespace: its first two components. */
static void assembly_of(const char *ns, char *out, size_t cap)
{
    const char *dot = strchr(ns, '.');
    const char *end = dot ? strchr(dot + 1, '.') : NULL;
    size_t n = end ? (size_t)(end - ns) : strlen(ns);
    if (n >= cap)
        n = cap - 1;
    memcpy(out, ns, n);
    out[n] = '\0';
}

/* A generic argument: "System.String, mscorlib" or "NS.Class, Asm[, Version=...]". */
static void generic_arg(rng *r, const appclass *apps, size_t napps, char *out, size_t cap)
{
    if (napps == 0 || rpct(r, 40)) {
        snprintf(out, cap, "%s", prim_args[rbelow(r, COUNT(prim_args))]);
        return;
    }
    const appclass *a = &apps[rbelow(r, napps)];
    char asm_[64];
    assembly_of(a->ns, asm_, sizeof asm_);
    if (rpct(r, 30))
        snprintf(out, cap, "%s, %s, Version=1.0.0.0, Culture=neutral, PublicKeyToken=null", a->name, asm_);
    else
        snprintf(out, cap, "%s, %s", a->name, asm_);
}

static uint16_t random_fields(rng *r)
{
    unsigned u = (unsigned)rbelow(r, 100);
    if (u < 15)
        return 0;
    if (u < 60)
        return (uint16_t)(1 + rbelow(r, 3));
    if (u < 92)
        return (uint16_t)(4 + rbelow(r, 5));
    return (uint16_t)(9 + rbelow(r, 16));
}

static uint32_t class_size(rng *r, unsigned fields)
{
    uint32_t s = 8 + 4 * fields + 4 * (uint32_t)rbelow(r, 6);
    return s < 12 ? 12 : s;
}

/* Fills types[0..nplain) (rank order) and the three structure node types. */
static void make_types(rng *r, tinfo *types, uint32_t nplain)
{
    size_t cap = 16;
    while (cap < 4 * ((size_t)nplain + 8))
        cap <<= 1;
    nameset ns = { xcalloc(cap, sizeof(char *)), cap };
    appclass *apps = xmalloc(sizeof(appclass) * (nplain + 1));
    size_t napps = 0;
    char name[1024], a1[256], a2[256];

    uint32_t k = 0;
    for (; k < nplain && k < N_WELL_KNOWN; k++) {
        tinfo *t = &types[k];
        t->name = nameset_add(&ns, well_known[k].name);
        t->kind = well_known[k].kind;
        t->elem = well_known[k].elem;
        t->fields = well_known[k].fields;
        t->size = t->kind == K_CLASS ? class_size(r, t->fields) : 0;
    }
    for (; k < nplain; k++) {
        tinfo *t = &types[k];
        for (int attempt = 0;; attempt++) {
            unsigned u = (unsigned)rbelow(r, 100);
            const char *nsp = app_ns[rbelow(r, COUNT(app_ns))];
            const char *noun = nouns[rbelow(r, COUNT(nouns))];
            const char *suf = suffixes[rbelow(r, COUNT(suffixes))];
            int is_app = 0;
            t->kind = K_CLASS;
            t->elem = 4;
            t->fields = random_fields(r);
            if (u < 52) { /* app class */
                snprintf(name, sizeof name, "%s.%s%s", nsp, noun, suf);
                is_app = 1;
            } else if (u < 60) { /* nested type */
                snprintf(name, sizeof name, "%s.%s%s+%s", nsp, noun, suf, nouns[rbelow(r, COUNT(nouns))]);
                is_app = 1;
            } else if (u < 64) { /* compiler generated */
                if (rpct(r, 50))
                    snprintf(name, sizeof name, "%s.%s%s+<>c__DisplayClass%u_%u", nsp, noun, suf,
                             (unsigned)rbelow(r, 40), (unsigned)rbelow(r, 3));
                else
                    snprintf(name, sizeof name, "%s.%s%s+<Get%ss>d__%u", nsp, noun, suf,
                             nouns[rbelow(r, COUNT(nouns))], (unsigned)rbelow(r, 60));
            } else if (u < 72) { /* framework class */
                snprintf(name, sizeof name, "%s.%s%s", fw_ns[rbelow(r, COUNT(fw_ns))], noun, suf);
            } else if (u < 86) { /* generic instantiation */
                generic_arg(r, apps, napps, a1, sizeof a1);
                generic_arg(r, apps, napps, a2, sizeof a2);
                switch (rbelow(r, 8)) {
                case 0: snprintf(name, sizeof name, "System.Collections.Generic.List`1[[%s]]", a1); break;
                case 1:
                    snprintf(name, sizeof name, "System.Collections.Generic.Dictionary`2[[%s],[%s]]", a1, a2);
                    break;
                case 2: snprintf(name, sizeof name, "System.Collections.Generic.HashSet`1[[%s]]", a1); break;
                case 3: snprintf(name, sizeof name, "System.Collections.Generic.Queue`1[[%s]]", a1); break;
                case 4: snprintf(name, sizeof name, "System.Func`2[[%s],[%s]]", a1, a2); break;
                case 5: snprintf(name, sizeof name, "System.Action`1[[%s]]", a1); break;
                case 6: snprintf(name, sizeof name, "System.EventHandler`1[[%s]]", a1); break;
                default:
                    snprintf(name, sizeof name, "System.Collections.ObjectModel.ObservableCollection`1[[%s]]", a1);
                    break;
                }
                t->fields = (uint16_t)(1 + rbelow(r, 6));
            } else if (u < 95) { /* array of an app class */
                if (napps)
                    snprintf(name, sizeof name, "%s[]", apps[rbelow(r, napps)].name);
                else
                    snprintf(name, sizeof name, "%s.%s%s[]", nsp, noun, suf);
                t->kind = K_REFARR;
            } else { /* generic arrays */
                generic_arg(r, apps, napps, a1, sizeof a1);
                generic_arg(r, apps, napps, a2, sizeof a2);
                if (rpct(r, 60))
                    snprintf(name, sizeof name, "System.Collections.Generic.Dictionary`2+Entry[[%s],[%s]][]", a1,
                             a2);
                else
                    snprintf(name, sizeof name, "System.Collections.Generic.KeyValuePair`2[[%s],[%s]][]", a1, a2);
                t->kind = K_REFARR;
            }
            if (attempt > 20) { /* make it unique */
                size_t n = strlen(name);
                snprintf(name + n, sizeof name - n, "%s%u", t->kind == K_REFARR ? "_" : "V", (unsigned)k);
            }
            char *stored = nameset_add(&ns, name);
            if (stored) {
                t->name = stored;
                if (is_app) {
                    apps[napps].name = stored;
                    apps[napps].ns = nsp;
                    napps++;
                }
                break;
            }
        }
        t->size = t->kind == K_CLASS ? class_size(r, t->fields) : 0;
    }
    static const struct {
        const char *name;
        uint8_t kind;
        uint32_t size;
    } st[] = {
        { "Northwind.Orders.OrderHistory+Link", K_CHAIN1, 16 },
        { "System.Collections.Generic.LinkedListNode`1[[System.String, mscorlib]]", K_CHAIN2, 24 },
        { "Litware.Telemetry.RingBuffer`1+Slot[[Litware.Telemetry.Sample, Litware.Telemetry]]", K_RING, 20 },
    };
    for (unsigned i = 0; i < 3; i++) {
        tinfo *t = &types[nplain + i];
        t->name = nameset_add(&ns, st[i].name);
        if (!t->name) { /* a generated name collided: keep a distinct copy */
            snprintf(name, sizeof name, "%s+Node", st[i].name);
            t->name = nameset_add(&ns, name);
        }
        t->kind = st[i].kind;
        t->elem = 4;
        t->fields = 1;
        t->size = st[i].size;
    }
    /* Type ids: a random permutation of 1..n, so id order is not rank order. */
    uint32_t n = nplain + 3;
    for (uint32_t i = 0; i < n; i++)
        types[i].id = i + 1;
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = (uint32_t)rbelow(r, i);
        uint32_t tmp = types[i - 1].id;
        types[i - 1].id = types[j].id;
        types[j].id = tmp;
    }
    free(apps);
    free(ns.slot); /* the names themselves stay, owned by types[] */
}

/* ------------------------------------------------------------ structures */

enum skind { S_CHAIN1, S_CHAIN2, S_RING, S_HUGE };

typedef struct strct {
    uint64_t key;   /* number of plain objects before it */
    uint64_t order; /* creation order, to break ties deterministically */
    uint64_t start; /* first object index (relative to the section) */
    uint64_t len;   /* objects it occupies */
    uint64_t alen;  /* huge array: element count */
    uint64_t base;  /* huge array: first element of its contiguous run */
    uint8_t kind;
} strct;

static int strct_cmp(const void *a, const void *b)
{
    const strct *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* ------------------------------------------------------------- generator */

typedef struct gen {
    rng r;
    double refs_per_object;
    tinfo *types;
    uint32_t ntypes; /* including the 3 structure node types */
    uint32_t nplain; /* types usable by plain objects (ranks 0..nplain-1) */
    zipf tz;
    uint32_t huge_types[3];
    /* per section, reused */
    uint64_t *id;
    uint32_t *size;
    uint16_t *type;
    uint8_t *declared;
    uint32_t *pending;
    uint32_t npending;
    uint64_t *hubs;
    uint32_t nhubs;
    zipf hz;
    strct *st;
    size_t nst;
    /* running state */
    uint64_t addr;
    uint64_t objects, refs, roots, type_records;
} gen;

static void emit_type(gen *g, uint32_t t)
{
    oreserve(40);
    ochar('t');
    ochar(' ');
    ohex(g->types[t].id);
    ochar(' ');
    ostr(g->types[t].name);
    oreserve(1);
    ochar('\n');
    g->type_records++;
}

static void emit_root(gen *g, uint64_t obj_id, unsigned kind, unsigned flags, uint32_t container_type)
{
    oreserve(64);
    ochar('r');
    ochar(' ');
    ohex(obj_id);
    ochar(' ');
    ohex(kind);
    ochar(' ');
    ohex(flags);
    if (kind == 4) {
        ochar(' ');
        ohex(g->types[container_type].id);
    }
    ochar('\n');
    g->roots++;
}

/* A root of a random kind with realistic flags. */
static void random_root(gen *g, uint64_t obj_id)
{
    rng *r = &g->r;
    unsigned u = (unsigned)rbelow(r, 100), v = (unsigned)rbelow(r, 100);
    if (u < 40)
        emit_root(g, obj_id, 1, v < 10 ? 1 : v < 15 ? 4 : v < 17 ? 5 : 0, 0);
    else if (u < 60)
        emit_root(g, obj_id, 4, 0, (uint32_t)rbelow(r, g->ntypes));
    else if (u < 75)
        emit_root(g, obj_id, 3, v < 30 ? 2 : v < 40 ? 1 : 0, 0);
    else if (u < 87)
        emit_root(g, obj_id, 5, v < 5 ? 1 : 0, 0);
    else if (u < 95)
        emit_root(g, obj_id, 0, 0, 0);
    else
        emit_root(g, obj_id, 2, 0, 0);
}

/* Size of a plain object of type t; *fields gets its natural reference slots. */
static uint32_t plain_size(gen *g, uint32_t t, uint64_t *fields)
{
    rng *r = &g->r;
    const tinfo *ti = &g->types[t];
    uint64_t len;
    switch (ti->kind) {
    case K_STRING:
        len = rpct(r, 1) ? rlogu(r, 64, 20000) : rlogu(r, 1, 64);
        *fields = 0;
        return (uint32_t)(14 + 2 * len);
    case K_PRIMARR:
        len = rbelow(r, 2000) == 0 ? rlogu(r, 1024, 1u << 20) : rlogu(r, 1, 1024);
        *fields = 0;
        return (uint32_t)(12 + ti->elem * len);
    case K_REFARR:
        len = rpct(r, 10) ? 0 : rbelow(r, 500) == 0 ? rlogu(r, 16, 2048) : rlogu(r, 1, 16);
        *fields = len;
        return (uint32_t)(12 + 4 * len);
    default:
        *fields = ti->fields;
        return ti->size;
    }
}

/* Lays out one section of n objects: structures, types, sizes, ids. Returns
 * the natural reference slots of the plain objects; *struct_refs gets the
 * references the structures will write. */
static uint64_t plan_section(gen *g, uint64_t n, uint64_t *struct_refs)
{
    rng *r = &g->r;
    uint64_t budget = n / 5 * 2, used = 0, srefs = 0;
    g->nst = 0;
    if (n >= 50) {
        /* huge arrays */
        uint64_t maxlen = n / 4 < 300000 ? n / 4 : 300000;
        uint64_t minlen = maxlen < 1000 ? maxlen : 1000;
        /* At most 64, so that with the 64 wants below they fit g->st's 128
         * (sections of 62M objects and more overflowed it; smaller ones are
         * unchanged). */
        uint64_t nhuge = 2 + n / 1000000 < 64 ? 2 + n / 1000000 : 64;
        for (uint64_t k = 0; k < nhuge && used < budget; k++) {
            strct *s = &g->st[g->nst++];
            memset(s, 0, sizeof *s);
            s->kind = S_HUGE;
            s->len = 1;
            s->alen = k == 0 ? maxlen : rlogu(r, minlen, maxlen);
            s->base = rbelow(r, n - s->alen + 1);
            used += 1;
            srefs += s->alen;
        }
        /* the long chain, a doubly linked one, circular lists, shorter chains */
        uint64_t l1 = n / 8 < 100000 ? n / 8 : 100000;
        if (l1 < n / 20)
            l1 = n / 20;
        uint64_t want[64][2];
        size_t nw = 0;
        want[nw][0] = S_CHAIN1, want[nw++][1] = l1;
        want[nw][0] = S_CHAIN2, want[nw++][1] = l1 / 2;
        uint64_t nrings = 1 + n / 100000;
        for (uint64_t k = 0; k < nrings && nw < 40; k++)
            want[nw][0] = S_RING, want[nw++][1] = rlogu(r, 2, n / 100 < 1000 ? (n / 100 < 2 ? 2 : n / 100) : 1000);
        uint64_t nextra = n / 250000;
        for (uint64_t k = 0; k < nextra && nw < 64; k++)
            want[nw][0] = S_CHAIN1, want[nw++][1] = rlogu(r, 1000, 20000);
        for (size_t k = 0; k < nw; k++) {
            uint64_t len = want[k][1];
            if (len < 2 || used + len > budget)
                continue;
            strct *s = &g->st[g->nst++];
            memset(s, 0, sizeof *s);
            s->kind = (uint8_t)want[k][0];
            s->len = len;
            used += len;
            srefs += s->kind == S_CHAIN1 ? (len - 1) + (len + 3) / 4 : s->kind == S_CHAIN2 ? 2 * (len - 1) : len;
        }
    }
    uint64_t nplain_obj = n - used;
    for (size_t k = 0; k < g->nst; k++) {
        g->st[k].key = rbelow(r, nplain_obj + 1);
        g->st[k].order = k;
    }
    qsort(g->st, g->nst, sizeof(strct), strct_cmp);

    uint64_t fields_total = 0, plain_done = 0, i = 0;
    size_t si = 0;
    uint64_t addr = g->addr;
    while (i < n) {
        if (si < g->nst && g->st[si].key == plain_done) {
            strct *s = &g->st[si++];
            s->start = i;
            for (uint64_t k = 0; k < s->len; k++, i++) {
                uint32_t t, size;
                if (s->kind == S_HUGE) {
                    t = g->huge_types[rbelow(r, 3)];
                    size = (uint32_t)(12 + 4 * s->alen);
                } else {
                    t = g->nplain + (s->kind == S_CHAIN1 ? 0 : s->kind == S_CHAIN2 ? 1 : 2);
                    size = g->types[t].size;
                }
                g->type[i] = (uint16_t)t;
                g->size[i] = size;
                g->id[i] = addr;
                addr += ((uint64_t)size + 7) & ~(uint64_t)7;
            }
            continue;
        }
        uint32_t t = (uint32_t)zipf_pick(&g->tz, r);
        uint64_t f;
        uint32_t size = plain_size(g, t, &f);
        fields_total += f;
        g->type[i] = (uint16_t)t;
        g->size[i] = size;
        g->id[i] = addr;
        addr += ((uint64_t)size + 7) & ~(uint64_t)7;
        if (rbelow(r, 64) == 0) /* free space between objects */
            addr += rlogu(r, 1, 512) * 8;
        i++;
        plain_done++;
    }
    g->addr = addr + 0x10000;

    /* popular shared objects */
    g->nhubs = (uint32_t)(n / 2000 < 8 ? 8 : n / 2000 > 4096 ? 4096 : n / 2000);
    if (n == 0)
        g->nhubs = 0;
    for (uint32_t k = 0; k < g->nhubs; k++)
        g->hubs[k] = rbelow(r, n);
    *struct_refs = srefs;
    return fields_total;
}

/* A reference target for plain object i of a section of n objects. */
static inline uint64_t pick_target(gen *g, uint64_t i, uint64_t n)
{
    rng *r = &g->r;
    uint64_t u = rbelow(r, 100);
    if (u < 72) {
        uint64_t d = rlogu(r, 1, 64);
        if (u < 43) { /* forward */
            if (i + d < n)
                return i + d;
            return i >= d ? i - d : n - 1;
        }
        if (i >= d)
            return i - d;
        return i + d < n ? i + d : 0;
    }
    if (u < 88)
        return g->hubs[zipf_pick_n(&g->hz, r, g->nhubs)];
    return rbelow(r, n);
}

static inline void emit_ref(gen *g, uint64_t j)
{
    oreserve(17);
    ochar(' ');
    ohex(g->id[j]);
    g->refs++;
}

static void emit_section(gen *g, unsigned sec, uint64_t n, uint64_t seed)
{
    rng *r = &g->r;
    uint64_t srefs;
    uint64_t fields = plan_section(g, n, &srefs);

    /* fill probability of a plain field: whole part + 32-bit fraction */
    double want = g->refs_per_object * (double)n - (double)srefs;
    double p = fields && want > 0 ? want / (double)fields : 0.0;
    if (p > 1e6)
        p = 1e6;
    uint64_t pint = (uint64_t)p;
    uint64_t pfrac = (uint64_t)((p - (double)pint) * 4294967296.0);

    char name[64];
    if (sec == 0)
        snprintf(name, sizeof name, "bench.exe");
    else
        snprintf(name, sizeof name, "bench-domain%u.exe", sec + 1);
    uint64_t ts = 0x763f9d2 + (seed & 0xffffff) + 0x10000ull * sec;
    oreserve(128);
    ostr("a 2 ");
    ostr(name);
    oreserve(20);
    ochar(' ');
    ohex(ts);
    ochar('\n');

    memset(g->declared, 0, g->ntypes);
    g->npending = 0;
    size_t cur = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t t = g->type[i];
        if (!g->declared[t]) {
            g->declared[t] = 1;
            if (rpct(r, 85))
                emit_type(g, t);
            else
                g->pending[g->npending++] = t;
        }
        oreserve(64);
        ochar('o');
        ochar(' ');
        ohex(g->id[i]);
        ochar(' ');
        ohex(g->types[t].id);
        ochar(' ');
        ohex(g->size[i]);

        while (cur < g->nst && i >= g->st[cur].start + g->st[cur].len)
            cur++;
        if (cur < g->nst && i >= g->st[cur].start) {
            const strct *s = &g->st[cur];
            uint64_t k = i - s->start;
            switch (s->kind) {
            case S_CHAIN1:
                if (k + 1 < s->len)
                    emit_ref(g, i + 1);
                if (k % 4 == 0)
                    emit_ref(g, rbelow(r, n));
                break;
            case S_CHAIN2:
                if (k + 1 < s->len)
                    emit_ref(g, i + 1);
                if (k > 0)
                    emit_ref(g, i - 1);
                break;
            case S_RING: emit_ref(g, s->start + (k + 1) % s->len); break;
            default: /* S_HUGE */
                for (uint64_t e = 0; e < s->alen; e++)
                    emit_ref(g, rbelow(r, 10) < 8 ? s->base + e : rbelow(r, n));
                break;
            }
        } else {
            uint64_t nf;
            const tinfo *ti = &g->types[t];
            if (ti->kind == K_REFARR)
                nf = (g->size[i] - 12) / 4;
            else if (ti->kind == K_CLASS)
                nf = ti->fields;
            else
                nf = 0;
            for (uint64_t f = 0; f < nf; f++) {
                uint64_t c = pint + ((rnext(r) >> 32) < pfrac);
                for (; c; c--)
                    emit_ref(g, pick_target(g, i, n));
            }
        }
        oreserve(1);
        ochar('\n');

        /* roots interleaved with the objects: the object just written or any */
        if (rbelow(r, 128) == 0)
            random_root(g, g->id[rpct(r, 50) ? i : rbelow(r, n)]);
        /* types declared late */
        if (g->npending && (g->npending >= 32 || rbelow(r, 2048) == 0)) {
            for (uint32_t k = 0; k < g->npending; k++)
                emit_type(g, g->pending[k]);
            g->npending = 0;
        }
    }
    for (uint32_t k = 0; k < g->npending; k++)
        emit_type(g, g->pending[k]);
    g->npending = 0;

    if (n > 0) {
        /* roots of the structures and of the popular objects */
        for (size_t k = 0; k < g->nst; k++) {
            const strct *s = &g->st[k];
            uint64_t id = g->id[s->start];
            switch (s->kind) {
            case S_CHAIN1: emit_root(g, id, 1, 0, 0); break;
            case S_CHAIN2: emit_root(g, id, 4, 0, (uint32_t)rbelow(r, g->ntypes)); break;
            case S_RING: emit_root(g, id, 3, k % 2 ? 2 : 0, 0); break;
            default: emit_root(g, id, 4, 0, g->type[s->start]); break;
            }
        }
        for (uint32_t k = 0; k < g->nhubs; k++) {
            uint64_t id = g->id[g->hubs[k]];
            if (k % 2 == 0)
                emit_root(g, id, 4, 0, (uint32_t)rbelow(r, g->ntypes));
            else if (k % 4 == 1)
                emit_root(g, id, 5, 0, 0);
        }
        /* one of each kind and flag */
        emit_root(g, g->id[rbelow(r, n)], 0, 0, 0);
        emit_root(g, g->id[rbelow(r, n)], 1, 0, 0);
        emit_root(g, g->id[rbelow(r, n)], 1, 4, 0);
        emit_root(g, g->id[rbelow(r, n)], 1, 1, 0);
        emit_root(g, g->id[rbelow(r, n)], 2, 0, 0);
        emit_root(g, g->id[rbelow(r, n)], 3, 2, 0);
        emit_root(g, g->id[rbelow(r, n)], 3, 1, 0);
        emit_root(g, g->id[rbelow(r, n)], 3, 0, 0);
        emit_root(g, g->id[rbelow(r, n)], 4, 0, (uint32_t)rbelow(r, g->ntypes));
        emit_root(g, g->id[rbelow(r, n)], 5, 0, 0);
    }
    /* types no object used */
    for (uint32_t t = 0; t < g->ntypes; t++)
        if (!g->declared[t])
            emit_type(g, t);

    oreserve(128);
    ostr("c ");
    ostr(name);
    oreserve(20);
    ochar(' ');
    ohex(ts + 0x1f4 + n / 10000);
    ochar('\n');
    g->objects += n;
}

/* ------------------------------------------------------------------ main */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gendump [--objects N] [--seed S] [--refs-per-object R] [--sections K] [-o FILE]\n"
            "  --objects N          objects in the dump (default 1000000; k/m/g suffixes allowed)\n"
            "  --seed S             PRNG seed (default 1); the output depends only on the options\n"
            "  --refs-per-object R  average references per object (default 2.5)\n"
            "  --sections K         appdomain sections the objects are split over (default 1)\n"
            "  -o FILE              write to FILE instead of stdout\n"
            "  --version            print the generator version (it changes when the output does)\n"
            "Summary on stderr: gendump: objects N references M types T roots X sections K bytes B\n");
}

static int parse_count(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!s || !*s || *s == '-')
        return -1;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s)
        return -1;
    uint64_t mul = 1;
    if (*end == 'k' || *end == 'K')
        mul = 1000, end++;
    else if (*end == 'm' || *end == 'M')
        mul = 1000000, end++;
    else if (*end == 'g' || *end == 'G')
        mul = 1000000000, end++;
    if (*end || (mul > 1 && v > UINT64_MAX / mul))
        return -1;
    *out = (uint64_t)v * mul;
    return 0;
}

int main(int argc, char **argv)
{
    uint64_t objects = 1000000, seed = 1, sections = 1;
    double rpo = 2.5;
    const char *outpath = NULL;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
        const char *eq = strchr(a, '=');
        char opt[64];
        if (a[0] == '-' && a[1] == '-' && eq && (size_t)(eq - a) < sizeof opt) {
            memcpy(opt, a, (size_t)(eq - a));
            opt[eq - a] = '\0';
            val = eq + 1;
            a = opt;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--version")) {
            printf("gendump %s\n", GENDUMP_VERSION);
            return 0;
        }
        int takes = !strcmp(a, "--objects") || !strcmp(a, "--seed") || !strcmp(a, "--refs-per-object") ||
                    !strcmp(a, "--sections") || !strcmp(a, "-o") || !strcmp(a, "--output");
        if (!takes) {
            fprintf(stderr, "gendump: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
        if (!val) {
            if (i + 1 >= argc) {
                fprintf(stderr, "gendump: option '%s' needs a value\n", a);
                return 2;
            }
            val = argv[++i];
        }
        int bad = 0;
        if (!strcmp(a, "--objects"))
            bad = parse_count(val, &objects) || objects > 0xffffffffull;
        else if (!strcmp(a, "--seed"))
            bad = parse_count(val, &seed);
        else if (!strcmp(a, "--sections"))
            bad = parse_count(val, &sections) || sections < 1 || sections > 100000;
        else if (!strcmp(a, "--refs-per-object")) {
            char *end;
            errno = 0;
            rpo = strtod(val, &end);
            bad = errno || end == val || *end || !(rpo >= 0 && rpo <= 10000);
        } else
            outpath = val;
        if (bad) {
            fprintf(stderr, "gendump: bad value '%s' for %s\n", val, a);
            return 2;
        }
    }

    ofp = stdout;
    if (outpath && strcmp(outpath, "-") != 0) {
        ofp = fopen(outpath, "wb");
        if (!ofp) {
            fprintf(stderr, "gendump: cannot open %s: %s\n", outpath, strerror(errno));
            return 1;
        }
        oname = outpath;
    }

    static gen g;
    rng_seed(&g.r, seed);
    g.refs_per_object = rpo;
    g.nplain = objects >= 56000 ? 3500 : objects / 16 < 64 ? 64 : (uint32_t)(objects / 16);
    g.ntypes = g.nplain + 3;
    g.types = xcalloc(g.ntypes, sizeof(tinfo));
    make_types(&g.r, g.types, g.nplain);
    zipf_init(&g.tz, g.nplain, 2); /* System.String twice as popular as pure Zipf */
    /* huge arrays: System.Object[] twice, or a Dictionary entry array */
    g.huge_types[0] = 1;
    g.huge_types[1] = 1;
    g.huge_types[2] = 3;

    uint64_t per = objects / sections, extra = objects % sections;
    uint64_t maxn = per + (extra ? 1 : 0);
    g.id = xmalloc(sizeof(uint64_t) * (maxn + 1));
    g.size = xmalloc(sizeof(uint32_t) * (maxn + 1));
    g.type = xmalloc(sizeof(uint16_t) * (maxn + 1));
    g.declared = xmalloc(g.ntypes);
    g.pending = xmalloc(sizeof(uint32_t) * g.ntypes);
    g.hubs = xmalloc(sizeof(uint64_t) * 4096);
    g.st = xmalloc(sizeof(strct) * 128);
    zipf_init(&g.hz, 4096, 1);
    g.addr = 0x2000000 + ((seed & 0xff) << 16);

    for (uint64_t s = 0; s < sections; s++) {
        uint64_t n = per + (s < extra ? 1 : 0);
        emit_section(&g, (unsigned)s, n, seed);
    }
    oflush();
    if (ofp != stdout ? fclose(ofp) != 0 : fflush(stdout) != 0) {
        fprintf(stderr, "gendump: write error on %s: %s\n", oname, strerror(errno));
        return 1;
    }
    fprintf(stderr,
            "gendump: objects %llu references %llu types %llu roots %llu sections %llu bytes %llu\n",
            (unsigned long long)g.objects, (unsigned long long)g.refs, (unsigned long long)g.type_records,
            (unsigned long long)g.roots, (unsigned long long)sections, (unsigned long long)obytes);
    return 0;
}
