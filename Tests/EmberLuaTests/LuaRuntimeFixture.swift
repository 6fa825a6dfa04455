import EmberClient
import EmberCore
import EmberInstance
import EmberLua
import EmberTestSupport

/// A host that records what scripts ask of it.
final class RecordingHost: LuaHost {
    let ember: Ember
    var reports: [(error: LuaError, context: String)] = []
    var registered: [LuaCommand] = []
    var executed: [String] = []

    init(ember: Ember) {
        self.ember = ember
    }

    var currentDatabase: Database { ember.client(.main) }

    func execute(command: String) throws(LuaHostError) -> JSONValue {
        executed.append(command)
        if command == "fail" { throw LuaHostError(code: ErrorCode.unknownCommand, "'fail': unknown command") }
        return .object([("ran", .string(command))])
    }

    func register(_ command: LuaCommand) throws(LuaHostError) {
        if command.name == "get" { throw LuaHostError(code: ErrorCode.reservedName, "'get' is a built-in command") }
        registered.append(command)
    }

    func report(_ error: LuaError, context: String) {
        reports.append((error, context))
    }
}

/// A runtime over an in-memory instance on a virtual clock, with `print` recorded.
final class LuaRuntimeFixture {
    let clock = ManualClock()
    let ember: Ember
    let host: RecordingHost
    let runtime: LuaRuntime
    var printed: [String] = []

    init(configuration: LuaConfiguration = LuaConfiguration()) throws {
        ember = Ember(clock: clock, random: SeededRandom(seed: 7))
        host = RecordingHost(ember: ember)
        runtime = try LuaRuntime(ember: ember, configuration: configuration, host: host)
        runtime.lua.printHandler = { [unowned self] line in printed.append(line) }
        try ember.flush()
    }

    /// Runs `source` as a script in a fresh environment.
    @discardableResult
    func run(_ source: String, in environment: LuaEnvironment = .script(name: "test.lua", arguments: [])) throws(LuaError) -> [LuaReturnValue] {
        try runtime.run(source, name: "=test", in: environment)
    }
}
