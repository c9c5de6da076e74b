/*
 * tune_groups.h - how cutec-tune splits a grouped problem's M rows among
 * its G groups (--groups G, --skew S, a shapes file's groups=G column):
 * the row ends it writes to the device for group_ends (docs/runtime.md,
 * "cutec-tune").
 */
#ifndef CUTEC_TUNE_GROUPS_H
#define CUTEC_TUNE_GROUPS_H

/* The largest --skew: past it nearly every row is the first group's. */
#define TUNE_SKEW_MAX 8.0

/* The seed of the skewed split's permutation: every run splits alike. */
#define TUNE_SKEW_SEED 0x5eedull

/*
 * Fills ends[0 .. groups - 1] with the cumulative row ends of M rows split
 * among the groups (the last end is m), skew in [0, TUNE_SKEW_MAX]:
 *   skew 0: balanced, floor(m / groups) rows each, the first m % groups
 *           groups one more;
 *   skew S > 0: Zipf-like, group g's weight (1 + r(g))^-S, r a permutation
 *           of 0 .. groups - 1 drawn with a seeded generator (TUNE_SKEW_SEED),
 *           floor(m w(g) / sum w) rows each, and the rows left one each to
 *           the groups of rank 0, 1, ... (the heaviest first).
 * m <= 2^31 - 1.  Returns 0, or -1 when the host has no memory for the
 * permutation.
 */
int tune_group_ends(long long m, long long groups, double skew, int *ends);

#endif /* CUTEC_TUNE_GROUPS_H */
