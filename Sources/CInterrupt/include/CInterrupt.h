#ifndef EMBER_CINTERRUPT_H
#define EMBER_CINTERRUPT_H

/* The process's Ctrl-C: a SIGINT handler that only sets a flag. The flag is the one piece of
   process-wide mutable state in Ember, kept in C because a signal handler can do nothing else
   safely. EmberEngine reads it (InterruptSignal); CLuaSupport's count hook reads it for Lua
   states that observe it. */

/** Installs the SIGINT handler, without SA_RESTART (a blocking read returns early). Returns 0,
    or -1 with errno set. */
int ember_sigint_install(void);

/** Whether SIGINT arrived since the last clear. Async-signal-safe. */
int ember_sigint_pending(void);

/** Forgets a received SIGINT. */
void ember_sigint_clear(void);

/** Sets the flag as the handler would (tests, and `Engine.interrupt` of an engine that observes
    the signal). */
void ember_sigint_raise_flag(void);

#endif
