/* What `waste` and `check --max-waste` share: percentages and the
 * threshold in bytes (cmd_waste.c, gate.c). */
#ifndef GCHEAP_CLI_WASTE_CLI_H
#define GCHEAP_CLI_WASTE_CLI_H

#include <stdint.h>

/* "5", "5%" or "2.5%" into percent x GCH_PERCENT_SCALE (0 to 100); else a
 * usage error naming --opt (EXIT_INPUT). */
int waste_parse_pct(const char *command, const char *opt, const char *value, uint64_t *out);

/* pct (x GCH_PERCENT_SCALE) of heap_bytes, rounded down. */
uint64_t waste_threshold_bytes(uint64_t heap_bytes, uint64_t pct);

#endif
