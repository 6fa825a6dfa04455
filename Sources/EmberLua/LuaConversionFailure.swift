/// Why a value could not be converted between JSON and Lua, and where: the internal form of a
/// ``LuaError`` of kind ``LuaError/Kind/conversion``.
///
/// The path is collected while the recursion unwinds, innermost component first, so that the
/// successful path costs nothing.
struct LuaConversionFailure: Error {
    /// What was wrong with the value.
    enum Reason {
        /// A Lua value with no JSON form (its Lua type name: "function", "userdata", "thread").
        case notJSON(typeName: String)
        /// A float that is NaN or infinite.
        case notFinite(Double)
        /// A string whose bytes are not UTF-8.
        case invalidString
        /// A table key that is a string whose bytes are not UTF-8.
        case invalidStringKey
        /// A table key that is neither a string nor an integer (described as Lua shows it).
        case badKey(String)
        /// An integer key and a string key that name the same object member.
        case collidingKeys(Int64)
        /// A table that contains itself; the ancestor that repeats is this many levels down.
        case cycle(ancestorDepth: Int)
        /// Tables (or JSON containers) nested deeper than ``LuaState/maximumJSONDepth``.
        case tooDeep
    }

    /// What was wrong.
    let reason: Reason

    /// The keys from the root to the bad value, innermost first while unwinding.
    var reversedPath: [String] = []

    /// Creates a failure at the value being converted; callers add keys as they unwind.
    init(_ reason: Reason) {
        self.reason = reason
    }

    /// Returns the failure with `key` added in front of its path (called by the table holding
    /// the bad value).
    func inside(_ key: String) -> LuaConversionFailure {
        var failure = self
        failure.reversedPath.append(key)
        return failure
    }

    /// The message: "cannot convert the value at /a/b: a function is not JSON", or
    /// "cannot convert a cycle at /a: the table at / contains itself".
    ///
    /// - Parameter subject: what was converted when it is not the only value (e.g. "result 2"),
    ///   written before the message.
    func message(subject: String? = nil) -> String {
        let path = Array(reversedPath.reversed())
        let prefix = subject.map { "\($0): " } ?? ""
        let text: String =
            switch reason {
            case .cycle(let ancestorDepth):
                "cannot convert a cycle at \(Self.format(path)): the table at "
                    + "\(Self.format(path.prefix(ancestorDepth))) contains itself"
            case .notJSON(let typeName): "cannot convert the value at \(Self.format(path)): a \(typeName) is not JSON"
            case .notFinite(let number):
                "cannot convert the value at \(Self.format(path)): \(number) is not a JSON number"
            case .invalidString: "cannot convert the value at \(Self.format(path)): a string that is not UTF-8"
            case .invalidStringKey: "cannot convert the value at \(Self.format(path)): a key that is not UTF-8"
            case .badKey(let key):
                "cannot convert the value at \(Self.format(path)): the key \(key) is neither a string nor an integer"
            case .collidingKeys(let key):
                "cannot convert the value at \(Self.format(path)): the keys \(key) and \"\(key)\" name the same member"
            case .tooDeep:
                "cannot convert the value at \(Self.format(path)): "
                    + "nested deeper than \(LuaState.maximumJSONDepth) levels"
            }
        return prefix + text
    }

    /// The error to throw.
    func error(subject: String? = nil) -> LuaError {
        LuaError(.conversion, message: message(subject: subject))
    }

    /// A path as "/a/b" ("/" for the root).
    static func format(_ path: some Collection<String>) -> String {
        path.isEmpty ? "/" : path.map { "/" + $0 }.joined()
    }
}
