import EmberClient
import EmberCore
import EmberSync

/// One lesson of the tour: what it explains, what to try, and how it knows the learner did it.
struct TourLesson: Sendable {
    /// The `help` topic that explains the same.
    let topic: String
    let title: String
    /// A few lines of explanation.
    let explanation: String
    /// The commands to type, in order.
    let tries: [String]
    /// Whether what happened shows the lesson done (`nil`: not yet), and what it was.
    let check: @Sendable (TourObservation) -> String?
    /// What to say when a command did not do it yet.
    let hint: String

    /// The lessons, in order (`tour N` starts at lesson N).
    static let all: [TourLesson] = [paths, events, queries, writes, offline, transactions, presence, rules]

    static let dinos = Path(unchecked: "dinos")

    static let paths = TourLesson(
        topic: "paths", title: "The tree and paths",
        explanation: "The database is one JSON tree. Every value has a path: /dinos/rex/height is the height below rex below dinos. Writing at a path replaces what is there; reading a path gives everything below it. Objects nest; there are no arrays or tables to declare.",
        tries: ["set /dinos/rex {height: 5, length: 12}", "get /dinos", "ls /dinos"],
        check: { seen in
            let dinos = seen.serverData(dinos)
            guard let object = dinos.children.first(where: { !$0.node.isLeaf }) else { return nil }
            return "the server holds /dinos/\(object.key) with \(object.node.childCount) children"
        },
        hint: "write an object below /dinos, such as set /dinos/rex {height: 5, length: 12}")

    static let events = TourLesson(
        topic: "events", title: "Listeners and events",
        explanation: "A listener (watch) hears events as the data changes: child_added, child_changed, child_removed and child_moved for the children, value for the whole. Each event line ends with its client and why it happened: local (this client's own write, shown before the server answers) or server (someone else's, or the server's answer).",
        tries: ["watch /dinos", "set /dinos/ptero {height: 1, length: 2}"],
        check: { seen in
            let before = seen.baseline[dinos] ?? .empty
            guard seen.watches.contains(where: { $0.path == dinos }) else { return nil }
            guard let added = seen.events.first(where: {
                $0.type == .childAdded && $0.path.parent == dinos && $0.path.back.map { !before.hasChild($0) } == true
            }) else { return nil }
            return "your watch heard child_added \(added.path) (\(added.origin.rawValue))"
        },
        hint: "watch /dinos, then add a dinosaur: set /dinos/ptero {height: 1, length: 2}")

    static let queries = TourLesson(
        topic: "query", title: "Queries",
        explanation: "A query orders children (by key, value, priority or a child's value), keeps a range and the first or last N. A watch on a query hears children enter its window (child_added) and leave it (child_removed) as the data changes.",
        tries: ["watch /dinos orderBy child height limitToLast 1", "set /dinos/brachio {height: 13, length: 26}"],
        check: { seen in
            let windows = seen.watches.filter { $0.path == dinos && !$0.query.isEmpty }
            guard !windows.isEmpty else { return nil }
            let before = seen.baseline[dinos] ?? .empty
            guard let entered = seen.events.first(where: { event in
                windows.contains { $0.id == event.watch } && event.type == .childAdded
                    && event.path.back.map { !before.hasChild($0) } == true
            }) else { return nil }
            return "\(entered.path) entered the query's window"
        },
        hint: "watch a query on /dinos (watch /dinos orderBy child height limitToLast 1), then add a taller dinosaur")

    static let writes = TourLesson(
        topic: "writes", title: "Optimistic writes and the acknowledgement",
        explanation: "A write shows at once on the client that makes it (its events say local): it is pending until the server acknowledges it. trace shows the messages: the put (→), the server's update to each listener (←), then the answer, ok. A write the server refuses is taken back: its events say rollback.",
        tries: ["trace on", "set /dinos/rex/height 6", "trace off"],
        check: { seen in
            guard seen.traced, seen.allSettled, let local = seen.events.first(where: { $0.origin == .local }) else { return nil }
            return "you saw \(local.path) change locally, then its messages cross and the server's ok"
        },
        hint: "trace on, then write where a watch listens (set /dinos/rex/height 6)")

    static let offline = TourLesson(
        topic: "offline", title: "Offline and the queue",
        explanation: "A client that loses its connection keeps working: its writes apply locally and wait in a queue, then go out in order when it is back. inspect shows the queue, and how the client's view differs from the server's meanwhile.",
        tries: ["offline", "set /dinos/rex/height 7", "inspect", "online"],
        check: { seen in
            guard seen.queuedOffline, seen.allSettled else { return nil }
            return "a write queued offline reached the server once the client was back"
        },
        hint: "go offline, write (set /dinos/rex/height 7), look with inspect, then online")

    static let counter = Path(unchecked: "counter")

    static let transactions = TourLesson(
        topic: "transactions", title: "Transactions and retries",
        explanation: "A transaction reads the value, computes the new one, and commits only if nobody wrote in between; otherwise it runs again on the newer value. Anything read-modify-write needs one: two clients incrementing a counter both count.",
        tries: ["transaction /counter function(v) return (v or 0) + 1 end", "as bob transaction /counter function(v) return (v or 0) + 1 end"],
        check: { seen in
            func number(_ node: Node) -> Int64 { if case .int(let value) = node.leafValue { value } else { 0 } }
            let before = number(seen.baseline[counter] ?? .empty), now = number(seen.serverData(counter))
            guard now >= before + 2 else { return nil }
            return "/counter went from \(before) to \(now)"
        },
        hint: "increment /counter with a transaction twice, once as bob")

    static let presenceRoot = Path(unchecked: "presence")

    static let presence = TourLesson(
        topic: "presence", title: "onDisconnect and presence",
        explanation: "onDisconnect registers a write the server makes when the client's connection ends, cleanly or silently (a dropped connection is noticed after the server's timeout). That is how presence works: a client marks itself online, and the server removes the mark when it goes.",
        tries: ["client alice", "set /presence/alice 'online'", "ondisconnect /presence/alice remove", "offline", "client main"],
        check: { seen in
            let now = seen.serverData(presenceRoot)
            guard let gone = seen.presenceSeen.first(where: { !now.hasChild($0) }) else { return nil }
            return "the server removed /presence/\(gone) when its client's connection ended"
        },
        hint: "mark a client online at /presence/NAME, register ondisconnect /presence/NAME remove, then take it offline")

    static let rules = TourLesson(
        topic: "rules", title: "Security rules and auth",
        explanation: "Rules decide who may read and write where. Each client acts as its user (auth): a refused write is taken back and fails with permission_denied; explain says which rule decided. The tour wrote a rules file where each user writes only below /users/THEIR-UID.",
        tries: ["rules load RULES", "set /users/alice/name 'Alice'", "auth {uid: 'alice'}", "set /users/alice/name 'Alice'", "explain"],
        check: { seen in
            // A write refused, then one below /users let through: the data changed since.
            guard !seen.rulesOpen, let before = seen.usersAtDenial else { return nil }
            let users = seen.serverData(Path(unchecked: "users"))
            guard users != before, let user = users.children.first(where: { $0.node != before.child($0.key) }) else { return nil }
            return "the rules refused a write, then let \(user.key) write below /users/\(user.key)"
        },
        hint: "load the rules, see a write refused, then sign in with auth {uid: 'alice'} and write a new value below /users/alice")
}
