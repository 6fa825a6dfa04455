import EmberStorage
import Foundation

/// The `ember` shell session: what the executable hands off to after parsing the command line.
///
/// The REPL, the query language and the embedded instance are not built yet (issue 6). For now a
/// session says so and shows the settings it would run with, so that the command line can be
/// exercised end to end.
public struct Shell {
    /// The version `ember --version` prints.
    public static let version = "0.1.0-dev"

    /// The settings from the command line.
    public let options: ShellOptions

    /// Creates a session with `options`.
    public init(options: ShellOptions) {
        self.options = options
    }

    /// Runs the session and returns the process exit status: 0 success, 1 a command or script
    /// failed.
    public func run() -> Int32 {
        let environment = ProcessInfo.processInfo.environment
        print(report(environment: environment, outputIsTerminal: isatty(STDOUT_FILENO) == 1), terminator: "")
        return 0
    }

    /// The not-built-yet message followed by the settings, one per line.
    public func report(environment: [String: String], outputIsTerminal: Bool) -> String {
        func quoted(_ items: [String]) -> String {
            items.isEmpty ? "none" : items.map { "\"\($0)\"" }.joined(separator: ", ")
        }
        let rcFile = (environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? ".") + "/.config") + "/ember/init.lua"
        let settings: [(String, String)] = [
            ("database", options.databaseDirectory ?? "in memory (--memory)"),
            ("durability", options.durability.rawValue),
            ("clients start", options.startsOffline ? "offline" : "online"),
            ("commands (-c)", quoted(options.commands)),
            ("lua chunks (-e)", quoted(options.luaChunks)),
            ("file (-f)", options.file ?? "none"),
            ("script", options.script.map { "\($0) with arguments \(quoted(options.scriptArguments))" } ?? "none"),
            ("then", options.runsBatchOnly ? "exit" : "interactive REPL"),
            ("output", options.jsonOutput ? "json" : "pretty"),
            ("color", options.usesColor(environment: environment, outputIsTerminal: outputIsTerminal) ? "on" : "off"),
            ("rc file", options.loadsRCFile ? rcFile : "skipped (--no-rc)"),
            ("plugins", options.pluginDirectory ?? "default directory only"),
            ("lua libraries", options.unsafeLua ? "all (--unsafe-lua)" : "safe"),
            ("banner", options.quiet ? "off (-q)" : "on"),
        ]
        let width = settings.map(\.0.count).max() ?? 0
        var lines = ["ember \(Self.version): the shell is not built yet (issue 6). Parsed settings:"]
        for (name, value) in settings {
            lines.append("  " + name + ":" + String(repeating: " ", count: width - name.count + 1) + value)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
