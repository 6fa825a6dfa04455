import EmberClient
import EmberCore
import EmberInstance
import EmberQL
import EmberWire

/// `trace`: every realtime protocol message between a client and the server as it crosses,
/// printed above the prompt in order with the events it causes.
extension Shell {
    func trace(_ action: TraceAction) throws(ShellError) -> CommandResult {
        switch action {
        case .show:
            break
        case .off:
            state.tracedClients = nil
        case .on(let scope):
            switch scope {
            case .all:
                state.tracedClients = .all
            case .currentClient:
                state.tracedClients = adding(state.clientOverride ?? state.currentClient)
            case .client(let word):
                let name: ClientName
                do {
                    name = try ClientName(validating: word.text)
                } catch {
                    throw .database(error, at: word.position)
                }
                state.tracedClients = adding(name)
            }
        }
        watchProtocolMessages()
        let json = JSONValue.object([
            ("trace", state.tracedClients.map { traced -> JSONValue in
                switch traced {
                case .all: .string("all")
                case .clients(let clients): .array(clients.map(\.rawValue).sorted().map(JSONValue.string))
                }
            } ?? .bool(false)),
        ])
        guard let tracedClients = state.tracedClients else { return .report(text: "trace is off", json: json) }
        return .report(
            text: "tracing the protocol messages of \(tracedClients.description): → to the server, ← from it (trace off stops)",
            json: json)
    }

    /// The traced clients with `client` added.
    private func adding(_ client: ClientName) -> TracedClients {
        switch state.tracedClients {
        case .all: .all
        case .clients(let clients): .clients(clients.union([client]))
        case nil: .clients([client])
        }
    }

    /// Hears the protocol's messages while `trace` prints them or the viewer shows them, and
    /// only then (an embedded client's messages are encoded only for them).
    func watchProtocolMessages() {
        guard state.tracedClients != nil || viewer != nil else {
            ember.onProtocolMessage = nil
            return
        }
        ember.onProtocolMessage = { [weak self] client, direction, text in
            self?.protocolMessage(client: client, direction: direction, text: text)
        }
    }

    /// One message: kept for the viewer, printed if its client is traced.
    func protocolMessage(client: ClientName, direction: ProtocolDirection, text: String) {
        if viewer != nil { state.protocolLog.append(client: client, direction: direction, text: text, at: ember.clock.now()) }
        guard let tracedClients = state.tracedClients, tracedClients.includes(client) else { return }
        let summary = ProtocolSummary(client: client.rawValue, direction: direction, text: text)
        if renderer.mode == .json {
            output.writeEvent(
                JSONValue.object([
                    ("trace", .string(direction.rawValue)), ("client", .string(client.rawValue)), ("message", summary.message),
                ]).serialized() + "\n")
        } else {
            output.writeEvent(summary.text + "\n")
        }
    }
}
