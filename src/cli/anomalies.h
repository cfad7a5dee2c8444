/* anomalies.h - the one table of a section's anomalies (gch_anomalies): the
 * name each one has in `info` (table, tsv, csv, json) and in the report's
 * data, in the order both list them. A new anomaly is one row here. */
#ifndef CLI_ANOMALIES_H
#define CLI_ANOMALIES_H

#include <stddef.h>
#include <stdint.h>

#include "gcheap/heap.h"

typedef struct cli_anomaly {
    const char *key;  /* snake_case, as info and the report's json spell it */
    size_t offset;    /* of its uint64_t count in gch_anomalies */
} cli_anomaly;

extern const cli_anomaly cli_anomalies[];
extern const size_t cli_anomaly_count;

/* The count of anomaly i in a. */
uint64_t cli_anomaly_value(const gch_anomalies *a, size_t i);

#endif
