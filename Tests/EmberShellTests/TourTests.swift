import EmberTestSupport
import Foundation
import Testing

/// The guided tour at the prompt (a pseudo-terminal, issue 39, item 5): every lesson's answers
/// typed in turn take the learner through all eight, each checked by what happened; wrong answers
/// leave the lesson where it is, with a hint.
@Suite(.serialized)
struct TourTests {
    private func session(columns: Int = 80) throws -> (TerminalSession, String) {
        let home = try TemporaryDirectory.make("ember-tour").path
        let executable = EmberCommandLineTests.executable.path
        let environment = [
            "HOME": home, "XDG_STATE_HOME": home + "/state", "XDG_CONFIG_HOME": home + "/config", "TMPDIR": home,
            "TERM": "xterm", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "NO_COLOR": "1", "PAGER": "",
        ]
        let session = try TerminalSession(
            executable: executable, arguments: ["--memory", "-q", "--no-rc"], environment: environment, columns: UInt16(columns))
        #expect(session.waitFor(":/> "), "no prompt: \(session.screen)")
        return (session, home)
    }

    /// What to type for each lesson, in order (the rules file's path is read from the screen).
    static let answers: [[String]] = [
        ["set /dinos/rex {height: 5, length: 12}"],
        ["watch /dinos", "set /dinos/ptero {height: 1, length: 2}"],
        ["watch /dinos orderBy child height limitToLast 1", "set /dinos/brachio {height: 13, length: 26}"],
        ["trace on", "set /dinos/rex/height 6", "trace off"],
        ["offline", "set /dinos/rex/height 7", "inspect", "online"],
        ["transaction /counter function(v) return (v or 0) + 1 end", "as bob transaction /counter function(v) return (v or 0) + 1 end"],
        ["client alice", "set /presence/alice 'online'", "ondisconnect /presence/alice remove", "offline", "client main"],
        ["rules load RULES", "set /users/alice/name 'Alice'", "auth {uid: 'alice'}", "set /users/alice/name 'Alice'", "explain"],
    ]

    @Test("typing each lesson's answers goes through all eight lessons, each checked by what happened")
    func theWholeTour() throws {
        let (session, home) = try session()
        defer { try? FileManager.default.removeItem(atPath: home) }
        session.type("tour\r")
        #expect(session.waitFor("tour 1/8: The tree and paths"), "\(session.screen)")
        for (index, answers) in Self.answers.enumerated() {
            for answer in answers {
                var typed = answer
                if answer.contains("RULES") {
                    let path = try #require(session.screen.firstMatch(of: /rules load\s+(\S+rules\.json)/).map { String($0.output.1) }, "\(session.screen)")
                    typed = answer.replacingOccurrences(of: "RULES", with: path)
                }
                let mark = session.mark
                session.type(typed + "\r")
                #expect(session.waitFor(":/> ", after: mark), "lesson \(index + 1), '\(typed)': \(session.screen.suffix(1500))")
            }
            #expect(session.waitFor("✓ lesson \(index + 1) done"), "lesson \(index + 1) not done: \(session.screen.suffix(2500))")
            if index + 1 < Self.answers.count {
                #expect(session.waitFor("tour \(index + 2)/8"), "lesson \(index + 2) did not start: \(session.screen.suffix(1500))")
            }
        }
        #expect(session.waitFor("That was the last lesson"), "\(session.screen.suffix(1500))")
        #expect(!session.screen.contains("not yet"), "a step of the lessons got a hint: \(session.screen)")
        session.type("exit\r")
        #expect(session.waitForExit() == 0)
    }

    @Test("wrong answers leave the lesson where it is, with a hint; tour N starts lesson N; it fits a narrow terminal")
    func wrongAnswers() throws {
        let (session, home) = try session(columns: 40)
        defer { try? FileManager.default.removeItem(atPath: home) }
        session.type("tour\r")
        #expect(session.waitFor("tour 1/8"))
        session.type("set /x 1\r")
        #expect(session.waitFor("tour 1: not yet"), "\(session.screen)")
        session.type("set /dinos 'a leaf, not an object'\r")
        #expect(session.waitFor("ok"))
        session.type("tour 3\r")
        #expect(session.waitFor("tour 3/8: Queries"), "\(session.screen)")
        session.type("watch /dinos\r")
        session.type("set /dinos/rex {height: 5}\r")
        #expect(session.waitFor("tour 3: not yet"), "\(session.screen)")
        session.type("tour 9\r")
        #expect(session.waitFor("the tour has 8 lessons, not 9"))
        session.type("tour stop\r")
        #expect(session.waitFor("tour stopped"))
        let lines = session.screen.replacingOccurrences(of: "\r", with: "").split(separator: "\n")
        let lesson = lines.filter { $0.hasPrefix("A query orders") || $0.hasPrefix("The database is one") }
        #expect(!lesson.isEmpty && lesson.allSatisfy { $0.count <= 40 }, "the lessons are wrapped to 40 columns: \(lesson)")
        #expect(!session.screen.contains("✓ lesson"), "a wrong answer passed: \(session.screen)")
        session.type("exit\r")
        #expect(session.waitForExit() == 0)
    }
}
