/* gcdump_twin.h - test-only: the heap of the committed fixtures
 * testdata/gcdump/twin.gcdump and testdata/gcdump/twin.gclog, described once
 * and rendered in both formats: same object ids (the .gcdump addresses), types,
 * sizes, references and roots. The .gcdump's root categories become .gclog
 * root kinds by a table here ([local vars] 1, [Pinned local vars] 1 pinned,
 * [static var X] 4 with X's type as container, [strong Handles] 3,
 * [pinned Handles] 3 pinned, [finalizer Handles] 2); it does not use the
 * reader's name rules. tests/tools/make_gcdump_fixtures.c writes the files;
 * tests/unit/test_gcdump_twin.c checks that the committed files are what this
 * description renders. */
#ifndef GCHEAP_TEST_GCDUMP_TWIN_H
#define GCHEAP_TEST_GCDUMP_TWIN_H

#include <stddef.h>

#include "gcdump_writer.h"

/* twin.gcdump (free out->data). */
void gcdump_twin_gcdump(gcdw_result *out);

/* sampled.gcdump: the same heap with count multipliers (a sampled dump:
 * counts are estimates), free out->data. */
void gcdump_twin_sampled(gcdw_result *out);

/* twin.gclog: the text (malloc'ed, NUL-terminated) and its length. */
char *gcdump_twin_gclog(size_t *len);

/* How many bytes of twin.gcdump the truncated fixture keeps. */
size_t gcdump_twin_truncated_size(size_t full_size);

#endif
