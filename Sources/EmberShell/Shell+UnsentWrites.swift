import EmberClient
import EmberCore
import EmberEngine
import EmberInstance

/// The end of a run: what the clients have not sent (issue 37: a write reported as queued
/// vanished when ember exited, and a script never said so).
extension Shell {
    /// Waits, in a script, up to ``acknowledgementWait`` for the writes of the clients that are
    /// not offline on purpose; then names, on stderr, the writes and transactions left: queued
    /// on disk (sent on a later run), or in memory only and lost, while the server outlives
    /// this process. An embedded server in memory goes with its clients' queues: nothing is
    /// said then.
    /// - Parameter waiting: whether to wait at all (not after a script failed: its error said
    ///   what became of the write it stopped at).
    /// - Returns: whether a script may end well: `false` when a write was not acknowledged
    ///   (the client was not offline on purpose) or is lost. At the prompt it only warns and
    ///   returns `true`.
    func finishWrites(waiting mayWait: Bool = true) -> Bool {
        if ember.remoteServer == nil, case .memory = ember.persistence { return true }
        let interactive = state.acknowledgementWait == .interactive
        func unsent(_ database: Database) -> Int { database.pendingWriteCount + database.runningTransactionCount }
        let databases = ember.clientNames.map { ember.client($0) }
        if !interactive && mayWait {
            let waiting = { databases.contains { $0.connectionState != .offline && unsent($0) > 0 } }
            switch state.acknowledgementWait {
            case .bounded(let milliseconds):
                _ = engine.wait(until: { !waiting() }, deadline: engine.now + milliseconds)
            case .unbounded:
                _ = engine.wait(until: { !waiting() })
            case .interactive:
                break
            }
        }
        var ok = true
        /// An error in a script; a warning at the prompt.
        func problem(_ text: String) {
            ok = false
            if interactive {
                output.writeError(style.warning("warning: \(text)") + "\n")
            } else {
                report(.command(ErrorCode.notAcknowledged, text, at: nil))
            }
        }
        for database in databases {
            let count = unsent(database)
            guard count > 0 else { continue }
            database.commitStore()
            let subject = (count == 1 ? "1 write" : "\(count) writes") + " of client \(database.name)"
            let server = ember.remoteServer.map { " to \($0.url)" } ?? ""
            let kept = queueDescription(of: database, several: count > 1)
            if queueKeeping(of: database) == .inMemory {
                problem("\(subject) \(count == 1 ? "was" : "were") never sent\(server) and \(count == 1 ? "is" : "are") lost: the queue was in memory only (--memory)")
            } else if database.connectionState == .offline {
                note(
                    "\(subject) \(count == 1 ? "is" : "are") queued (offline): \(kept)",
                    json: .object([("client", .string(database.name.rawValue)), ("queued", .int(Int64(count)))]))
            } else if interactive {
                note(
                    "\(subject) \(count == 1 ? "is" : "are") not acknowledged yet\(server): \(kept)",
                    json: .object([("client", .string(database.name.rawValue)), ("unacknowledged", .int(Int64(count)))]))
            } else {
                problem("\(subject) \(count == 1 ? "was" : "were") not acknowledged\(server) within --ack-timeout: \(kept)")
            }
        }
        return interactive || ok
    }
}
