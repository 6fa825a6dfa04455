/// What the word being typed at the cursor is, for tab completion.
///
/// Each case carries the partial word (`partial`), which the completer extends; the shell
/// supplies the candidates that depend on its state (data paths, client names, plugin commands).
public enum CompletionContext: Sendable, Hashable {
    /// A command name (the first word, or the word after `as NAME`).
    case command(partial: String)
    /// A database path (absolute or relative, as typed so far).
    case path(partial: String)
    /// A path below each child of `location` (`orderBy child PATH`): the candidates are the
    /// keys the children hold there, not paths from the root (issue 37).
    case childPath(partial: String, location: String)
    /// One of a fixed set of words: query keywords, event names, `on`/`off`, `set`/`update`/...
    case keyword(partial: String, candidates: [String])
    /// A client name.
    case client(partial: String)
    /// A file name.
    case file(partial: String)
    /// Nothing to complete (inside a value, a number, Lua code).
    case none
}
