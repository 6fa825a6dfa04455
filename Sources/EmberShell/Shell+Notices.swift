import EmberCore
import EmberEngine
import EmberInstance

/// What opening the database found (an unreadable client store set aside, an empty server
/// store, values left out): printed as errors or warnings as soon as it is found.
extension Shell {
    /// Prints the notices the instance found since the last call: failures as errors, the rest
    /// as warnings, on stderr.
    /// - Returns: whether none of them is a failure (an unreadable store: data the user had
    ///   may be missing), so that a command-line run can stop with exit status 1.
    @discardableResult
    public func reportNotices() -> Bool {
        let notices = ember.notices.dropFirst(state.reportedNotices)
        state.reportedNotices = ember.notices.count
        var succeeded = true
        for notice in notices {
            if notice.isFailure {
                succeeded = false
                report(.command(notice.code, notice.description, at: nil))
            } else if isJSON {
                output.writeError(
                    JSONValue.object([("warning", .string(notice.code)), ("message", .string(notice.description))]).serialized()
                        + "\n")
            } else {
                output.writeError(style.warning("warning: \(notice.description)") + "\n")
            }
        }
        return succeeded
    }
}
