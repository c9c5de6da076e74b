/* test_par_rows.c: runtime/par_rows.c, the tuner's loop over rows split
 * among threads: every row visited exactly once by the part that owns it,
 * for any number of parts (more parts than rows too), the parts' blocks
 * contiguous and in order, with cutec_par_rows and with
 * cutec_par_rows_beside (its side function run once, by the caller); and
 * cutec_par_parts' bounds. */
#include "par_rows.h"

#include <stdio.h>
#include <stdlib.h>

static int failures;
#define CHECK(c)                                                                                                       \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c);                                      \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

typedef struct visit {
    int *owner; /* the part that visited each row, -1 none, -2 twice */
    long long first[CUTEC_PAR_MAX], last[CUTEC_PAR_MAX];
} visit;

static void side(void *ctx) { ++*(int *)ctx; }

static void mark(void *ctx, int part, long long r0, long long r1)
{
    visit *v = ctx;
    v->first[part] = r0;
    v->last[part] = r1;
    for (long long r = r0; r < r1; r++) v->owner[r] = v->owner[r] == -1 ? part : -2;
}

int main(void)
{
    static const long long sizes[] = {0, 1, 7, 16, 1000, 4099};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        long long rows = sizes[i];
        for (int parts = 0, beside = 0; parts <= CUTEC_PAR_MAX + 2; beside = !beside, parts += !beside) {
            visit v;
            v.owner = malloc(sizeof *v.owner * (size_t)(rows + 1));
            CHECK(v.owner != NULL);
            if (v.owner == NULL) return 1;
            for (long long r = 0; r < rows; r++) v.owner[r] = -1;
            for (int p = 0; p < CUTEC_PAR_MAX; p++) v.first[p] = v.last[p] = -1;
            int sides = 0;
            if (beside)
                cutec_par_rows_beside(rows, parts, mark, &v, side, &sides);
            else
                cutec_par_rows(rows, parts, mark, &v);
            CHECK(sides == beside);
            int used = parts < 1 ? 1 : parts > CUTEC_PAR_MAX ? CUTEC_PAR_MAX : parts;
            long long next = 0;
            for (int p = 0; p < used; p++) { /* contiguous blocks in part order */
                CHECK(v.first[p] == next);
                next = v.last[p];
            }
            CHECK(next == rows);
            for (long long r = 0; r < rows; r++) CHECK(v.owner[r] >= 0);
            free(v.owner);
        }
        int n = cutec_par_parts(rows);
        CHECK(n >= 1 && n <= CUTEC_PAR_MAX && (n == 1 || n <= rows / 16));
    }
    printf("par_rows: %s\n", failures ? "FAIL" : "PASS");
    return failures != 0;
}
