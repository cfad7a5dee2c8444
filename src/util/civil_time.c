/* ISO 8601 dates (civil_time.h). */
#include "civil_time.h"

#include <stdio.h>

/* Civil date from days since 1970-01-01 (proleptic Gregorian; H. Hinnant's
 * method, "chrono-Compatible Low-Level Date Algorithms"). */
static void civil_from_days(long long z, long long *y, unsigned *m, unsigned *d)
{
    z += 719468;
    long long era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (long long)yoe + era * 400 + (*m <= 2);
}

void gch_format_utc(long long seconds, int millis, char *buf, size_t cap)
{
    long long days = seconds / 86400, rem = seconds % 86400;
    if (rem < 0) {
        rem += 86400;
        days--;
    }
    long long y;
    unsigned m, d;
    civil_from_days(days, &y, &m, &d);
    if (millis >= 0)
        snprintf(buf, cap, "%04lld-%02u-%02uT%02lld:%02lld:%02lld.%03dZ", y, m, d, rem / 3600,
                 rem / 60 % 60, rem % 60, millis);
    else
        snprintf(buf, cap, "%04lld-%02u-%02uT%02lld:%02lld:%02lldZ", y, m, d, rem / 3600,
                 rem / 60 % 60, rem % 60);
}
