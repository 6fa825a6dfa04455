import EmberCore
import EmberWire

/// An onDisconnect registration or cancellation the user made, waiting to be sent or answered.
struct OnDisconnectRequest {
    /// What the server is asked to do when the connection ends.
    enum Operation {
        case put(Node)
        case merge([WireChange])
        case cancel
    }

    let path: Path
    let operation: Operation
    /// Called once with the server's answer (`nil`: registered).
    let completion: (DatabaseError?) -> Void

    func message(requestID: Int) -> ClientMessage {
        switch operation {
        case .put(let node): .onDisconnectPut(requestID: requestID, path: path, data: node)
        case .merge(let changes): .onDisconnectMerge(requestID: requestID, path: path, changes: changes)
        case .cancel: .onDisconnectCancel(requestID: requestID, path: path)
        }
    }
}
