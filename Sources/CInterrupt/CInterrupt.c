#include "CInterrupt.h"

#include <signal.h>
#include <string.h>

/** Set by the SIGINT handler. */
static volatile sig_atomic_t sigint_received = 0;

static void on_sigint(int signo) {
    (void)signo;
    sigint_received = 1;
}

int ember_sigint_install(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_sigint;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;
    return sigaction(SIGINT, &action, NULL);
}

int ember_sigint_pending(void) { return sigint_received != 0; }

void ember_sigint_clear(void) { sigint_received = 0; }

void ember_sigint_raise_flag(void) { sigint_received = 1; }
