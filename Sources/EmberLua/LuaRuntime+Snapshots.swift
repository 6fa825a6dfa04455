import EmberClient
import EmberCore
import EmberSync

/// Snapshots: `snap.key`, `snap.ref`, `snap.origin`, `snap.client`, `val`, `exists`, `child`, `hasChild`, `hasChildren`,
/// `numChildren`, `children` and `forEach` (written in Lua over `childList`), `getPriority`,
/// `exportVal`, and `tostring` as pretty JSON.
extension LuaRuntime {
    func snapshotDefinition() -> LuaTypeDefinition {
        var definition = LuaTypeDefinition(type: .snapshot, prefix: "snap")
        definition.returns = ["child": .snapshot, "ref": .reference]
        definition.fields = [
            ("key", { call throws(LuaBindingError) in
                call.push(try call.snapshot(at: 1).key)
                return .values(1)
            }),
            ("ref", { call throws(LuaBindingError) in
                let snapshot = try call.snapshot(at: 1)
                guard let database = snapshot.database else { throw call.failure(code: ErrorCode.sessionEnded, "the snapshot's client is gone") }
                call.push(database.reference(snapshot.path))
                return .values(1)
            }),
            // Ember's: where a listener's event comes from ("local", "server", "rollback",
            // "cache"; nil for a read), and the client it belongs to.
            ("origin", { call throws(LuaBindingError) in
                call.push(try call.snapshot(at: 1).origin?.rawValue)
                return .values(1)
            }),
            ("client", { call throws(LuaBindingError) in
                call.push(try call.snapshot(at: 1).database?.name.rawValue)
                return .values(1)
            }),
        ]
        definition.methods = [
            ("val", { call throws(LuaBindingError) in
                try call.push(json: try call.snapshot(at: 1).value)
                return .values(1)
            }),
            ("exportVal", { call throws(LuaBindingError) in
                try call.push(json: try call.snapshot(at: 1).exportValue)
                return .values(1)
            }),
            ("exists", { call throws(LuaBindingError) in
                call.push(try call.snapshot(at: 1).exists)
                return .values(1)
            }),
            ("child", { call throws(LuaBindingError) in
                let snapshot = try call.snapshot(at: 1)
                let path = try call.string(at: 2, expected: "a path")
                call.push(try call.attempt { () throws(DatabaseError) in try snapshot.child(path) })
                return .values(1)
            }),
            ("hasChild", { call throws(LuaBindingError) in
                let snapshot = try call.snapshot(at: 1)
                let path = try call.string(at: 2, expected: "a path")
                call.push(try call.attempt { () throws(DatabaseError) in try snapshot.hasChild(path) })
                return .values(1)
            }),
            ("hasChildren", { call throws(LuaBindingError) in
                call.push(try call.snapshot(at: 1).hasChildren)
                return .values(1)
            }),
            ("numChildren", { call throws(LuaBindingError) in
                call.push(Int64(try call.snapshot(at: 1).childrenCount))
                return .values(1)
            }),
            ("getPriority", { call throws(LuaBindingError) in
                switch try call.snapshot(at: 1).priority?.leafValue {
                case nil: call.pushNil()
                case .int(let number): call.push(number)
                case .double(let number): call.thread.push(number)
                case .string(let text): call.push(text)
                case .bool, .deferred: call.pushNil()
                }
                return .values(1)
            }),
            ("childList", { call throws(LuaBindingError) in
                let children = try call.snapshot(at: 1).children
                call.thread.createTable(arrayCount: Int32(clamping: children.count))
                for (offset, child) in children.enumerated() {
                    call.push(child)
                    call.thread.rawSet(at: Int64(offset + 1), ofTableAt: -2)
                }
                return .values(1)
            }),
        ]
        definition.metamethods = [
            ("__tostring", { call throws(LuaBindingError) in
                var writer = JSONWriter(pretty: true)
                writer.write(try call.snapshot(at: 1).value)
                call.push(writer.output)
                return .values(1)
            }),
        ]
        return definition
    }

    /// How the shell shows an object returned by a chunk (`Reference(/users)`), or `nil` when
    /// the value is not one of Ember's objects.
    func describeObject(in thread: LuaState.Thread, at index: Int32) -> String? {
        func object<Object: AnyObject>(_ type: LuaObjectType, _: Object.Type) -> Object? {
            thread.object(type, at: index)
        }
        if let database = object(.database, Database.self) { return "Database(\(database.name))" }
        if let box = object(.reference, LuaBox<Reference>.self) { return Self.describe(box.value) }
        if let box = object(.query, LuaBox<Query>.self) { return Self.describe(box.value) }
        if let box = object(.onDisconnect, LuaBox<OnDisconnect>.self) { return "OnDisconnect(\(box.value.reference.path))" }
        if let handle = object(.writeHandle, LuaWriteHandle.self) {
            return "WriteHandle(\(handle.label), \(handle.answer == nil ? "waiting" : "answered"))"
        }
        if let listener = object(.listener, LuaListener.self) { return "ListenerHandle(\(listener.context))" }
        if let value = object(.serverValue, LuaServerValue.self) { return value.label }
        return nil
    }
}
