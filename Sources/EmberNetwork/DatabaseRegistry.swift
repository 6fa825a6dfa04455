import EmberCore
import EmberInstance
import EmberNetworkShared
import EmberRules
import EmberStorage
import Synchronization

/// The namespaces `ember serve` has opened, each a ``ServedDatabase``, opened on first use.
/// Thread-safe: any event loop may ask for a namespace.
///
/// A namespace that does not exist is created only for a use that may create it
/// (``NamespaceUse``: the administrator's write, `--ns`, or anyone's connection or write where
/// no rules are put in force); any other request on it is answered by one shared database in
/// memory, empty, under the same rules, that refuses every write (``Server/writesRefused``):
/// it reads as Firebase reads an empty database and leaves no directory behind.
public final class DatabaseRegistry: Sendable {
    /// Where new namespaces are opened; `nil` when the registry serves one database only.
    private let storage: ServeStorage?
    private let defaultNamespace: String
    private let rules: Ruleset?
    private let maxNamespaces: Int
    private let databases = Mutex<[String: ServedDatabase]>([:])
    /// The database of the namespaces that do not exist (made on first use).
    private let absent = Mutex<ServedDatabase?>(nil)
    /// What ends each stream and connection attached to ``absent`` for a namespace, by name and
    /// number, run when the namespace is created: its clients connect again and find it.
    private let waiting = Mutex<(next: Int, byName: [String: [Int: @Sendable () -> Void]])>((0, [:]))

    init(storage: ServeStorage, defaultNamespace: String, rules: Ruleset?, maxNamespaces: Int) {
        self.storage = storage
        self.defaultNamespace = defaultNamespace
        self.rules = rules
        self.maxNamespaces = maxNamespaces
    }

    /// Whether rules were put in force (`--rules`): then only the administrator learns which
    /// namespaces exist (``RESTResponder``'s `/.inspect/databases`).
    var rulesInForce: Bool { rules.map { !$0.isOpen } ?? false }

    /// A registry of `database` alone (a shell's, served on its local socket): requests that
    /// name another namespace are refused.
    init(only database: ServedDatabase) {
        storage = nil
        defaultNamespace = database.namespace
        rules = nil
        maxNamespaces = 1
        databases.withLock { $0[database.namespace] = database }
    }

    /// The database of namespace `name` (the default one for `nil`), opened if it exists and is
    /// not open yet, created if it does not exist and `use` may create it, else the empty
    /// database that refuses writes.
    /// - Throws: ``NetworkError`` when the name is not a namespace name, too many namespaces
    ///   are open, or the database cannot be opened.
    public func database(named name: String?, for use: NamespaceUse) throws(NetworkError) -> ServedDatabase {
        let name = name ?? defaultNamespace
        guard RemoteAddress.isValidNamespace(name) else {
            throw NetworkError(.badRequest, "\"\(name)\" is not a namespace name: 1 to 63 letters, digits, '-' or '_'")
        }
        var created = false
        defer { if created { endWaiting(for: name) } }
        let result: Result<ServedDatabase, NetworkError> = databases.withLock { databases in
            if let database = databases[name] { return .success(database) }
            guard let storage else {
                return .failure(NetworkError(.notFound, "this server holds the namespace \"\(defaultNamespace)\" only"))
            }
            guard storage.holds(name, defaultNamespace: defaultNamespace) || use.creates(openRules: rules == nil) else {
                return absentDatabase(name)
            }
            guard databases.count < maxNamespaces else {
                return .failure(NetworkError(.unavailable, "this server holds at most \(maxNamespaces) namespaces"))
            }
            do throws(StoreError) {
                let database = try ServedDatabase(
                    namespace: name, persistence: storage.persistence(of: name, defaultNamespace: defaultNamespace), rules: rules)
                databases[name] = database
                created = true
                return .success(database)
            } catch {
                return .failure(NetworkError(.unavailable, "the namespace \"\(name)\" cannot be opened: \(error.message)"))
            }
        }
        return try result.get()
    }

    /// The database that answers for namespaces that do not exist, made on first use.
    private func absentDatabase(_ name: String) -> Result<ServedDatabase, NetworkError> {
        absent.withLock { absent in
            if let absent { return .success(absent) }
            do throws(StoreError) {
                let database = try ServedDatabase(
                    namespace: "(none)", persistence: .memory, rules: rules,
                    writesRefused: "this namespace does not exist: only the administrator creates one (a write over REST, or ember serve --ns)")
                absent = database
                return .success(database)
            } catch {
                return .failure(NetworkError(.unavailable, "the namespace \"\(name)\" cannot be opened: \(error.message)"))
            }
        }
    }

    /// For a connection to `database`, asked for namespace `name`: when `database` answers for
    /// namespaces that do not exist, what creates `name` as its administrator asks (`true`
    /// once it exists); otherwise `nil`.
    func creator(of name: String?, for database: ServedDatabase) -> (@Sendable () -> Bool)? {
        guard absent.withLock({ $0 === database }) else { return nil }
        return { [self] in
            guard let created = try? self.database(named: name, for: .write(byAdministrator: true)) else { return false }
            return absent.withLock { $0 !== created }
        }
    }

    /// Registers `end`, which ends a stream or connection on `database` asked for namespace
    /// `name`, to run when the namespace is created, when `database` is the one that answers
    /// for namespaces that do not exist (a stream would otherwise stay on the empty database,
    /// blind to the namespace's data). Forget it with ``forget(_:)`` when the stream ends.
    /// - Returns: its number, or `nil` (nothing registered) for a namespace that exists.
    func endOnCreation(of name: String?, for database: ServedDatabase, _ end: @escaping @Sendable () -> Void) -> (name: String, number: Int)? {
        guard absent.withLock({ $0 === database }) else { return nil }
        let name = name ?? defaultNamespace
        let number = waiting.withLock { waiting in
            waiting.next += 1
            waiting.byName[name, default: [:]][waiting.next] = end
            return waiting.next
        }
        // Created meanwhile: end it now.
        if databases.withLock({ $0[name] != nil }) { endWaiting(for: name) }
        return (name, number)
    }

    /// Forgets what ``endOnCreation(of:for:_:)`` registered (the stream ended by itself).
    func forget(_ registration: (name: String, number: Int)?) {
        guard let registration else { return }
        waiting.withLock { waiting in
            waiting.byName[registration.name]?[registration.number] = nil
            if waiting.byName[registration.name]?.isEmpty == true { waiting.byName[registration.name] = nil }
        }
    }

    /// Ends what waits on namespace `name`, which now exists.
    private func endWaiting(for name: String) {
        let ends = waiting.withLock { $0.byName.removeValue(forKey: name) } ?? [:]
        for end in ends.values { end() }
    }

    /// The names of the namespaces open now, sorted.
    public var names: [String] { databases.withLock { $0.keys.sorted() } }

    /// Closes every database (commits and closes its store); the registry is empty after.
    /// - Returns: the errors met, by namespace.
    func closeAll() -> [(String, StoreError)] {
        let open = databases.withLock { databases in
            defer { databases = [:] }
            return databases
        }
        if let database = absent.withLock({ $0 }) { try? database.close() }
        var failures: [(String, StoreError)] = []
        for (name, database) in open.sorted(by: { $0.key < $1.key }) {
            do throws(StoreError) {
                try database.close()
            } catch {
                failures.append((name, error))
            }
        }
        return failures
    }

}
