import EmberEngine
import EmberCore
import EmberInstance
import EmberTestSupport
import EmberWire
import Testing

@Suite("In-process network")
struct InProcessNetworkTests {
    /// Everything one end received, rendered.
    final class Inbox<Message: Sendable> {
        var events: [String] = []
        init<Outgoing>(_ endpoint: InProcessEndpoint<Outgoing, Message>, at clock: ManualClock) {
            endpoint.onEvent = { [unowned self] event in
                switch event {
                case .received(let message): events.append("\(clock.now() % 100_000) \(message)")
                case .closed: events.append("\(clock.now() % 100_000) closed")
                }
            }
        }
    }

    let clock = ManualClock(1_700_000_000_000)

    func put(_ id: Int) -> ClientMessage {
        .put(requestID: id, path: "a", data: Node(.int(Int64(id))), hash: nil)
    }

    @Test("messages queue until the network is stepped, one delivery per step, in order")
    func stepping() {
        let network = InProcessNetwork(clock: clock)
        let link = network.connect()
        let server = Inbox(link.server, at: clock)
        link.client.send(put(1))
        link.client.send(put(2))
        #expect(server.events.isEmpty, "nothing is a direct call")
        #expect(network.engine.scheduledCount == 2)
        #expect(network.engine.step())
        #expect(server.events.count == 1)
        #expect(network.engine.step())
        #expect(!network.engine.step())
        #expect(server.events == ["0 \(put(1))", "0 \(put(2))"])
    }

    @Test("latency delays delivery until the clock reaches it, and never reorders")
    func latency() {
        let network = InProcessNetwork(clock: clock)
        let link = network.connect(latency: 50)
        let server = Inbox(link.server, at: clock)
        link.client.send(put(1))
        link.latency = 10
        link.client.send(put(2))
        #expect(deliverDue(network) == 0)
        #expect(network.engine.nextDueTime == clock.now() + 50)
        clock.advance(by: 49)
        #expect(deliverDue(network) == 0)
        clock.advance(by: 1)
        #expect(deliverDue(network) == 2)
        #expect(server.events == ["50 \(put(1))", "50 \(put(2))"], "the faster second message waits for the first")
    }

    @Test("a clean close delivers what was sent, then tells the other end")
    func cleanClose() {
        let network = InProcessNetwork(clock: clock)
        let link = network.connect(latency: 5)
        let server = Inbox(link.server, at: clock)
        let client = Inbox(link.client, at: clock)
        link.client.send(put(1))
        link.close()
        link.client.send(put(2))
        link.server.send(.handshake(serverTime: 0))
        clock.advance(by: 5)
        network.engine.runDue()
        #expect(server.events == ["5 \(put(1))", "5 closed"])
        #expect(client.events.isEmpty, "the closing end hears nothing more")
        #expect(link.state == .closed)
    }

    @Test("the server can close a connection too")
    func serverClose() {
        let network = InProcessNetwork(clock: clock)
        let link = network.connect()
        let client = Inbox(link.client, at: clock)
        link.server.send(.handshake(serverTime: 7))
        link.server.close()
        network.engine.runDue()
        #expect(client.events == ["0 \(ServerMessage.handshake(serverTime: 7))", "0 closed"])
    }

    @Test("a silent drop loses what is in flight; the client hears at once, the server after its timeout")
    func silentDrop() {
        let network = InProcessNetwork(clock: clock)
        let link = network.connect(latency: 20, silentDropTimeout: 30_000)
        let server = Inbox(link.server, at: clock)
        let client = Inbox(link.client, at: clock)
        link.client.send(put(1))
        link.server.send(.handshake(serverTime: 1))
        link.drop()
        link.client.send(put(2))
        network.engine.runDue()
        #expect(client.events == ["0 closed"])
        #expect(server.events.isEmpty)
        clock.advance(by: 29_999)
        network.engine.runDue()
        #expect(server.events.isEmpty, "the server has not noticed yet")
        clock.advance(by: 1)
        network.engine.runDue()
        #expect(server.events == ["30000 closed"])
        #expect(link.state == .dropped)
        #expect(network.engine.scheduledCount == 0)
    }

    @Test("deliveries that send more are followed within one deliverDue")
    func chainedDeliveries() {
        let network = InProcessNetwork(clock: clock)
        let link = network.connect()
        var acks = 0
        link.server.onEvent = { event in
            if case .received(let message) = event { link.server.send(.ack(requestID: message.requestID, status: .ok())) }
        }
        link.client.onEvent = { event in
            if case .received(.ack(let id, _)) = event {
                acks += 1
                if id < 100 { link.client.send(.put(requestID: id + 1, path: "a", data: .empty, hash: nil)) }
            }
        }
        link.client.send(put(1))
        #expect(deliverDue(network) == 200)
        #expect(acks == 100)
    }
}

/// Write keys: the text form round-trips; anything else is an older, opaque key.
@Suite struct WriteKeyTests {
    @Test func keysParseAndPrint() {
        let key = WriteKey(writer: "k2x9.3fa1", sequence: 17)
        #expect(key.description == "k2x9.3fa1#17")
        #expect(WriteKey(parsing: "k2x9.3fa1#17") == key)
        // A writer past a small string's 15 bytes, and the largest sequence number.
        let long = "writer.with.a.long.name.0123456789"
        #expect(WriteKey(parsing: "\(long)#9223372036854775807") == WriteKey(writer: long, sequence: .max))
        #expect(WriteKey(parsing: String("x\(long)#42".dropFirst())) == WriteKey(writer: long, sequence: 42))
        for opaque in ["s:w1", "abc:t1,2", "#1", "a#", "a#0", "a#-1", "a b#1", "a#1x", "é#1", "a#99999999999999999999"] {
            #expect(WriteKey(parsing: opaque) == nil, "\(opaque)")
        }
    }
}

/// Runs everything due now, one piece at a time; how many pieces ran.
private func deliverDue(_ network: InProcessNetwork) -> Int {
    var count = 0
    while network.engine.step() { count += 1 }
    return count
}
