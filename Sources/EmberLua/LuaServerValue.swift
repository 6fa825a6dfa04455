import EmberCore

/// A server value placeholder a script writes (`ember.ServerValue.TIMESTAMP`,
/// `ember.ServerValue.increment(n)`): the server replaces it when it applies the write.
final class LuaServerValue: Sendable {
    /// Its JSON form: `{".sv": "timestamp"}` or `{".sv": {"increment": n}}`.
    let json: JSONValue

    /// What `tostring` shows.
    let label: String

    /// A placeholder with its JSON form and label.
    init(json: JSONValue, label: String) {
        self.json = json
        self.label = label
    }

    /// `ember.ServerValue.TIMESTAMP`.
    static let timestamp = LuaServerValue(json: .object([(".sv", .string("timestamp"))]), label: "ember.ServerValue.TIMESTAMP")

    /// `ember.ServerValue.increment(delta)`.
    static func increment(_ delta: JSONValue) -> LuaServerValue {
        LuaServerValue(
            json: .object([(".sv", .object([("increment", delta)]))]),
            label: "ember.ServerValue.increment(\(delta.serialized()))")
    }
}
