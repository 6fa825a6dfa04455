import EmberClient
import EmberCore
import EmberInstance
import EmberQL
import EmberRules
import Foundation

/// `tour`: eight lessons that explain the realtime model, ask the learner to type something,
/// and go on when what happened (the data, the events) shows it done.
extension Shell {
    func tour(_ action: TourAction) throws(ShellError) -> CommandResult {
        guard ember.administration != nil else {
            throw .command(ErrorCode.needsEmbeddedServer, "the tour needs the server embedded: run it in ember --memory or ember --db DIR")
        }
        let count = TourLesson.all.count
        switch action {
        case .stop:
            guard state.tour != nil else { return .done("no tour in progress") }
            state.tour = nil
            return .done("tour stopped (tour resumes it from the start, tour N at lesson N)")
        case .show:
            if let tour = state.tour { return .report(text: lessonText(tour.lesson), json: lessonJSON(tour.lesson)) }
            return startLesson(0)
        case .next:
            let next = (state.tour?.lesson ?? -1) + 1
            guard next < count else { throw .command(ErrorCode.invalidArgument, "that was the last lesson (tour 1 starts again)") }
            return startLesson(next)
        case .lesson(let number):
            guard number <= count else { throw .command(ErrorCode.invalidArgument, "the tour has \(count) lessons, not \(number)") }
            return startLesson(number - 1)
        }
    }

    private func startLesson(_ index: Int) -> CommandResult {
        let directory = state.tour?.directory ?? Self.tourDirectory()
        var progress = state.tour ?? Tour(lesson: index, directory: directory)
        progress.begin(index, serverData: tourServerData)
        state.tour = progress
        if TourLesson.all[index].topic == "rules" { writeTourRules(in: directory) }
        return .report(text: lessonText(index), json: lessonJSON(index))
    }

    /// The server's data at `path`.
    private func tourServerData(_ path: Path) -> Node {
        ember.administration?.data(for: .default(at: path)) ?? .empty
    }

    /// A directory of the tour's own (the rules file of the last lesson).
    private static func tourDirectory() -> String {
        let directory = NSTemporaryDirectory() + "ember-tour-\(getpid())"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    private func writeTourRules(in directory: String) {
        let rules = """
            {
              // The tour's rules: signed-in users read, and each writes only below /users/THEIR-UID.
              "rules": {
                ".read": true,
                "users": { "$uid": { ".write": "$uid === auth.uid" } },
                "dinos": { ".write": true }, "counter": { ".write": true }, "presence": { ".write": true }
              }
            }
            """
        try? rules.write(toFile: directory + "/rules.json", atomically: true, encoding: .utf8)
    }

    /// The tour's text wrapped to the terminal's width (24 to 100 columns).
    private var tourLayout: HelpLayout { HelpLayout(width: max(24, min(100, TerminalOutput.screenColumns()))) }

    /// A lesson as the learner reads it, wrapped to the terminal's width.
    private func lessonText(_ index: Int) -> String {
        let lesson = TourLesson.all[index]
        let layout = tourLayout
        var lines = [style.bold("tour \(index + 1)/\(TourLesson.all.count): \(lesson.title)")]
        lines += layout.paragraph(lesson.explanation)
        lines.append("try:")
        // Commands are shown whole, never wrapped: they are typed as they are.
        lines += tries(of: lesson).map { "  " + $0 }
        lines += layout.paragraph(style.dim("(help \(lesson.topic) explains more; tour N goes to lesson N; tour stop ends the tour)"))
        return lines.joined(separator: "\n")
    }

    private func tries(of lesson: TourLesson) -> [String] {
        lesson.tries.map { $0.replacingOccurrences(of: "RULES", with: (state.tour?.directory ?? "DIR") + "/rules.json") }
    }

    private func lessonJSON(_ index: Int) -> JSONValue {
        let lesson = TourLesson.all[index]
        return .object([
            ("lesson", .int(Int64(index + 1))), ("title", .string(lesson.title)), ("explanation", .string(lesson.explanation)),
            ("try", .array(tries(of: lesson).map(JSONValue.string))),
        ])
    }

    /// After each command while the tour runs: notes what the command did, and checks the
    /// lesson; done, the next lesson starts; not yet, a hint.
    func tourAfter(_ command: Command?, source typedSource: String, failure: String?) {
        guard var progress = state.tour else { return }
        switch command {
        case .tour?, .help?, .exit?: return
        default: break
        }
        if let failure {
            progress.errors.append(failure)
            if failure == ErrorCode.permissionDenied && progress.usersAtDenial == nil {
                progress.usersAtDenial = tourServerData(Path(unchecked: "users"))
            }
        }
        if state.tracedClients != nil { progress.traced = true }
        let clients = ember.clientNames.map { ember.client($0) }
        if clients.contains(where: { !$0.connectionState.isConnected && $0.pendingWriteCount > 0 }) { progress.queuedOffline = true }
        progress.presenceSeen.formUnion(tourServerData(TourLesson.presenceRoot).children.map(\.key))
        state.tour = progress
        let lesson = TourLesson.all[progress.lesson]
        let observation = TourObservation(
            serverData: { [unowned self] in tourServerData($0) }, baseline: progress.baseline,
            watches: state.watches.values.sorted { $0.id < $1.id }, events: progress.events, errors: progress.errors, traced: progress.traced,
            queuedOffline: progress.queuedOffline,
            allSettled: clients.allSatisfy { $0.connectionState.isConnected && $0.pendingWriteCount == 0 },
            rulesOpen: ember.administration?.rules.isOpen ?? true, presenceSeen: progress.presenceSeen, usersAtDenial: progress.usersAtDenial)
        guard let what = lesson.check(observation) else {
            // A step this lesson (or the one just done) asks for needs no word; anything else
            // gets a hint.
            let typed = typedSource.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            let expected = tries(of: lesson) + (progress.lesson > 0 ? tries(of: TourLesson.all[progress.lesson - 1]) : [])
            if !expected.contains(typed) {
                output.writeEvent(tourLayout.paragraph("tour \(progress.lesson + 1): not yet — \(lesson.hint)").map(style.dim).joined(separator: "\n") + "\n")
            }
            return
        }
        var text = style.ok("✓ lesson \(progress.lesson + 1) done: \(what)") + "\n"
        if progress.lesson + 1 < TourLesson.all.count {
            _ = startLesson(progress.lesson + 1)
            text += "\n" + lessonText(progress.lesson + 1) + "\n"
        } else {
            state.tour = nil
            text += tourLayout.paragraph(
                "That was the last lesson: you have seen every message and event a write, a listen, an offline queue, a transaction and an onDisconnect cause. help lists every command; view shows it all in a browser."
            ).joined(separator: "\n") + "\n"
        }
        output.writeEvent(text)
    }
}
