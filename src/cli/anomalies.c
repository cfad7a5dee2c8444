/* The anomaly table: see anomalies.h. */
#include "anomalies.h"

#include <string.h>

#define ROW(key, field) { key, offsetof(gch_anomalies, field) }

const cli_anomaly cli_anomalies[] = {
    ROW("dangling_references", dangling_refs),
    ROW("objects_of_undeclared_types", unknown_type_objects),
    ROW("undeclared_types", unknown_types),
    ROW("roots_on_absent_objects", dangling_roots),
    ROW("duplicate_objects", duplicate_objects),
    ROW("duplicate_types", duplicate_types),
    ROW("undeclared_static_containers", absent_containers),
    ROW("missing_end_record", missing_end),
    ROW("end_record_mismatch", end_name_mismatch),
};

const size_t cli_anomaly_count = sizeof cli_anomalies / sizeof *cli_anomalies;

uint64_t cli_anomaly_value(const gch_anomalies *a, size_t i)
{
    uint64_t v;
    memcpy(&v, (const char *)a + cli_anomalies[i].offset, sizeof v);
    return v;
}
