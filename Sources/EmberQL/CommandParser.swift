/// Compiles a line (or a multi-line entry) of the query language into a ``Command``.
///
/// It executes nothing and knows nothing of the database's state: paths stay as written, values
/// are parsed and checked for syntax only (keys and depth are checked when a value reaches the
/// database), query modifiers are checked as ``EmberCore/QueryParams`` checks them.
///
/// The language, in brief (SHELL.md has it all):
/// - Command names and keywords are case-insensitive; `#` starts a comment to the end of the line
///   outside strings, except in the Lua code of `lua CODE` and `transaction PATH FUNCTION`, which
///   is taken as written to the end of the input (`#` is Lua's length operator).
/// - A path is a bare word, which runs to the next white space (so it may hold any character but
///   cannot start with `{` `}` `[` `]` `(` `)` `,` `:`), or a quoted string.
/// - Where a path is optional (`get`, `ls`, `tree`, `watch`, `cd`, `export`), a keyword that can
///   follow it (`orderBy`, `depth`, `child_added`, ...) means it was left out: to name a child
///   called `depth`, write `./depth` or `"depth"`.
/// - Values are relaxed JSON (see ``RelaxedJSON``) and may span lines.
/// - Any other first word is a plugin's command, with the rest of the input (comments removed) as
///   its arguments.
public enum CommandParser {
    /// The command written in `source`, or `nil` for a blank line or a comment.
    /// - Throws: ``EmberQLError`` pointing at the offending word.
    public static func parse(_ source: String) throws(EmberQLError) -> Command? {
        var parser = Parser(source)
        do throws(ParseFailure) {
            return try parser.command()
        } catch {
            throw error.emberQLError
        }
    }
}

extension CommandParser {
    /// Whether `source` is a finished entry: `false` when a `{`, `[` or `(` is still open or a
    /// quoted string is unterminated (outside comments), so the REPL reads another line.
    ///
    /// The input is parsed as a command, so a quote inside a path (`/users/o'brien`) opens nothing;
    /// any other error makes the entry finished (the parser then reports it), and so does a closer
    /// without its opener. In Lua code (`lua CODE`, `transaction PATH FUNCTION`) Lua's own strings,
    /// long strings and comments count, and so does a block still open (`function` ... `end`); in
    /// a plugin's arguments, brackets and quoted strings.
    public static func isComplete(_ source: String) -> Bool {
        var parser = Parser(source)
        do throws(ParseFailure) {
            _ = try parser.command()
        } catch {
            if case .error(_, incomplete: true) = error { return false }
            return true
        }
        return !parser.hasOpenTail
    }

    /// What could be typed at the end of `prefix` (the line up to the cursor), for tab
    /// completion.
    ///
    /// The partial word is the text after the last white space (empty after a space). Positions
    /// that take a fixed set of words give them in their canonical spelling (`orderBy`,
    /// `child_added`); inside a value, a number, Lua code, a comment, or after an error, there is
    /// nothing to complete (``CompletionContext/none``).
    public static func completionContext(for prefix: String) -> CompletionContext {
        let characters = Array(prefix)
        var start = characters.count
        while start > 0 && !characters[start - 1].isWhitespace { start -= 1 }
        var parser = Parser(prefix, completionStart: start)
        do throws(ParseFailure) {
            _ = try parser.command()
        } catch {
            if case .completion(let context) = error { return context }
        }
        return .none
    }
}
