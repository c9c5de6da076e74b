/*
 * test_timing.c - the runtime's timing harness (cutec/timing.h) on the mock
 * driver, whose events read a virtual clock that only launches advance: the
 * jobs here advance it by known amounts through the mock's
 * cutec_mock_advance_clock, so every median is exact.  Cases:
 *   rounds      order of warm-ups, rounds and before(), medians, a job
 *               dropped in its warm-ups and one in its rounds, an older
 *               caller's cutec_timing, lead launches, refusals, the runtime
 *               destroyed first
 *   no_driver   a timer on a runtime without a driver gets its status
 */
#include <dlfcn.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "check.h"
#include "cutec/timing.h"

static void (*advance)(double us);

/* What ran, in order: 'A'..'Z' a job's launch, 'a'..'z' its before(). */
static char order[256];
static int norder;

typedef struct job {
    char name;
    double warm_us;       /* every warm-up */
    const double *run_us; /* timed launch r takes run_us[r] */
    int fail_at;          /* the run index whose launch fails, -1 none */
} job;

static cutec_status launch(void *user, int run, void *stream)
{
    job *j = user;
    (void)stream;
    if (norder < (int)sizeof order - 1) order[norder++] = j->name;
    if (run == j->fail_at) return CUTEC_ERR_LAUNCH;
    return advance(run < 2 ? j->warm_us : j->run_us[run - 2]), CUTEC_OK;
}

/* Untimed: a long time passes that no event may see. */
static cutec_status before(void *user, int which, int run, void *stream)
{
    job *jobs = user;
    (void)run, (void)stream;
    if (norder < (int)sizeof order - 1) order[norder++] = (char)(jobs[which].name - 'A' + 'a');
    advance(5000);
    return CUTEC_OK;
}

static int test_rounds(void)
{
    void *lib = dlopen(getenv("CUTEC_CUDA_DRIVER"), RTLD_NOW);
    CHECK(lib != NULL);
    *(void **)&advance = dlsym(lib, "cutec_mock_advance_clock");
    CHECK(advance != NULL);
    cutec_runtime *rt = NULL;
    CHECK_OK(rt, cutec_runtime_create(&rt, 0));
    cutec_timer *t = NULL, *plain = NULL;
    CHECK_OK(rt, cutec_timer_create(rt, CUTEC_TIMER_FLUSH_L2, &t));
    CHECK(cutec_timer_flush_bytes(t) == 2 * 64 * 1024); /* the mock's L2: 64 KiB */
    CHECK_OK(rt, cutec_timer_create(rt, 0, &plain));
    CHECK(cutec_timer_flush_bytes(plain) == 0);

    static const double a_us[] = {10, 30, 20, 50, 40}, b_us[] = {5, 5, 7, 9, 100}, c_us[] = {1, 1, 1, 1, 1};
    job jobs[4] = {{'A', 1000, a_us, -1}, {'B', 2000, b_us, -1}, {'C', 1, c_us, 2 + 2}, {'D', 1, c_us, 1}};
    cutec_timing_job tj[4];
    for (int i = 0; i < 4; i++) tj[i] = (cutec_timing_job){launch, &jobs[i]};
    cutec_timing how;
    cutec_timing_init(&how, 2, 5);
    CHECK(how.struct_size == sizeof how && how.flush_l2 == 0 && how.before == NULL);
    how.flush_l2 = 1;
    how.sync_warmup = 1;
    how.before = before;
    how.before_user = jobs;
    cutec_timing_result res[4];
    int fault = 7;
    CHECK_OK(rt, cutec_timer_run(t, &how, tj, 4, res, &fault));
    CHECK(fault == -1);
    /* warm-ups job by job (D fails its second), then rounds A B C with
   * before() first; C fails in round 2 and leaves */
    order[norder] = '\0';
    CHECK_CONTAINS(order, "AABBCCDD"
                          "aAbBcC"
                          "aAbBcC"
                          "aAbBcC"
                          "aAbB"
                          "aAbB");
    CHECK(strlen(order) == 8 + 6 * 3 + 4 * 2);
    /* medians in ms; before() and the warm-ups are outside the events */
    CHECK(fabs(res[0].ms - 0.030) < 1e-6 && res[0].status == CUTEC_OK && res[0].failed_run == -1);
    CHECK(fabs(res[1].ms - 0.007) < 1e-6 && res[1].status == CUTEC_OK);
    CHECK(isinf(res[2].ms) && res[2].status == CUTEC_ERR_LAUNCH && res[2].failed_run == 4);
    CHECK(isinf(res[3].ms) && res[3].status == CUTEC_ERR_LAUNCH && res[3].failed_run == 1);

    /* an even count: the mean of the middle two; an older caller's
   * cutec_timing (the mandatory fields only) times without flush */
    norder = 0;
    struct {
        size_t struct_size;
        int warmup, runs;
        void *stream;
    } old = {offsetof(cutec_timing, flush_l2), 2, 4, NULL};
    CHECK_OK(rt, cutec_timer_run(plain, (const cutec_timing *)(const void *)&old, tj, 2, res, NULL));
    CHECK(fabs(res[0].ms - 0.025) < 1e-6 && fabs(res[1].ms - 0.006) < 1e-6);
    order[norder] = '\0';
    CHECK(strcmp(order, "AABB"
                        "ABABABAB") == 0);

    /* lead: two untimed launches of the job before each timed one, outside
     * the events (they pass the timed launch's run index) */
    norder = 0;
    cutec_timing led;
    cutec_timing_init(&led, 2, 2);
    led.lead = 2;
    CHECK_OK(rt, cutec_timer_run(plain, &led, tj, 2, res, NULL));
    order[norder] = '\0';
    CHECK(strcmp(order, "AABB"
                        "AAABBB"
                        "AAABBB") == 0);
    CHECK(fabs(res[0].ms - 0.020) < 1e-6 && fabs(res[1].ms - 0.005) < 1e-6);
    led.lead = -1;
    CHECK_STATUS(rt, cutec_timer_run(plain, &led, tj, 2, res, NULL), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cutec_runtime_message(rt), "-1 lead launches (0 to 1000000)");

    /* refusals, each with its reason */
    cutec_timing bad = how;
    bad.struct_size = 0;
    CHECK_STATUS(rt, cutec_timer_run(t, &bad, tj, 2, res, NULL), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cutec_runtime_message(rt), "struct_size 0 of the cutec_timing is out of range");
    bad = how;
    bad.runs = 0;
    CHECK_STATUS(rt, cutec_timer_run(t, &bad, tj, 2, res, NULL), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rt, cutec_timer_run(plain, &how, tj, 2, res, NULL), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cutec_runtime_message(rt), "flush_l2 on a timer without a flush buffer");
    cutec_timing_job none = {NULL, NULL};
    CHECK_STATUS(rt, cutec_timer_run(t, &how, &none, 1, res, NULL), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rt, cutec_timer_run(t, NULL, tj, 1, res, NULL), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(NULL, cutec_timer_run(NULL, &how, tj, 1, res, NULL), CUTEC_ERR_INVALID_ARGUMENT);
    CHECK_OK(rt, cutec_timer_run(t, &how, tj, 0, NULL, NULL));

    /* the runtime destroyed first detaches the timers */
    cutec_timer_destroy(plain);
    cutec_runtime_destroy(rt);
    CHECK(cutec_timer_run(t, &how, tj, 1, res, NULL) == CUTEC_ERR_INVALID_ARGUMENT);
    cutec_timer_destroy(t);
    cutec_timer_destroy(NULL);
    dlclose(lib);
    return 0;
}

static int test_no_driver(void)
{
    CHECK(setenv("CUTEC_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1) == 0);
    cutec_runtime *rt = NULL;
    CHECK_STATUS(rt, cutec_runtime_create(&rt, 0), CUTEC_ERR_NO_DRIVER);
    cutec_timer *t = (cutec_timer *)1;
    CHECK_STATUS(rt, cutec_timer_create(rt, CUTEC_TIMER_FLUSH_L2, &t), CUTEC_ERR_NO_DRIVER);
    CHECK(t == NULL);
    CHECK_STATUS(NULL, cutec_timer_create(NULL, 0, &t), CUTEC_ERR_INVALID_ARGUMENT);
    cutec_runtime_destroy(rt);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "rounds") == 0) return test_rounds();
    if (argc == 2 && strcmp(argv[1], "no_driver") == 0) return test_no_driver();
    fprintf(stderr, "usage: %s rounds|no_driver\n", argv[0]);
    return 2;
}
