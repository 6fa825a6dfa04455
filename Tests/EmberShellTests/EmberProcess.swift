import EmberTestSupport
import Foundation

/// The built `ember` run as a process, as a user runs it, with a home that holds no
/// configuration: the shell tests' settings for ``ChildProcess``.
enum EmberProcess {
    /// The built `ember`, next to the test executable.
    static var executable: URL { ServeProcess.executable }

    /// Starts `ember` with `arguments`, its standard input `input`; `environment` is set on top
    /// of the home without configuration.
    static func start(
        _ arguments: [String], input: ChildProcess.Input = .none, environment extra: [String: String] = [:]
    ) throws -> ChildProcess {
        try ChildProcess.start([executable.path] + arguments, environment: environment(extra), input: input)
    }

    /// Runs `ember` with `arguments` to the end; returns its status, stdout and stderr.
    static func run(_ arguments: [String], environment extra: [String: String] = [:]) -> ChildProcess.Result {
        ChildProcess.run([executable.path] + arguments, environment: environment(extra))
    }

    /// `HOME` a directory that holds no configuration, no XDG directories, then `extra`.
    private static func environment(_ extra: [String: String]) -> [String: String?] {
        var environment: [String: String?] = ["HOME": "/home/ada", "XDG_DATA_HOME": nil, "XDG_CONFIG_HOME": nil]
        for (name, value) in extra { environment[name] = value }
        return environment
    }
}
