import EmberClient
import EmberCore
import EmberInstance
import EmberServer
import EmberSync
import EmberTestSupport
import Testing

/// Ports of firebase-js-sdk `packages/database-compat/test/transaction.test.ts`, each test named
/// after its `it(...)`. Firebase's `getRandomNode()` is a fresh location on a live server; here
/// it is `node` on a fresh instance, and `getRandomNode(2)` is two clients. Where the Firebase
/// test hijacks the hash so the server always answers `datastale`, the update function makes
/// the server's value change instead, which has the same effect.
@Suite("Firebase transaction.test.ts")
struct FirebaseTransactionTests {
    // transaction.test.ts: 'New value is immediately visible.'
    @Test("New value is immediately visible.")
    func newValueImmediatelyVisible() throws {
        let (ember, _) = makeEmber()
        let node = ref(try connectedClient(ember, "main"), "node")
        try node.at("foo").runTransaction { _ in commit(42) }
        var value: JSONValue?
        node.at("foo").observe(.value) { snapshot, _ in value = snapshot.value }
        #expect(value == 42)
    }

    // transaction.test.ts: 'Event is raised for new value.'
    @Test("Event is raised for new value.")
    func eventRaisedForNewValue() throws {
        let (ember, _) = makeEmber()
        let node = ref(try connectedClient(ember, "main"), "node")
        let log = EventLog()
        log.watch(node.at("foo"), [.value])
        try node.at("foo").runTransaction { _ in commit(42) }
        #expect(log.take() == ["value /node/foo: 42"])
    }

    // transaction.test.ts: 'Transaction result can be converted to JSON.'
    @Test("Transaction result can be converted to JSON.")
    func resultAsJSON() async throws {
        let (ember, _) = makeEmber()
        let node = ref(try connectedClient(ember, "main"), "node")
        let result = try await node.transaction { _ in commit(42) }
        // {committed: true, snapshot: 42}
        #expect(result.committed)
        #expect(result.snapshot.value == 42)
    }

    // transaction.test.ts: 'Non-aborted transaction sets committed to true in callback.'
    @Test("Non-aborted transaction sets committed to true in callback.")
    func nonAbortedCommitted() throws {
        let (ember, _) = makeEmber()
        let node = ref(try connectedClient(ember, "main"), "node")
        var callback: TransactionCallback?
        try node.runTransaction({ _ in commit(42) }) { callback = TransactionCallback($0) }
        try ember.run { callback != nil }
        #expect(callback?.error == nil)
        #expect(callback?.committed == true)
        #expect(callback?.snapshot?.value == 42)
    }

    // transaction.test.ts: 'Aborted transaction sets committed to false in callback.'
    @Test("Aborted transaction sets committed to false in callback.")
    func abortedNotCommitted() throws {
        let (ember, _) = makeEmber()
        let node = ref(try connectedClient(ember, "main"), "node")
        var callback: TransactionCallback?
        try node.runTransaction({ _ in .abort }) { callback = TransactionCallback($0) }
        try ember.run { callback != nil }
        #expect(callback?.error == nil)
        #expect(callback?.committed == false)
        #expect(callback?.snapshot?.value == .null)
    }

    // transaction.test.ts: 'Tetris bug test - set data, reconnect, do transaction that aborts
    // once data arrives, verify correct events.'
    @Test("Tetris bug test - set data, reconnect, do transaction that aborts once data arrives, verify correct events.")
    func tetrisAbortOnceDataArrives() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let first = ref(try connectedClient(ember, "first"), "node")
        let second = ref(try connectedClient(ember, "second"), "node")
        try await first.at("foo").set(42)

        var values: [JSONValue] = []
        second.at("foo").observe(.value) { snapshot, _ in values.append(snapshot.value) }
        var callback: TransactionCallback?
        try second.at("foo").runTransaction({ current in
            current.isEmpty ? commit("temp value") : .abort
        }) { callback = TransactionCallback($0) }
        try await ember.run { values.count >= 2 && callback != nil }
        try ember.flush()
        #expect(values == ["temp value", 42])
        #expect(callback?.error == nil)
        #expect(callback?.committed == false)
        #expect(callback?.snapshot?.value == 42)
    }

    // transaction.test.ts: 'Use transaction to create a node, make sure exactly one event is received.'
    @Test("Use transaction to create a node, make sure exactly one event is received.")
    func createNodeExactlyOneEvent() throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        var events = 0
        var done = false
        node.at("a").observe(.value) { _, _ in events += 1 }
        try node.at("a").runTransaction({ _ in commit(42) }) { _ in done = true }
        try ember.run { done }
        try ember.flush()
        #expect(events == 1)
    }

    // transaction.test.ts: 'Use transaction to update one of two existing child nodes. Make sure
    // events are only raised for the changed node.'
    @Test("Use transaction to update one of two existing child nodes. Make sure events are only raised for the changed node.")
    func updateOneOfTwoChildren() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let first = ref(try connectedClient(ember, "first"), "node/foo")
        let second = ref(try connectedClient(ember, "second"), "node/foo")
        try await first.at("a").set(42)
        try await first.at("b").set(42)

        let log = EventLog()
        log.watch(second.at("a"), [.value])
        log.watch(second.at("b"), [.value])
        try ember.flush()
        #expect(log.take() == ["value /node/foo/a: 42", "value /node/foo/b: 42"])

        let result = try await second.transaction { _ in commit(["a": 42, "b": 87]) }
        try ember.flush()
        #expect(result.committed)
        #expect(result.snapshot.value == ["a": 42, "b": 87])
        #expect(log.take() == ["value /node/foo/b: 87"])
    }

    // transaction.test.ts: 'Transaction is only called once when initializing an empty node.'
    @Test("Transaction is only called once when initializing an empty node.")
    func calledOnceOnEmptyNode() throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        var inputs: [JSONValue] = []
        var done = false
        try node.runTransaction({ current in
            inputs.append(val(current))
            return current.isEmpty ? commit(["a": 5, "b": 3]) : .abort
        }) { _ in done = true }
        try ember.run { done }
        #expect(inputs == [.null])
    }

    // transaction.test.ts: 'Second transaction gets run immediately on previous output and only runs once.'
    @Test("Second transaction gets run immediately on previous output and only runs once.")
    func secondRunsOnPreviousOutput() throws {
        let (ember, _) = makeEmber(latency: 5)
        let first = ref(try connectedClient(ember, "first"), "node")
        let second = ref(try connectedClient(ember, "second"), "node")
        var firstRuns = 0
        var secondRuns = 0
        var callbacks: [TransactionCallback] = []
        try first.runTransaction({ _ in
            firstRuns += 1
            return commit(42)
        }) { callbacks.append(TransactionCallback($0)) }
        #expect(firstRuns == 1)
        try first.runTransaction({ current in
            secondRuns += 1
            #expect(val(current) == 42)
            return commit(84)
        }) { callbacks.append(TransactionCallback($0)) }
        #expect(secondRuns == 1)
        #expect(first.database.cachedValue(at: first.path).map(val) == 84)

        try ember.run { callbacks.count == 2 }
        #expect(callbacks.allSatisfy { $0.error == nil && $0.committed })
        #expect(firstRuns == 1)
        #expect(secondRuns == 1)
        var seen: JSONValue?
        second.observe(.value) { snapshot, _ in seen = snapshot.value }
        try ember.run { seen != nil }
        #expect(seen == 84)
    }

    // transaction.test.ts: 'Set() cancels pending transactions and re-runs affected transactions.'
    @Test("Set() cancels pending transactions and re-runs affected transactions.")
    func setCancelsPendingAndReruns() throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        var nodeSnap: JSONValue?
        var nodeFooSnap: JSONValue?
        node.observe(.value) { snapshot, _ in nodeSnap = snapshot.value }
        node.at("foo").observe(.value) { snapshot, _ in nodeFooSnap = snapshot.value }

        var firstRun = false
        var secondRun = false
        var thirdRunCount = 0
        var first: TransactionCallback?
        var second: TransactionCallback?
        var third: TransactionCallback?
        // 1) at /foo: sent at once.
        try node.at("foo").runTransaction({ _ in
            #expect(!firstRun)
            firstRun = true
            return commit(42)
        }) { first = TransactionCallback($0) }
        #expect(nodeFooSnap == 42)
        // 2) at /: waits for 1.
        try node.runTransaction({ _ in
            #expect(!secondRun)
            secondRun = true
            return commit(["bar": 1, "foo": 84])
        }) { second = TransactionCallback($0) }
        #expect(secondRun)
        #expect(nodeSnap == ["bar": 1, "foo": 84])
        // 3) at /bar: waits for 2.
        try node.at("bar").runTransaction({ current in
            thirdRunCount += 1
            if thirdRunCount == 1 {
                #expect(val(current) == 1)
                return commit("first")
            } else if thirdRunCount == 2 {
                #expect(val(current) == .null)
                return commit("second")
            }
            Issue.record("Called too many times!")
            return .abort
        }) { third = TransactionCallback($0) }
        #expect(thirdRunCount == 1)
        #expect(nodeSnap == ["bar": "first", "foo": 84])

        // Rolls back the second transaction and makes the third run again.
        try node.at("foo").setValue(0)
        #expect(first == nil)
        try ember.run { first != nil && third != nil }

        #expect(first?.error == nil)
        #expect(first?.committed == true)
        #expect(first?.snapshot?.value == 42)
        #expect(second?.committed == false)
        #expect(third?.error == nil)
        #expect(third?.committed == true)
        #expect(third?.snapshot?.value == "second")
        #expect(thirdRunCount == 2)
        #expect(nodeSnap == ["bar": "second", "foo": 0])
    }

    // transaction.test.ts: 'transaction(), set(), set() should work.'
    @Test("transaction(), set(), set() should work.")
    func transactionSetSet() throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        var callback: TransactionCallback?
        try node.runTransaction({ current in
            #expect(val(current) == .null)
            return commit("hi!")
        }) { callback = TransactionCallback($0) }
        try node.setValue("foo")
        try node.setValue("bar")
        try ember.run { callback != nil }
        #expect(callback?.error == nil)
        #expect(callback?.committed == true)
    }

    // transaction.test.ts: 'Priority is preserved when setting data.'
    @Test("Priority is preserved when setting data.")
    func priorityPreservedWhenSetting() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        var snap: DataSnapshot?
        node.observe(.value) { snapshot, _ in snap = snapshot }
        try node.setValue("test", priority: .number(5))
        #expect(snap?.priority == .number(5))

        var complete = false
        try node.runTransaction({ _ in commit("new value") }) { _ in complete = true }
        #expect(snap?.value == "new value")
        #expect(snap?.priority == .number(5))
        try await ember.run { complete }
        #expect(snap?.priority == .number(5))
    }

    // transaction.test.ts: 'Tetris bug test - Can do transactions from transaction callback.'
    @Test("Tetris bug test - Can do transactions from transaction callback.")
    func transactionFromTransactionCallback() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let first = ref(try connectedClient(ember, "first"), "node")
        let second = ref(try connectedClient(ember, "second"), "node")
        try await first.at("foo").set(42)
        var resolved = false
        try second.at("foo").runTransaction({ current in current.isEmpty ? commit(84) : .abort }) { _ in
            try? second.at("bar").runTransaction { _ in
                resolved = true
                return commit(168)
            }
        }
        try await ember.run { resolved }
    }

    // transaction.test.ts: 'Resulting snapshot is passed to onComplete callback.'
    @Test("Resulting snapshot is passed to onComplete callback.")
    func resultingSnapshotPassed() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let first = ref(try connectedClient(ember, "first"), "node")
        let second = ref(try connectedClient(ember, "second"), "node")
        let helloOnNull: (Node) -> TransactionUpdate = { $0.isEmpty ? commit("hello!") : .abort }

        let committed = try await first.transaction(helloOnNull)
        #expect(committed.committed)
        #expect(committed.snapshot.value == "hello!")
        // Again, for the aborted case.
        let aborted = try await first.transaction(helloOnNull)
        #expect(!aborted.committed)
        #expect(aborted.snapshot.value == "hello!")
        // Again on a fresh connection, for the aborted case.
        let fresh = try await second.transaction(helloOnNull)
        #expect(!fresh.committed)
        #expect(fresh.snapshot.value == "hello!")
    }

    // transaction.test.ts: 'Transaction aborts after 25 retries.' (hijackHash: the update
    // function changes the server's value instead, so every put is stale.)
    @Test("Transaction aborts after 25 retries.")
    func abortsAfter25Retries() throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        var tries = 0
        var callback: TransactionCallback?
        try node.runTransaction({ _ in
            #expect(tries < 25)
            tries += 1
            try! ember.server.put(Node(.string("duck, duck, goose \(tries)")), at: "node", hash: nil)
            return commit("hello!")
        }) { callback = TransactionCallback($0) }
        try ember.run { callback != nil }
        #expect(callback?.error == .maxRetries(at: "node"))  // Firebase: 'maxretry'
        #expect(callback?.committed == false)
        #expect(tries == 25)
    }

    // transaction.test.ts: 'Set should cancel already sent transactions that come back as datastale.'
    @Test("Set should cancel already sent transactions that come back as datastale.")
    func setCancelsSentStaleTransaction() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let first = ref(try connectedClient(ember, "first"), "node")
        let second = ref(try connectedClient(ember, "second"), "node")
        try await first.set(5)
        var transactionCalls = 0
        var callback: TransactionCallback?
        try second.runTransaction({ old in
            #expect(transactionCalls == 0)
            #expect(val(old) == .null)
            transactionCalls += 1
            return commit(72)
        }) { callback = TransactionCallback($0) }
        // Sent, refused as stale, then aborted because of this set.
        try second.setValue(32)
        try await ember.run { callback != nil }
        #expect(callback?.error == .overriddenBySet(at: "node"))  // Firebase: 'set'
        #expect(callback?.committed == false)
    }

    // transaction.test.ts: 'Update should not cancel unrelated transactions' (hijackHash: the
    // update functions change the server's value while `hijacked`).
    @Test("Update should not cancel unrelated transactions")
    func updateKeepsUnrelatedTransactions() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        var hijacked = true
        var runs = 0
        func staleningUpdate(_ path: Path) -> (Node) -> TransactionUpdate {
            { _ in
                runs += 1
                if hijacked { try! ember.server.put(Node(.int(Int64(1_000 + runs))), at: path, hash: nil) }
                return commit(72)
            }
        }
        try await node.at("foo").set(5)

        var foo: TransactionCallback?
        var bar: TransactionCallback?
        // 'foo' is overwritten by the update: its transaction is cancelled.
        try node.at("foo").runTransaction(staleningUpdate("node/foo")) { foo = TransactionCallback($0) }
        // 'bar' is not touched by the update: its transaction goes on.
        try node.at("bar").runTransaction(staleningUpdate("node/bar")) { bar = TransactionCallback($0) }
        try await node.update(["foo": "newValue", "boo": "newValue", "loo": ["doo": ["boo": "newValue"]]])
        try await ember.run { foo != nil }
        #expect(foo?.error == .overriddenBySet(at: "node/foo"))  // Firebase: 'set'
        #expect(foo?.committed == false)
        #expect(bar == nil)
        // restoreHash(): the bar transaction then commits.
        hijacked = false
        try await ember.run { bar != nil }
        #expect(bar?.error == nil)
        #expect(bar?.committed == true)
    }

    // transaction.test.ts: 'Test transaction on wacky unicode data.'
    @Test("Test transaction on wacky unicode data.")
    func wackyUnicode() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let first = ref(try connectedClient(ember, "first"), "node")
        let second = ref(try connectedClient(ember, "second"), "node")
        try await first.set("♜♞♝♛♚♝♞♜")
        let result = try await second.transaction { current in
            if !current.isEmpty { #expect(val(current) == "♜♞♝♛♚♝♞♜") }
            return commit("♖♘♗♕♔♗♘♖")
        }
        #expect(result.committed)
    }

    // transaction.test.ts: 'Test immediately aborted transaction.'
    @Test("Test immediately aborted transaction.")
    func immediatelyAborted() throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        try node.runTransaction { _ in .abort }  // without callback
        var callback: TransactionCallback?
        try node.runTransaction({ _ in .abort }) { callback = TransactionCallback($0) }
        try ember.run { callback != nil }
        #expect(callback?.committed == false)
    }

    // transaction.test.ts: 'Test adding to an array with a transaction.'
    @Test("Test adding to an array with a transaction.")
    func addingToArray() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        try await node.set(["cat", "horse"])
        let result = try await node.transaction { current in
            guard case .array(var elements) = val(current) else { return commit(["dog"]) }
            elements.append("dog")
            return commit(.array(elements))
        }
        #expect(result.committed)
        #expect(result.snapshot.value == ["cat", "horse", "dog"])
    }

    // transaction.test.ts: 'Merged transactions have correct snapshot in onComplete.'
    @Test("Merged transactions have correct snapshot in onComplete.")
    func mergedTransactionsSnapshots() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let node1 = ref(try connectedClient(ember, "first"), "node")
        let node2 = ref(try connectedClient(ember, "second"), "node")
        try await node1.set(["a": 0])
        var tx1: TransactionCallback?
        var tx2: TransactionCallback?
        try node2.runTransaction({ current in
            if !current.isEmpty { #expect(val(current) == ["a": 0]) }
            return commit(["a": 1])
        }) { tx1 = TransactionCallback($0) }
        try node2.at("a").runTransaction({ current in
            if !current.isEmpty { #expect(val(current) == 1) }  // runs after the first
            return commit(2)
        }) { tx2 = TransactionCallback($0) }
        try await ember.run { tx1 != nil && tx2 != nil }
        #expect(tx1?.error == nil)
        #expect(tx1?.committed == true)
        #expect(tx1?.snapshot?.key == node2.key)
        #expect(tx1?.snapshot?.value == ["a": 1])
        #expect(tx2?.error == nil)
        #expect(tx2?.committed == true)
        #expect(tx2?.snapshot?.key == "a")
        #expect(tx2?.snapshot?.value == 2)
    }

    // transaction.test.ts: 'Doing set() in successful transaction callback works. Case 870.'
    @Test("Doing set() in successful transaction callback works. Case 870.")
    func setInSuccessfulCallback() throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        var transactionCalled = false
        var callbackCalled = false
        var setDone = false
        try node.runTransaction({ _ in
            #expect(!transactionCalled)
            transactionCalled = true
            return commit("hi")
        }) { _ in
            #expect(!callbackCalled)
            callbackCalled = true
            try? node.setValue("transaction done") { _ in setDone = true }
        }
        try ember.run { setDone }
        #expect(ember.server.value(at: "node") == Node(.string("transaction done")))
    }

    // transaction.test.ts: 'Doing set() in aborted transaction callback works. Case 870.'
    @Test("Doing set() in aborted transaction callback works. Case 870.")
    func setInAbortedCallback() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let node1 = ref(try connectedClient(ember, "first"), "node")
        let node2 = ref(try connectedClient(ember, "second"), "node")
        try await node1.set("initial")
        var transactionCalled = false
        var callbackCalled = false
        var setDone = false
        try node2.runTransaction({ current in
            // A dummy value until the actual current value arrives.
            if current.isEmpty { return commit("hi") }
            #expect(!transactionCalled)
            transactionCalled = true
            return .abort
        }) { _ in
            #expect(!callbackCalled)
            callbackCalled = true
            try? node2.setValue("transaction done") { _ in setDone = true }
        }
        try await ember.run { setDone }
        #expect(transactionCalled)
    }

    // transaction.test.ts: 'Pending transactions are canceled on disconnect.'
    @Test("Pending transactions are canceled on disconnect.")
    func pendingCanceledOnDisconnect() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let database = try connectedClient(ember, "main")
        let node = ref(database, "node")
        try await node.set("initial")
        var callback: TransactionCallback?
        try node.runTransaction({ _ in commit("new") }) { callback = TransactionCallback($0) }
        // Firebase cancels the outstanding transaction: it cannot know whether it landed.
        database.goOffline()
        database.goOnline()
        try await ember.run { callback != nil }
        // A deliberate difference (README, "Where Ember differs"): Firebase fails the
        // transaction with `disconnect` (PersistentConnection.cancelSentTransactions_) although
        // the server may have applied it. Ember sends it again under its write key, which the
        // server answers exactly once, so the callback tells the true outcome: committed, once.
        #expect(callback?.committed == true)
        #expect(callback?.error == nil)
        try ember.flush()
        #expect(ember.server.value(at: "node") == Node(.string("new")))
    }

    // transaction.test.ts: 'Transaction without local events (1)'
    @Test("Transaction without local events (1)")
    func withoutLocalEvents1() throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        var actions: [String] = []
        node.observe(.value) { snapshot, _ in actions.append("value \(snapshot.value.serialized())") }
        try ember.run { !actions.isEmpty }

        var callback: TransactionCallback?
        try node.runTransaction(applyLocally: false, { _ in commit("hello!") }) { result in
            callback = TransactionCallback(result)
            #expect(callback?.error == nil)
            #expect(callback?.committed == true)
            #expect(callback?.snapshot?.value == "hello!")
            actions.append("txn completed")
        }
        // No events yet.
        #expect(actions == ["value null"])
        actions.append("txn run")
        try ember.run { actions.count >= 4 }
        #expect(actions == ["value null", "txn run", #"value "hello!""#, "txn completed"])
    }

    // transaction.test.ts: 'Transaction from value callback.'
    @Test("Transaction from value callback.")
    func transactionFromValueCallback() throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        let count: Int64 = 1
        var outstanding = 0
        var started = 0
        var mismatches = 0
        node.observe(.value) { _, _ in
            var shouldCommit = true
            outstanding += 1
            started += 1
            try? node.runTransaction({ current in
                if current.isEmpty { return commit(0) }
                if let value = number(current), value < count { return commit(.int(value + 1)) }
                shouldCommit = false
                return .abort
            }) { result in
                if TransactionCallback(result).committed != shouldCommit { mismatches += 1 }
                outstanding -= 1
            }
        }
        try ember.run { started > 0 && outstanding == 0 }
        #expect(mismatches == 0)
    }

    // transaction.test.ts: 'Transaction runs on null only once after reconnect (Case 1981).'
    @Test("Transaction runs on null only once after reconnect (Case 1981).")
    func runsOnNullOnceAfterReconnect() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        try await node.set(42)
        let fresh = ref(try connectedClient(ember, "fresh"), "node")
        var run = 0
        let result = try await fresh.transaction { current in
            run += 1
            if run == 1 { #expect(val(current) == .null) }
            if run == 2 { #expect(val(current) == 42) }
            return commit(3.14)
        }
        #expect(result.committed)
        #expect(run == 2)
        #expect(result.snapshot.value == 3.14)
    }

    // transaction.test.ts: 'makeFriends user test case.'
    @Test("makeFriends user test case.")
    func makeFriends() throws {
        let (ember, _) = makeEmber(latency: 5)
        let database = try connectedClient(ember, "main")
        let root = ref(database, "node")
        database.goOffline()
        database.goOnline()
        var count = 0
        var failures: [String] = []
        func makeFriend(_ accountID: String, _ friendAccountID: String) throws {
            try root.at(accountID).at(friendAccountID).runTransaction(applyLocally: false, { current in
                current.isEmpty
                    ? commit(["accountID": .string(accountID), "friendAccountID": .string(friendAccountID), "percentCommon": 0])
                    : .commit(current)
            }) { result in
                let callback = TransactionCallback(result)
                if let error = callback.error {
                    failures.append("\(error)")
                } else if !callback.committed {
                    failures.append("All should be committed!")
                } else {
                    count += 1
                    let snapshot = callback.snapshot!
                    let percent = number(snapshot.node.child(at: "percentCommon")) ?? -1
                    try? database.reference(snapshot.path).setPriority(.number(Double(percent)))
                }
            }
        }
        func makeFriends(_ accountID: String, _ friendAccountIDs: [String]) throws {
            for friend in friendAccountIDs {
                try makeFriend(friend, accountID)
                try makeFriend(accountID, friend)
            }
        }
        try makeFriends("a1", ["a2", "a3"])
        try makeFriends("a2", ["a1", "a3"])
        try makeFriends("a3", ["a1", "a2"])
        try ember.run { count + failures.count == 12 }
        #expect(failures.isEmpty)
        #expect(count == 12)
    }

    // transaction.test.ts: 'transaction() respects .priority.'
    @Test("transaction() respects .priority.")
    func respectsPriority() throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        var values: [JSONValue] = []
        node.observe(.value) { snapshot, _ in values.append(snapshot.exportValue) }
        var done = false
        try node.runTransaction({ current in
            #expect(val(current) == .null)
            return commit([".value": 5, ".priority": 5])
        }) { _ in
            try? node.runTransaction({ current in
                #expect(val(current) == 5)
                return commit([".value": 10, ".priority": 10])
            }) { _ in done = true }
        }
        try ember.run { done }
        #expect(values == [[".value": 5, ".priority": 5], [".value": 10, ".priority": 10]])
    }

    // transaction.test.ts: 'Transaction properly reverts data when you add a deeper listen.'
    @Test("Transaction properly reverts data when you add a deeper listen.")
    func revertsWithDeeperListen() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let ref1 = ref(try connectedClient(ember, "first"), "node")
        let ref2 = ref(try connectedClient(ember, "second"), "node")
        try await ref1.at("y").set("test")
        try ref2.runTransaction { current in current.isEmpty ? commit(["x": 1]) : .abort }
        var sawTest = false
        ref2.at("y").observe(.value) { snapshot, _ in if snapshot.value == "test" { sawTest = true } }
        try await ember.run { sawTest }
    }

    // transaction.test.ts: 'Transaction with integer keys'
    @Test("Transaction with integer keys")
    func integerKeys() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        try await node.set(["1": 1, "5": 5, "10": 10, "20": 20])
        var callback: TransactionCallback?
        try node.runTransaction({ _ in commit(42) }) { callback = TransactionCallback($0) }
        try await ember.run { callback != nil }
        #expect(callback?.error == nil)
        #expect(callback?.committed == true)
    }

    // transaction.test.ts: 'Return null from first run of transaction.'
    @Test("Return null from first run of transaction.")
    func returnNullFirstRun() throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        var callback: TransactionCallback?
        try node.runTransaction({ _ in .commit(.empty) }) { callback = TransactionCallback($0) }
        try ember.run { callback != nil }
        #expect(callback?.error == nil)
        #expect(callback?.committed == true)
    }

    // transaction.test.ts: 'Bubble-app transaction bug.'
    @Test("Bubble-app transaction bug.")
    func bubbleApp() throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        try node.at("a").runTransaction { _ in commit(1) }
        try node.at("a").runTransaction { current in commit(.int((number(current) ?? 0) + 42)) }
        try node.at("b").runTransaction { _ in commit(7) }
        var callback: TransactionCallback?
        try node.runTransaction({ current in
            if let a = number(current.child(at: "a")), let b = number(current.child(at: "b")), a != 0, b != 0 {
                return commit(.int(a + b))
            }
            return commit("dummy")
        }) { callback = TransactionCallback($0) }
        try ember.run { callback != nil }
        #expect(callback?.error == nil)
        #expect(callback?.committed == true)
        #expect(callback?.snapshot?.value == 50)
    }

    // transaction.test.ts: 'Transaction and priority: Can set priority in transaction on empty node'
    @Test("Transaction and priority: Can set priority in transaction on empty node")
    func prioritySetOnEmptyNode() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        _ = try await node.transaction { _ in commit([".value": 42, ".priority": 7]) }
        let (snapshot, _) = try await node.once(.value)
        #expect(snapshot.exportValue == [".value": 42, ".priority": 7])
    }

    // transaction.test.ts: "Transaction and priority: Transaction doesn't change priority."
    @Test("Transaction and priority: Transaction doesn't change priority.")
    func transactionKeepsPriority() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        try await node.set([".value": 42, ".priority": 7])
        _ = try await node.transaction { _ in commit(12) }
        let (snapshot, _) = try await node.once(.value)
        #expect(snapshot.exportValue == [".value": 12, ".priority": 7])
    }

    // transaction.test.ts: 'Transaction and priority: Transaction can change priority on non-empty node.'
    @Test("Transaction and priority: Transaction can change priority on non-empty node.")
    func transactionChangesPriority() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        try await node.set([".value": 42, ".priority": 7])
        _ = try await node.transaction { _ in commit([".value": 43, ".priority": 8]) }
        let (snapshot, _) = try await node.once(.value)
        #expect(snapshot.exportValue == [".value": 43, ".priority": 8])
    }

    // transaction.test.ts: 'Transaction and priority: Changing priority on siblings.'
    @Test("Transaction and priority: Changing priority on siblings.")
    func changingPriorityOnSiblings() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        try await node.set(["a": [".value": "a", ".priority": "a"], "b": [".value": "b", ".priority": "b"]])
        var done = 0
        try node.at("a").runTransaction({ _ in commit([".value": "a2", ".priority": "a2"]) }) { _ in done += 1 }
        try node.at("b").runTransaction({ _ in commit([".value": "b2", ".priority": "b2"]) }) { _ in done += 1 }
        try await ember.run { done == 2 }
        let (snapshot, _) = try await node.once(.value)
        #expect(snapshot.exportValue == [
            "a": [".value": "a2", ".priority": "a2"], "b": [".value": "b2", ".priority": "b2"],
        ])
    }

    // transaction.test.ts: 'Transaction and priority: Leaving priority on siblings.'
    @Test("Transaction and priority: Leaving priority on siblings.")
    func leavingPriorityOnSiblings() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        try await node.set(["a": [".value": "a", ".priority": "a"], "b": [".value": "b", ".priority": "b"]])
        var done = 0
        try node.at("a").runTransaction({ _ in commit("a2") }) { _ in done += 1 }
        try node.at("b").runTransaction({ _ in commit("b2") }) { _ in done += 1 }
        try await ember.run { done == 2 }
        let (snapshot, _) = try await node.once(.value)
        #expect(snapshot.exportValue == [
            "a": [".value": "a2", ".priority": "a"], "b": [".value": "b2", ".priority": "b"],
        ])
    }

    // transaction.test.ts: "transaction() doesn't pick up cached data from previous once()."
    @Test("transaction() doesn't pick up cached data from previous once().")
    func noCachedDataFromOnce() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let me = ref(try connectedClient(ember, "me"), "node")
        let other = ref(try connectedClient(ember, "other"), "node")
        try await me.set("not null")
        _ = try await me.once(.value)
        try await other.set(nil)
        let result = try await me.transaction { current in
            current.isEmpty ? commit("it was null!") : commit("it was not null!")
        }
        #expect(result.committed)
        #expect(result.snapshot.value == "it was null!")
    }

    // transaction.test.ts: "transaction() doesn't pick up cached data from previous transaction."
    @Test("transaction() doesn't pick up cached data from previous transaction.")
    func noCachedDataFromTransaction() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let me = ref(try connectedClient(ember, "me"), "node")
        let other = ref(try connectedClient(ember, "other"), "node")
        let first = try await me.transaction { _ in commit("not null") }
        #expect(first.committed)
        try await other.set(nil)
        let result = try await me.transaction { current in
            current.isEmpty ? commit("it was null!") : commit("it was not null!")
        }
        #expect(result.committed)
        #expect(result.snapshot.value == "it was null!")
    }

    // transaction.test.ts: 'server values: local timestamp should eventually (but not
    // immediately) match the server with txns'
    @Test("server values: local timestamp should eventually (but not immediately) match the server with txns")
    func serverTimestampInTransaction() throws {
        let (ember, clock) = makeEmber(latency: 5)
        let writerDatabase = try connectedClient(ember, "writer")
        let writer = ref(writerDatabase, "node")
        let reader = ref(try connectedClient(ember, "reader"), "node")
        var readSnaps: [DataSnapshot] = []
        var writeSnaps: [DataSnapshot] = []
        reader.observe(.value) { snapshot, _ in if snapshot.exists { readSnaps.append(snapshot) } }
        writer.observe(.value) { snapshot, _ in if snapshot.exists { writeSnaps.append(snapshot) } }
        try ember.flush()

        // Offline, so that the client's guess and the server's time differ.
        writerDatabase.goOffline()
        var refused: EmberCore.DatabaseError?
        try writer.runTransaction { _ in
            do {
                return .commit(try Node(json: [".value": .serverTimestamp, ".priority": .serverTimestamp]))
            } catch {
                refused = error as? EmberCore.DatabaseError
                return .abort
            }
        }
        try ember.advance(by: 1_000)
        writerDatabase.goOnline()
        try ember.flush()

        let now = clock.now()
        do {
            #expect(refused == nil)
            #expect(readSnaps.count == 1 && writeSnaps.count == 2)
            guard readSnaps.count == 1, writeSnaps.count == 2 else { return }
            for snapshot in writeSnaps {
                #expect(abs(now - (number(snapshot.node) ?? 0)) < 10_000)
                guard case .number(let priority)? = snapshot.priority else { Issue.record("no priority"); continue }
                #expect(abs(Double(now) - priority) < 10_000)
            }
            #expect(writeSnaps[0].value != writeSnaps[1].value)
            #expect(writeSnaps[0].priority != writeSnaps[1].priority)
            #expect(writeSnaps[1].value == readSnaps[0].value)
            #expect(writeSnaps[1].priority == readSnaps[0].priority)
        }
    }

    // transaction.test.ts: "transaction() still works when there's a query listen."
    @Test("transaction() still works when there's a query listen.")
    func worksWithQueryListen() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        try await node.set(["a": 1, "b": 2])
        try node.query.limitToFirst(1).observe(.childAdded) { _, _ in }
        var callback: TransactionCallback?
        try node.at("a").runTransaction(applyLocally: false, { .commit($0) }) { callback = TransactionCallback($0) }
        try await ember.run { callback != nil }
        #expect(callback?.error == nil)
        #expect(callback?.committed == true)
        #expect(callback?.snapshot?.value == 1)
    }

    // transaction.test.ts: "transaction() on queried location doesn't run initially on null
    // (firebase-worker-queue depends on this)."
    @Test("transaction() on queried location doesn't run initially on null (firebase-worker-queue depends on this).")
    func queriedLocationNotRunOnNull() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let database = try connectedClient(ember, "main")
        let node = ref(database, "node")
        _ = try await node.push(["a": 1, "b": 2])
        var inputs: [JSONValue] = []
        var callback: TransactionCallback?
        try node.query.startAt(nil).limitToFirst(1).observe(.childAdded) { snapshot, _ in
            try? database.reference(snapshot.path).runTransaction({ current in
                inputs.append(val(current))
                return .commit(.empty)
            }) { callback = TransactionCallback($0) }
        }
        try await ember.run { callback != nil }
        #expect(inputs == [["a": 1, "b": 2]])
        #expect(callback?.error == nil)
        #expect(callback?.committed == true)
        #expect(callback?.snapshot?.value == .null)
    }

    // transaction.test.ts: 'transactions raise correct child_changed events on queries'
    @Test("transactions raise correct child_changed events on queries")
    func childChangedOnQueries() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        try await node.set(["foo": ["value": 1]])
        let query = try node.query.endAt(.double(Double.leastNonzeroMagnitude))  // Number.MIN_VALUE
        var snapshots: [DataSnapshot] = []
        query.observe(.childAdded) { snapshot, _ in snapshots.append(snapshot) }
        query.observe(.childChanged) { snapshot, _ in snapshots.append(snapshot) }
        let result = try await node.at("foo").transaction(applyLocally: false) { _ in commit(["value": 2]) }
        #expect(result.committed)
        #expect(snapshots.count == 2)
        #expect(snapshots.first?.key == "foo")
        #expect(snapshots.first?.value == ["value": 1])
        #expect(snapshots.last?.key == "foo")
        #expect(snapshots.last?.value == ["value": 2])
    }

    // transaction.test.ts: 'transactions can use local merges'
    @Test("transactions can use local merges")
    func useLocalMerges() throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        try node.updateChildValues(["foo": "bar"])
        var callback: TransactionCallback?
        try node.at("foo").runTransaction({ current in
            #expect(val(current) == "bar")
            return .commit(current)
        }) { callback = TransactionCallback($0) }
        try ember.run { callback != nil }
        #expect(callback?.error == nil)
        #expect(callback?.committed == true)
    }

    // transaction.test.ts: 'transactions works with merges without the transaction path'
    @Test("transactions works with merges without the transaction path")
    func mergesWithoutTransactionPath() throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        try node.updateChildValues(["foo": "bar"])
        var callback: TransactionCallback?
        try node.at("non-foo").runTransaction({ current in
            #expect(val(current) == .null)
            return .commit(current)
        }) { callback = TransactionCallback($0) }
        try ember.run { callback != nil }
        #expect(callback?.error == nil)
        #expect(callback?.committed == true)
    }

    // transaction.test.ts: 'out of order remove writes are handled correctly'
    @Test("out of order remove writes are handled correctly")
    func outOfOrderRemoveWrites() throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        try node.setValue(["foo": "bar"])
        try node.runTransaction({ _ in commit("transaction-1") }) { _ in }
        try node.runTransaction({ _ in commit("transaction-2") }) { _ in }
        // Aborts the transactions; the client must not crash.
        var answer: EmberCore.DatabaseError??
        try node.updateChildValues(["qux": "quu"]) { answer = .some($0) }
        try ember.run { answer != nil }
        #expect(answer == .some(nil))
    }

    // transaction.test.ts: 'Can listen to transaction changes'
    @Test("Can listen to transaction changes")
    func listenToTransactionChanges() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        var latestValue: Int64 = 0
        var fired = false
        node.observe(.value) { snapshot, _ in
            latestValue = number(snapshot.node) ?? 0
            fired = true
        }
        #expect(latestValue == 0)
        func incrementViaTransaction() async throws {
            fired = false
            _ = try await node.transaction { current in commit(.int((number(current) ?? 0) + 1)) }
            try await ember.run { fired }
        }
        try await incrementViaTransaction()
        #expect(latestValue == 1)
        try await incrementViaTransaction()
        #expect(latestValue == 2)
    }
}
