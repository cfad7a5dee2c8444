/* v8_sample.h - the sample V8 heap snapshot of the tests (a graph with every
 * node and edge kind the reader treats apart; described in v8_sample.c) and
 * its model as gcheap must read it, checked by hand. */
#ifndef GCHEAP_TEST_V8_SAMPLE_H
#define GCHEAP_TEST_V8_SAMPLE_H

#include <stddef.h>

#include "v8_writer.h"

/* Variant bits: 1 seven node fields, 2 fields reordered, 4 \u escapes,
 * 8 blanks, 16 extra sections (see v8w_spec). The committed fixture
 * testdata/v8/sample.heapsnapshot is variant V8_SAMPLE_FIXTURE. */
#define V8_SAMPLE_FIXTURE (1 | 8 | 16)

char *v8_sample_write(int variant, size_t *len);

/* Per object "id type size: label->target_id ...", then
 * "root id kind flags label" lines. */
extern const char v8_sample_model[];

#endif
