/*
 * CEditLine: libedit's native API (Debian libedit-dev, pkg-config libedit) for Swift.
 *
 * `el_set`, `el_get` and `history` are variadic, which Swift cannot call. This header gives each
 * operation Ember needs a typed, non-variadic `static inline` wrapper: `ember_el_*` for the
 * editor and `ember_history_*` for the history. Only EmberShell imports this module.
 *
 * The readline compatibility layer (<editline/readline.h>) is deliberately not exposed: its
 * configuration is process-wide mutable globals (rl_*), which Swift 6 rejects and which would
 * make two editors share state. The native API keeps everything per `EditLine`.
 */
#ifndef EMBER_CEDITLINE_SHIM_H
#define EMBER_CEDITLINE_SHIM_H

#include <stdio.h>
#include <histedit.h>

/** A prompt function: returns the prompt text, which must stay valid until the next call. */
typedef char *(*ember_el_prompt_function)(EditLine *);

/** A user editor command (`EL_ADDFN`): receives the key and returns a `CC_*` code. */
typedef unsigned char (*ember_el_command_function)(EditLine *, int);

/* MARK: editor settings */

/** `EL_PROMPT`: sets the function that returns the prompt. */
static inline int ember_el_set_prompt(EditLine *el, ember_el_prompt_function prompt) {
    return el_set(el, EL_PROMPT, prompt);
}

/** `EL_EDITOR`: sets the key bindings, "emacs" or "vi". */
static inline int ember_el_set_editor(EditLine *el, const char *mode) { return el_set(el, EL_EDITOR, mode); }

/** `EL_EDITOR` (get): the current key bindings, "emacs" or "vi". */
static inline int ember_el_get_editor(EditLine *el, const char **mode) { return el_get(el, EL_EDITOR, mode); }

/** `EL_SIGNAL`: whether libedit installs its own handlers while reading, to restore the terminal
    before the application's handler runs. */
static inline int ember_el_set_signal(EditLine *el, int handle) { return el_set(el, EL_SIGNAL, handle); }

/** `EL_SIGNAL` (get). */
static inline int ember_el_get_signal(EditLine *el, int *handle) { return el_get(el, EL_SIGNAL, handle); }

/** `EL_EDITMODE` (get): whether editing is enabled by the application (`el_set(EL_EDITMODE, 0)`
    turns it off); it stays on when the input is not a terminal, libedit then just reads lines. */
static inline int ember_el_get_editmode(EditLine *el, int *on) { return el_get(el, EL_EDITMODE, on); }

/** `EL_HIST`: attaches a history, so that up/down and Ctrl-R browse it. */
static inline int ember_el_set_history(EditLine *el, History *h) { return el_set(el, EL_HIST, history, h); }

/** `EL_CLIENTDATA`: stores an application pointer in the editor. */
static inline int ember_el_set_clientdata(EditLine *el, void *data) { return el_set(el, EL_CLIENTDATA, data); }

/** `EL_CLIENTDATA` (get): the application pointer, or NULL. */
static inline void *ember_el_get_clientdata(EditLine *el) {
    void *data = NULL;
    return el_get(el, EL_CLIENTDATA, &data) == 0 ? data : NULL;
}

/** `EL_UNBUFFERED`: whether `el_gets` returns after every character (for an event loop). */
static inline int ember_el_set_unbuffered(EditLine *el, int on) { return el_set(el, EL_UNBUFFERED, on); }

/** `EL_ADDFN`: adds a named editor command (e.g. completion). */
static inline int ember_el_add_function(EditLine *el, const char *name, const char *help,
                                        ember_el_command_function function) {
    return el_set(el, EL_ADDFN, name, help, function);
}

/** `EL_BIND`: binds a key sequence (e.g. "^I") to a named command. */
static inline int ember_el_bind(EditLine *el, const char *keys, const char *command) {
    return el_set(el, EL_BIND, keys, command, (const char *)NULL);
}

/** A character reader (`EL_GETCFN`): stores one character and returns 1, or returns 0 at the end
    of the input, -1 on error. */
typedef int (*ember_el_read_function)(EditLine *, wchar_t *);

/** `EL_GETCFN`: replaces how libedit reads a character (so the application can run its event
    loop while waiting for a key); NULL restores the built-in reader. */
static inline int ember_el_set_getcfn(EditLine *el, ember_el_read_function read) {
    return el_set(el, EL_GETCFN, read);
}

/** `EL_REFRESH`: redraws the prompt and the line (after printing above them). */
static inline int ember_el_refresh(EditLine *el) { return el_set(el, EL_REFRESH); }

/* MARK: history (each returns 0 on success, -1 with a message in `event->str` on failure) */

/** `H_SETSIZE`: keeps at most `size` entries. */
static inline int ember_history_setsize(History *h, HistEvent *event, int size) {
    return history(h, event, H_SETSIZE, size);
}

/** `H_GETSIZE`: the number of entries, in `event->num`. */
static inline int ember_history_getsize(History *h, HistEvent *event) { return history(h, event, H_GETSIZE); }

/** `H_SETUNIQUE`: whether an entry equal to the previous one is dropped. */
static inline int ember_history_setunique(History *h, HistEvent *event, int unique) {
    return history(h, event, H_SETUNIQUE, unique);
}

/** `H_ENTER`: adds `line` as the newest entry. */
static inline int ember_history_enter(History *h, HistEvent *event, const char *line) {
    return history(h, event, H_ENTER, line);
}

/** `H_FIRST`: moves to the newest entry (in `event->str`). */
static inline int ember_history_first(History *h, HistEvent *event) { return history(h, event, H_FIRST); }

/** `H_LAST`: moves to the oldest entry. */
static inline int ember_history_last(History *h, HistEvent *event) { return history(h, event, H_LAST); }

/** `H_NEXT`: moves one entry older. */
static inline int ember_history_next(History *h, HistEvent *event) { return history(h, event, H_NEXT); }

/** `H_PREV`: moves one entry newer. */
static inline int ember_history_prev(History *h, HistEvent *event) { return history(h, event, H_PREV); }

/** `H_CLEAR`: removes every entry. */
static inline int ember_history_clear(History *h, HistEvent *event) { return history(h, event, H_CLEAR); }

/** `H_LOAD`: appends the entries saved in the file at `path` (libedit's vis(3)-escaped format). */
static inline int ember_history_load(History *h, HistEvent *event, const char *path) {
    return history(h, event, H_LOAD, path);
}

/** `H_SAVE`: writes every entry to the file at `path`, replacing it. */
static inline int ember_history_save(History *h, HistEvent *event, const char *path) {
    return history(h, event, H_SAVE, path);
}

#endif /* EMBER_CEDITLINE_SHIM_H */
