/* cli_signal.c: SIGINT and SIGTERM while cutec pack has temporary files
 * and workers (cli.h).  The handler only records the signal; the main
 * loop sees it (its wait returns EINTR), stops the workers, removes the
 * files, and then dies of the same signal, so that a shell or make sees
 * an interrupted command and not a failed one. */
#include <signal.h>
#include <stdbool.h>
#include <string.h>

#include "cli.h"

volatile sig_atomic_t cli_signal;

static void record(int sig) { cli_signal = sig; }

static const int sigs[] = {SIGINT, SIGTERM};
static bool ignored[2]; /* ignored when cutec started: left ignored */

static void set_action(void (*handler)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: waitpid and open return EINTR */
    for (int i = 0; i < 2; i++)
        if (!ignored[i]) sigaction(sigs[i], &sa, NULL);
}

void cli_signals_catch(void)
{
    /* A signal ignored on entry stays ignored (a shell starts background
     * jobs with SIGINT ignored; nohup), as in make and the GNU tools. */
    for (int i = 0; i < 2; i++) {
        struct sigaction old;
        ignored[i] = sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN;
    }
    set_action(record);
}

void cli_signals_default(void) { set_action(SIG_DFL); }

void cli_signal_reraise(void)
{
    int sig = cli_signal;
    if (!sig) return;
    cli_signals_default();
    raise(sig);
}
