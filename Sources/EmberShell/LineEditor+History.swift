import CEditLine

/// The editor's history: entries added after each command, browsed with up/down and Ctrl-R,
/// saved to and loaded from a file.
extension LineEditor {
    /// Adds `line` as the newest entry, unless it equals the newest entry already.
    public func addHistory(_ line: String) throws(LineEditorError) {
        var event = HistEvent()
        guard ember_history_enter(history, &event, line) >= 0 else {
            throw LineEditorError("cannot add to the history: \(Self.reason(event))")
        }
    }

    /// The number of entries.
    public var historyCount: Int {
        var event = HistEvent()
        return ember_history_getsize(history, &event) == 0 ? Int(event.num) : 0
    }

    /// Every entry, oldest first.
    public var historyEntries: [String] {
        var entries: [String] = []
        var event = HistEvent()
        var status = ember_history_last(history, &event)
        while status == 0, let text = event.str {
            entries.append(String(cString: text))
            status = ember_history_prev(history, &event)
        }
        return entries
    }

    /// Removes every entry.
    public func clearHistory() {
        var event = HistEvent()
        _ = ember_history_clear(history, &event)
    }

    /// Writes the history to the file at `path` (libedit's format: a `_HiStOrY_V2_` header, then
    /// one vis(3)-escaped entry per line, so multi-line entries survive).
    public func saveHistory(to path: String) throws(LineEditorError) {
        var event = HistEvent()
        guard ember_history_save(history, &event, path) >= 0 else {
            throw LineEditorError("cannot save the history to \(path)")
        }
    }

    /// Appends the entries saved in the file at `path`.
    public func loadHistory(from path: String) throws(LineEditorError) {
        var event = HistEvent()
        guard ember_history_load(history, &event, path) >= 0 else {
            throw LineEditorError("cannot load the history from \(path)")
        }
    }

    /// libedit's message for a failed history call.
    private static func reason(_ event: HistEvent) -> String {
        event.str.map { String(cString: $0) } ?? "unknown error"
    }
}
