import EmberCore

/// One step of a SyncPoint spec case: an operation on the sync tree and the events it must return.
public struct SyncPointSpecStep: Sendable, Equatable {
    /// What the step does.
    public var action: Action
    /// The step's `.comment`, if any (shown in failure messages, otherwise ignored).
    public var comment: String?
    /// The events the step expects, in the fixture's order.
    public var events: [SyncPointSpecEvent]

    public init(action: Action, comment: String? = nil, events: [SyncPointSpecEvent]) {
        self.action = action
        self.comment = comment
        self.events = events
    }

    /// The step's `type` as the fixture spells it.
    public var type: String { action.typeName }

    /// An operation of the spec; paths are relative to the run's base path.
    public enum Action: Sendable, Equatable {
        /// Add a listener (a new one, or the one an earlier step created with `callbackID`) for
        /// the query at `path`; `query` is `nil` for the default query.
        case listen(path: Path, query: Query?, callbackID: Int?)
        /// Remove the listener created with `callbackID` from the default query at `path`.
        case unlisten(path: Path, callbackID: Int)
        /// The server overwrites `path`; tagged with the fixture's number of a filtered query.
        case serverUpdate(path: Path, data: Node, tag: Int?)
        /// The server merges `changes` (relative paths) at `path`; tagged as for updates.
        case serverMerge(path: Path, changes: [Change], tag: Int?)
        /// A user overwrite, taking the next write id; a hidden one raises no events.
        case set(path: Path, data: Node, visible: Bool)
        /// A user merge of `changes` (relative paths), taking the next write id.
        case update(path: Path, changes: [Change])
        /// The server confirms (or, with `revert`, rejects) write number `writeID`.
        case ackUserWrite(writeID: Int, revert: Bool)
        /// A no-op that only carries (empty) expected events.
        case suppressWarning

        /// The step type as the fixture spells it.
        public var typeName: String {
            switch self {
            case .listen: "listen"
            case .unlisten: "unlisten"
            case .serverUpdate: "serverUpdate"
            case .serverMerge: "serverMerge"
            case .set: "set"
            case .update: "update"
            case .ackUserWrite: "ackUserWrite"
            case .suppressWarning: "suppressWarning"
            }
        }

        /// The step's path, relative to the base path; `nil` for steps without one.
        public var path: Path? {
            switch self {
            case .listen(let path, _, _), .unlisten(let path, _), .serverUpdate(let path, _, _),
                .serverMerge(let path, _, _), .set(let path, _, _), .update(let path, _):
                path
            case .ackUserWrite, .suppressWarning:
                nil
            }
        }
    }

    /// The parameters of a listen step, and the tag the fixture expects its query to get.
    public struct Query: Sendable, Equatable {
        /// The query's order, range and limit, built in the fixed order orderBy*, start, end,
        /// equalTo, limitToFirst, limitToLast.
        public var params: QueryParams
        /// The fixture's `params.tag`: the tag the engine should give the query when it is
        /// filtered (meaningless for queries that load all data).
        public var tag: Int

        public init(params: QueryParams, tag: Int) {
            self.params = params
            self.tag = tag
        }
    }

    /// One member of a merge: a path relative to the merge's location and the value put there.
    public struct Change: Sendable, Equatable {
        /// Where the value goes, relative to the merge's location (a fixture key may hold `/`).
        public var path: Path
        /// The value (empty deletes).
        public var node: Node

        public init(path: Path, node: Node) {
            self.path = path
            self.node = node
        }
    }
}
