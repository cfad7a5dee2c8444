#!/bin/sh
# Writes shop.gclog: a made-up web shop's heap with a tree worth looking at
# (a product cache, sessions with buffers, an event bus whose handlers keep
# old sessions alive, a buffer pool, requests on the stack, some garbage), for
# the report's screenshot (docs/report.png) and its tests. Deterministic.
#   sh testdata/report/make_shop.sh > testdata/report/shop.gclog
awk 'BEGIN {
    id = 4096
    print "a 2 shop.exe 1000"
    split("System.String System.Byte[] System.Int32[] System.Object[] " \
          "App.Program App.ServiceHost App.Caching.ProductCache " \
          "System.Collections.Generic.Dictionary`2[[System.Int32],[App.Catalog.Product]] " \
          "System.Collections.Generic.Dictionary`2+Entry[[System.Int32],[App.Catalog.Product]][] " \
          "App.Catalog.Product App.Catalog.Review App.Catalog.Review[] " \
          "System.Collections.Generic.List`1[[App.Catalog.Review]] App.Sessions.SessionStore " \
          "System.Collections.Generic.List`1[[App.Sessions.Session]] App.Sessions.Session[] " \
          "App.Sessions.Session App.Sessions.Cart App.Sessions.CartItem App.Events.EventBus " \
          "System.Action`1[[App.Events.OrderPlaced]][] System.Action`1[[App.Events.OrderPlaced]] " \
          "App.Sessions.Session+<>c__DisplayClass12_0 System.Buffers.ArrayPool`1[[System.Byte]] " \
          "System.Byte[][] App.Http.Request App.Http.Headers", T, " ")
    for (i = 1; i in T; i++) { tid[T[i]] = 16 + i; printf "t %x %s\n", 16 + i, T[i] }
}
function obj(type, size, refs,    o) { o = sprintf("%x", id); id += 8 + size + (size % 8 ? 8 - size % 8 : 0)
    printf "o %s %x %x%s\n", o, tid[type], size, refs; return o }
function str(n) { return obj("System.String", 20 + 2 * n, "") }
BEGIN {
    srand(42)
    # The product cache: 600 products with names, reviews and their texts.
    entries = ""
    for (p = 0; p < 600; p++) {
        revs = ""
        nr = int(rand() * 6)
        for (r = 0; r < nr; r++) revs = revs " " obj("App.Catalog.Review", 40, " " str(40 + int(rand() * 200)))
        arr = obj("App.Catalog.Review[]", 24 + 8 * nr, revs)
        list = obj("System.Collections.Generic.List`1[[App.Catalog.Review]]", 32, " " arr)
        entries = entries " " obj("App.Catalog.Product", 56, " " str(10 + int(rand() * 30)) " " list)
    }
    earr = obj("System.Collections.Generic.Dictionary`2+Entry[[System.Int32],[App.Catalog.Product]][]", 24 + 24 * 600, entries)
    buckets = obj("System.Int32[]", 24 + 4 * 600, "")
    dict = obj("System.Collections.Generic.Dictionary`2[[System.Int32],[App.Catalog.Product]]", 80, " " buckets " " earr)
    cache = obj("App.Caching.ProductCache", 32, " " dict)
    # Sessions: 120 live ones, each with a 4 KiB buffer and a cart.
    sess = ""
    for (s = 0; s < 120; s++) {
        items = ""
        for (c = 0; c < 1 + int(rand() * 4); c++) items = items " " obj("App.Sessions.CartItem", 32, "")
        cart = obj("App.Sessions.Cart", 40, items)
        sess = sess " " obj("App.Sessions.Session", 64, " " obj("System.Byte[]", 4096, "") " " cart " " str(36))
    }
    sarr = obj("App.Sessions.Session[]", 24 + 8 * 128, sess)
    store = obj("App.Sessions.SessionStore", 40, " " obj("System.Collections.Generic.List`1[[App.Sessions.Session]]", 32, " " sarr))
    # The event bus: handlers whose closures keep 300 ended sessions alive.
    hs = ""
    for (h = 0; h < 300; h++) {
        old = obj("App.Sessions.Session", 64, " " obj("System.Byte[]", 4096, "") " " obj("App.Sessions.Cart", 40, "") " " str(36))
        clo = obj("App.Sessions.Session+<>c__DisplayClass12_0", 24, " " old)
        hs = hs " " obj("System.Action`1[[App.Events.OrderPlaced]]", 64, " " clo)
    }
    bus = obj("App.Events.EventBus", 32, " " obj("System.Action`1[[App.Events.OrderPlaced]][]", 24 + 8 * 300, hs))
    # A buffer pool: 24 arrays of 64 KiB.
    bufs = ""
    for (b = 0; b < 24; b++) bufs = bufs " " obj("System.Byte[]", 65536, "")
    pool = obj("System.Buffers.ArrayPool`1[[System.Byte]]", 48, " " obj("System.Byte[][]", 24 + 8 * 32, bufs))
    host = obj("App.ServiceHost", 64, " " cache " " store " " bus " " pool)
    prog = obj("App.Program", 24, " " host)
    # Requests on the stack, and garbage nobody holds.
    for (q = 0; q < 6; q++) req[q] = obj("App.Http.Request", 72, " " obj("App.Http.Headers", 48, " " str(300)) " " obj("System.Byte[]", 16384, ""))
    for (g = 0; g < 400; g++) str(int(rand() * 100))
    printf "r %s 4 1 %x\n", prog, tid["App.Program"]
    for (q = 0; q < 6; q++) printf "r %s 1 0\n", req[q]
    print "c shop.exe 1400"
}'
