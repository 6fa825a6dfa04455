import EmberClient
import EmberCore

/// References (`db:ref(path)`) and queries: navigation, query modifiers, and the reading and
/// listening methods both have.
extension LuaRuntime {
    /// A reference: `ref.key`, `ref.path`, navigation, writes, and every query method.
    func referenceDefinition() -> LuaTypeDefinition {
        var definition = LuaTypeDefinition(type: .reference, prefix: "ref")
        definition.fields = [
            ("key", { call throws(LuaBindingError) in
                call.push(try call.reference(at: 1).key)
                return .values(1)
            }),
            ("path", { call throws(LuaBindingError) in
                call.push(try call.reference(at: 1).path.description)
                return .values(1)
            }),
        ]
        definition.methods = [
            ("parent", { call throws(LuaBindingError) in
                if let parent = try call.reference(at: 1).parent { call.push(parent) } else { call.pushNil() }
                return .values(1)
            }),
            ("root", { call throws(LuaBindingError) in
                call.push(try call.reference(at: 1).root)
                return .values(1)
            }),
            ("child", { call throws(LuaBindingError) in
                let reference = try call.reference(at: 1)
                let path = try call.string(at: 2, expected: "a path")
                call.push(try call.attempt { () throws(DatabaseError) in try reference.child(path) })
                return .values(1)
            }),
            ("onDisconnect", { call throws(LuaBindingError) in
                call.push(object: LuaBox(try call.reference(at: 1).onDisconnect()), as: .onDisconnect)
                return .values(1)
            }),
            ("transaction", { call throws(LuaBindingError) in try call.runtime.transaction(call) }),
        ] + writeMethods() + queryMethods()
        definition.returns = Self.queryReturns.merging(
            ["parent": .reference, "root": .reference, "child": .reference, "onDisconnect": .onDisconnect, "push": .reference]
        ) { $1 }
        definition.metamethods = [
            ("__tostring", { call throws(LuaBindingError) in
                call.push(Self.describe(try call.reference(at: 1)))
                return .values(1)
            }),
            ("__eq", { call throws(LuaBindingError) in
                let a = call.object(.reference, at: 1, as: LuaBox<Reference>.self)?.value
                let b = call.object(.reference, at: 2, as: LuaBox<Reference>.self)?.value
                call.push(a != nil && b != nil && a!.database === b!.database && a!.path == b!.path)
                return .values(1)
            }),
        ]
        return definition
    }

    /// A query: `query.ref`, `query.path`, `query.key`, and the query methods.
    func queryDefinition() -> LuaTypeDefinition {
        var definition = LuaTypeDefinition(type: .query, prefix: "query")
        definition.fields = [
            ("ref", { call throws(LuaBindingError) in
                call.push(try call.query(at: 1).reference)
                return .values(1)
            }),
            ("path", { call throws(LuaBindingError) in
                call.push(try call.query(at: 1).spec.path.description)
                return .values(1)
            }),
            ("key", { call throws(LuaBindingError) in
                call.push(try call.query(at: 1).spec.path.back?.name)
                return .values(1)
            }),
        ]
        definition.methods = queryMethods()
        definition.returns = Self.queryReturns.merging(["ref": .reference]) { $1 }
        definition.metamethods = [
            ("__tostring", { call throws(LuaBindingError) in
                call.push(Self.describe(try call.query(at: 1)))
                return .values(1)
            }),
        ]
        return definition
    }

    /// `Reference(/users)`, with the client when it is not "main": `Reference(bob:/users)`.
    static func describe(_ reference: Reference) -> String {
        let client = reference.database.name == .main ? "" : "\(reference.database.name):"
        return "Reference(\(client)\(reference.path))"
    }

    /// `Query(/scores orderByValue limitToLast 4)`.
    static func describe(_ query: Query) -> String {
        let client = query.database.name == .main ? "" : "\(query.database.name):"
        let params = query.spec.params.description
        return "Query(\(client)\(query.spec.path)\(params.isEmpty ? "" : " " + params))"
    }

    /// What the methods a reference and a query share give, for completion of chains: a query
    /// from each modifier, a snapshot from `get` and `once`, a listener from `on`.
    static let queryReturns: [String: LuaObjectType] = [
        "orderByKey": .query, "orderByValue": .query, "orderByPriority": .query, "orderByChild": .query,
        "limitToFirst": .query, "limitToLast": .query, "startAt": .query, "startAfter": .query, "endAt": .query,
        "endBefore": .query, "equalTo": .query, "get": .snapshot, "once": .snapshot, "on": .listener,
    ]

    /// The methods a reference and a query share: the modifiers, `get`, `once`, `on`, `off`,
    /// `keepSynced`.
    func queryMethods() -> [(name: String, body: LuaBinding)] {
        typealias Modifier = (Query, LuaCall) throws(LuaBindingError) -> Query
        func modifier(_ name: String, _ body: @escaping Modifier) -> (name: String, body: LuaBinding) {
            (name, { call throws(LuaBindingError) in
                call.push(try body(try call.query(at: 1), call))
                return .values(1)
            })
        }
        func bound(_ name: String, _ apply: @escaping (Query, LeafValue?, String?) throws(DatabaseError) -> Query) -> (name: String, body: LuaBinding) {
            modifier(name) { query, call throws(LuaBindingError) in
                let value = try call.leaf(at: 2)
                let key = try call.optionalString(at: 3)
                return try call.attempt { () throws(DatabaseError) in try apply(query, value, key) }
            }
        }
        return [
            modifier("orderByKey") { query, call throws(LuaBindingError) in try call.attempt { () throws(DatabaseError) in try query.orderByKey() } },
            modifier("orderByValue") { query, call throws(LuaBindingError) in try call.attempt { () throws(DatabaseError) in try query.orderByValue() } },
            modifier("orderByPriority") { query, call throws(LuaBindingError) in
                try call.attempt { () throws(DatabaseError) in try query.orderByPriority() }
            },
            modifier("orderByChild") { query, call throws(LuaBindingError) in
                let path = try call.string(at: 2, expected: "a child path")
                return try call.attempt { () throws(DatabaseError) in try query.orderByChild(path) }
            },
            modifier("limitToFirst") { query, call throws(LuaBindingError) in
                let count = try call.integer(at: 2, expected: "a count")
                return try call.attempt { () throws(DatabaseError) in try query.limitToFirst(Int(clamping: count)) }
            },
            modifier("limitToLast") { query, call throws(LuaBindingError) in
                let count = try call.integer(at: 2, expected: "a count")
                return try call.attempt { () throws(DatabaseError) in try query.limitToLast(Int(clamping: count)) }
            },
            bound("startAt") { query, value, key throws(DatabaseError) in try query.startAt(value, key: key) },
            bound("startAfter") { query, value, key throws(DatabaseError) in try query.startAfter(value, key: key) },
            bound("endAt") { query, value, key throws(DatabaseError) in try query.endAt(value, key: key) },
            bound("endBefore") { query, value, key throws(DatabaseError) in try query.endBefore(value, key: key) },
            bound("equalTo") { query, value, key throws(DatabaseError) in try query.equalTo(value, key: key) },
            ("get", { call throws(LuaBindingError) in try call.runtime.get(call) }),
            ("once", { call throws(LuaBindingError) in try call.runtime.once(call) }),
            ("on", { call throws(LuaBindingError) in try call.runtime.on(call) }),
            ("off", { call throws(LuaBindingError) in try call.runtime.off(call) }),
            ("keepSynced", { call throws(LuaBindingError) in
                let query = try call.query(at: 1)
                guard call.type(at: 2) == .boolean else { throw call.wrongType(at: 2, expected: "a boolean") }
                let on = call.thread.isTrue(at: 2)
                try call.attempt { () throws(DatabaseError) in try query.keepSynced(on) }
                return .values(0)
            }),
        ]
    }
}
