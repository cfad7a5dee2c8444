/* What `waste` and `check --max-waste` share: percentages and the
 * threshold in bytes (cmd_waste.c, gate.c). */
#ifndef GCHEAP_CLI_WASTE_CLI_H
#define GCHEAP_CLI_WASTE_CLI_H

#include <stdint.h>

#include "cli.h"

/* pct (x GCH_PERCENT_SCALE) of heap_bytes, rounded down. */
uint64_t waste_threshold_bytes(uint64_t heap_bytes, uint64_t pct);

/* The wasted bytes of heap h (every section at the defaults, no holder
 * fields; only objects with live[o] when live is given): *available is 0,
 * and *total 0, when the dump holds no contents (a warning says so unless
 * quiet). 0, or EXIT_INPUT after printing the error. */
int waste_total(const cli_input *in, gch_heap *h, const uint8_t *live, int quiet, uint64_t *total);

#endif
