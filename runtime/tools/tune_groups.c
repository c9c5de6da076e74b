/* tune_groups.c - the row split of cutec-tune's grouped problems (tune_groups.h). */
#include "tune_groups.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* xorshift64*: the permutation's draws, the same on every host */
static uint64_t next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545f4914f6cdd1dull;
}

int tune_group_ends(long long m, long long groups, double skew, int *ends)
{
    long long *rank = malloc(sizeof *rank * (size_t)groups), *rows = malloc(sizeof *rows * (size_t)groups);
    long long *by_rank = malloc(sizeof *by_rank * (size_t)groups);
    if (rank == NULL || rows == NULL || by_rank == NULL) {
        free(rank), free(rows), free(by_rank);
        return -1;
    }
    for (long long g = 0; g < groups; g++) by_rank[g] = g;
    if (skew > 0) { /* Fisher-Yates: by_rank[r] is the group of rank r */
        uint64_t s = TUNE_SKEW_SEED * 0x9e3779b97f4a7c15ull + 1;
        for (long long i = groups - 1; i > 0; i--) {
            long long j = (long long)(next(&s) % (uint64_t)(i + 1)), t = by_rank[i];
            by_rank[i] = by_rank[j], by_rank[j] = t;
        }
    }
    for (long long r = 0; r < groups; r++) rank[by_rank[r]] = r;
    double sum = 0;
    for (long long g = 0; g < groups; g++) sum += pow(1.0 + (double)rank[g], -skew);
    long long given = 0;
    for (long long g = 0; g < groups; g++) {
        rows[g] = (long long)floor((double)m * pow(1.0 + (double)rank[g], -skew) / sum);
        if (rows[g] > m - given) rows[g] = m - given; /* rounding never gives more than m */
        given += rows[g];
    }
    for (long long r = 0; given < m; r = (r + 1) % groups, given++) rows[by_rank[r]]++;
    long long at = 0;
    for (long long g = 0; g < groups; g++) {
        at += rows[g];
        ends[g] = (int)at;
    }
    free(rank), free(rows), free(by_rank);
    return 0;
}
