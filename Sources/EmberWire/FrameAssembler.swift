/// Puts a message split over several WebSocket frames back together: a frame of at most six
/// digits announces how many frames follow (firebase-js-sdk `WebSocketConnection.ts`,
/// `handleIncomingFrame` and `extractFrameCount_`). A value type: feed it frames, it returns
/// whole messages.
public struct FrameAssembler: Sendable {
    /// How many frames the message being assembled still needs.
    private var remaining = 0
    private var parts: [String] = []
    /// The longest message assembled, in UTF-8 bytes; longer ones are refused.
    public let maxMessageSize: Int
    private var size = 0

    /// What a frame completed.
    public enum Outcome: Sendable, Equatable {
        /// A whole message.
        case message(String)
        /// Part of a message: wait for more frames.
        case incomplete
        /// The message grew past ``maxMessageSize``.
        case tooLarge
    }

    public init(maxMessageSize: Int) {
        self.maxMessageSize = maxMessageSize
    }

    /// Takes the next frame.
    /// - Complexity: O(n) in the frame's length; O(m) in the message's when it completes.
    public mutating func take(_ frame: String) -> Outcome {
        if remaining > 0 {
            size += frame.utf8.count
            if size > maxMessageSize {
                remaining = 0
                parts = []
                return .tooLarge
            }
            parts.append(frame)
            remaining -= 1
            guard remaining == 0 else { return .incomplete }
            let message = parts.joined()
            parts = []
            return .message(message)
        }
        if frame.utf8.count <= 6, let count = Int(frame), count > 0 {
            // "0" is the keep-alive, not a count.
            if count == 1 { remaining = 1; size = 0; return .incomplete }
            remaining = count
            size = 0
            return .incomplete
        }
        if frame.utf8.count > maxMessageSize { return .tooLarge }
        return .message(frame)
    }
}
