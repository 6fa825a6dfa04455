@testable import EmberClient
import Testing

@Suite("ConnectionStateMachine")
struct ConnectionStateMachineTests {
    @Test("connects, loses the connection, backs off with growing delays, reconnects")
    func backOff() {
        var machine = ConnectionStateMachine(policy: ReconnectPolicy(initialDelay: 1_000, maximumDelay: 2_000, multiplier: 1.5))
        #expect(machine.state == .offline)
        #expect(machine.handle(.goOnline) == [.openTransport])
        #expect(machine.state == .connecting)
        #expect(machine.handle(.handshake) == [.connectionEstablished])
        #expect(machine.state == .connected)
        #expect(machine.handle(.transportClosed(jitter: 1)) == [.connectionLost, .scheduleReconnect(delay: 1_000, generation: 1)])
        #expect(machine.state == .disconnected)
        #expect(machine.handle(.reconnectTimerFired(generation: 1)) == [.openTransport])
        // Failing to connect again: the delay grew by 1.5, jitter halves it at most.
        #expect(machine.handle(.transportClosed(jitter: 0)) == [.scheduleReconnect(delay: 750, generation: 2)])
        #expect(machine.handle(.reconnectTimerFired(generation: 2)) == [.openTransport])
        #expect(machine.handle(.transportClosed(jitter: 1)) == [.scheduleReconnect(delay: 2_000, generation: 3)])
        // A stale timer does nothing.
        #expect(machine.handle(.reconnectTimerFired(generation: 2)) == [])
        #expect(machine.handle(.reconnectTimerFired(generation: 3)) == [.openTransport])
        // A handshake resets the delay.
        #expect(machine.handle(.handshake) == [.connectionEstablished])
        #expect(machine.delay == 1_000)
    }

    @Test("going offline cancels the pending reconnection and closes what is open")
    func offline() {
        var machine = ConnectionStateMachine(policy: .standard)
        _ = machine.handle(.goOnline)
        _ = machine.handle(.handshake)
        #expect(machine.handle(.goOffline) == [.closeTransport, .connectionLost])
        #expect(machine.state == .offline)
        #expect(machine.handle(.transportClosed(jitter: 0.5)) == [])
        #expect(machine.handle(.goOnline) == [.openTransport])
        #expect(machine.handle(.transportClosed(jitter: 1)) == [.scheduleReconnect(delay: 1_000, generation: 1)])
        #expect(machine.handle(.goOffline) == [])
        #expect(machine.handle(.reconnectTimerFired(generation: 1)) == [])
        #expect(machine.state == .offline)
        // Going online twice opens one transport.
        #expect(machine.handle(.goOnline) == [.openTransport])
        #expect(machine.handle(.goOnline) == [])
        #expect(machine.handle(.goOffline) == [.closeTransport])
    }
}
