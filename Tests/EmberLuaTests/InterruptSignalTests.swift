import EmberEngine
import EmberLua
import Glibc
import Testing

/// SIGINT (Ctrl-C) reaching running Lua code through the C flag.
@Suite(.serialized) struct InterruptSignalTests {
    /// Sends SIGINT to the calling thread. Test threads come from a pool that blocks signals, so
    /// SIGINT is unblocked around `raise`, which then runs the handler before returning.
    private func sendInterruptToThisThread() -> Int32 {
        var interrupt = sigset_t()
        sigemptyset(&interrupt)
        sigaddset(&interrupt, SIGINT)
        var previous = sigset_t()
        pthread_sigmask(SIG_UNBLOCK, &interrupt, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        return raise(SIGINT)
    }

    @Test func sigintInterruptsOnlyObservingStates() throws {
        try InterruptSignal.install()
        InterruptSignal.clear()
        defer { InterruptSignal.clear() }
        #expect(!InterruptSignal.isPending)

        #expect(sendInterruptToThisThread() == 0)
        #expect(InterruptSignal.isPending)

        // the instruction limit only keeps a failing test from hanging
        let observing = try LuaState(
            configuration: LuaConfiguration(instructionLimit: 10_000_000, observesInterruptSignal: true))
        let error = try #require(throws: LuaError.self) {
            try observing.run(chunk: "while true do end", name: "=loop")
        }
        #expect(error.kind == .interrupted)
        #expect(error.message == "loop:1: interrupted")

        let ignoring = try LuaState()
        #expect(try ignoring.run(chunk: "local n = 0 for i = 1, 1e5 do n = n + 1 end return n", name: "=test") == [
            .integer(100_000)
        ])

        // the shell clears the flag once it has handled the Ctrl-C
        InterruptSignal.clear()
        #expect(try observing.run(chunk: "return 'after'", name: "=test") == [.string("after")])
    }

    /// Issue 18, item 8: an endless `__gc` ignored Ctrl-C, even at exit (finalizers run with the
    /// hooks off). Closing the state here would never return without the fix.
    @Test func sigintStopsAnEndlessFinalizerAtClose() throws {
        try InterruptSignal.install()
        InterruptSignal.clear()
        defer { InterruptSignal.clear() }
        do {
            let lua = try LuaState(configuration: LuaConfiguration(observesInterruptSignal: true))
            try lua.run(chunk: "keep = setmetatable({}, {__gc = function() while true do end end})", name: "=gc")
            #expect(sendInterruptToThisThread() == 0)
        }
        #expect(InterruptSignal.isPending)
    }
}
