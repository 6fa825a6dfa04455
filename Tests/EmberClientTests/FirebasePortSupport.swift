import EmberClient
import EmberCore
import EmberInstance
import EmberSync
import EmberTestSupport
import Testing

// Helpers for the ports of firebase-js-sdk's `packages/database-compat/test/*.test.ts`
// (Firebase*Tests.swift; the table of what is ported is FIREBASE-TESTS.md).

/// A node's value as Firebase's `val()` gives it (no priorities, arrays where the keys make one).
func val(_ node: Node) -> JSONValue { node.jsonValue(.normal) }

/// A transaction result that writes `value` (a test's own JSON: a bad one traps).
func commit(_ value: JSONValue) -> TransactionUpdate {
    do {
        return .commit(try Node(json: value))
    } catch {
        preconditionFailure("bad value in a test: \(error)")
    }
}

/// A client connected to the server: Firebase's tests run against a live server and most wait
/// for the connection (order.test.ts's `beforeEach` does so explicitly).
func connectedClient(_ ember: Ember, _ name: String) throws -> Database {
    let database = client(ember, name)
    try ember.flush()
    return database
}

/// What a Firebase `onComplete(error, committed, snapshot)` receives, from an Ember transaction
/// result: a failure has an error, is not committed and has no snapshot.
struct TransactionCallback {
    var error: EmberCore.DatabaseError?
    var committed: Bool
    var snapshot: DataSnapshot?

    init(_ result: Result<TransactionResult, EmberCore.DatabaseError>) {
        switch result {
        case .success(let outcome):
            error = nil
            committed = outcome.committed
            snapshot = outcome.snapshot
        case .failure(let failure):
            error = failure
            committed = false
            snapshot = nil
        }
    }
}

extension DataSnapshot {
    /// The children's keys in the snapshot's order (Firebase's `forEach`).
    var childKeys: [String] { children.compactMap(\.key) }
}

extension Reference {
    /// The child at `path` (a test's own path: a bad one traps).
    func at(_ path: String) -> Reference {
        do {
            return try child(path)
        } catch {
            preconditionFailure("bad path in a test: \(error)")
        }
    }
}

/// The number in a leaf node, if it holds one (Firebase tests do arithmetic on `val()`).
func number(_ node: Node) -> Int64? {
    switch node.leafValue {
    case .int(let value)?: value
    case .double(let value)?: Int64(exactly: value)
    default: nil
    }
}
