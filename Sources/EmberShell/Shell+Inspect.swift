import EmberClient
import EmberCore
import EmberInstance
import EmberQL
import EmberServer
import EmberWire

/// `inspect [CLIENT]`: what a client holds beside what the server holds for it.
extension Shell {
    func inspect(_ word: Word?) throws(ShellError) -> CommandResult {
        let name: ClientName
        if let word {
            do {
                name = try ClientName(validating: word.text)
            } catch {
                throw .database(error, at: word.position)
            }
            guard ember.clientNames.contains(name) else {
                throw .command(ErrorCode.unknownClient, "no client \(name) (clients lists them)", at: word.position)
            }
        } else {
            name = state.clientOverride ?? state.currentClient
        }
        let inspection = ember.client(name).inspect()
        let server = ember.administration?.inspection(of: name)
        return .report(text: inspectionText(inspection, server: server), json: inspectionJSON(inspection, server: server))
    }

    /// Whether the server's data for `view`'s query is the view's (`nil`: not known here, or the
    /// view is not complete).
    private func matchesServer(_ view: ClientInspection.View) -> Node?? {
        guard view.isComplete, let serverData = ember.administration?.data(for: view.query) else { return nil }
        return serverData == view.data ? .some(nil) : .some(serverData)
    }

    private func inspectionText(_ inspection: ClientInspection, server: ServerConnectionInspection?) -> String {
        var lines = [style.bold("client \(inspection.client)") + " (\(inspection.connection))"]
        func section(_ title: String, _ rows: [String]) {
            lines.append(style.bold(title))
            lines.append(contentsOf: rows.isEmpty ? ["  " + style.dim("none")] : rows.map { "  " + $0 })
        }
        section("cache (each view: what its listeners see)", inspection.views.map { view in
            var row = "\(view.query)  " + (view.isComplete ? "complete" : style.warning("incomplete")) + "  "
                + ProtocolSummary.shortened(formatter.compact(view.data.jsonValue(.normal)), to: 60)
            switch matchesServer(view) {
            case .some(nil): row += style.dim("  same as the server")
            case .some(let serverData?):
                row += "  " + style.warning("the server has ") + ProtocolSummary.shortened(formatter.compact(serverData.jsonValue(.normal)), to: 40)
            case nil: break
            }
            return row
        })
        section("pending writes (oldest first)", inspection.writes.map { write in
            let what = switch write.change {
            case .set(let node): describeWrite(.put(write.path, node))
            case .update(let changes): describeWrite(.merge(write.path, changes))
            }
            let state = write.state == .sent ? "sent, waiting for the server's answer" : style.warning("queued until connected")
            return "#\(write.id) " + ProtocolSummary.shortened(what, to: 70) + "  " + state
        })
        let connected = ember.client(inspection.client).connectionState.isConnected
        section(connected ? "listens on the server" : "listens (sent again when connected)", inspection.listens.map { listen in
            "\(listen.query)" + (listen.tag.map { style.dim("  tag \($0)") } ?? "")
        })
        section("transactions in flight", inspection.transactions.map { transaction in
            let retries = transaction.retries == 0 ? "" : ", \(transaction.retries) \(transaction.retries == 1 ? "retry" : "retries")"
            return "\(transaction.path)  \(transaction.state), \(transaction.attempts) \(transaction.attempts == 1 ? "attempt" : "attempts")\(retries), last value "
                + formatter.compact(transaction.value.jsonValue(.normal))
        })
        section("onDisconnect", inspection.onDisconnects.map { operation in
            let what = switch operation.operation {
            case .set(let node): describeWrite(.put(operation.path, node))
            case .update(let changes): describeWrite(.merge(operation.path, changes))
            case .cancel: "cancel \(operation.path)"
            }
            return what + "  " + (operation.isRegistered ? "registered on the server" : style.warning("queued until connected"))
        })
        if let server {
            lines.append(style.bold("server, \(server.connection)") + " (\(Self.describe(server.auth)))")
            lines.append("  listens: " + (server.listens.isEmpty ? style.dim("none") : server.listens.map(\.description).joined(separator: ", ")))
            lines.append("  onDisconnect: " + (server.onDisconnect.isEmpty ? style.dim("none") : server.onDisconnect.map(describeWrite).joined(separator: "; ")))
        } else if ember.administration == nil {
            lines.append(style.dim("the server is in another process: its side is not shown here"))
        } else {
            lines.append(style.dim("the server holds no connection of \(inspection.client) (offline)"))
        }
        return lines.joined(separator: "\n")
    }

    /// What `inspect NAME --json` gives for the client `name`.
    func inspectionJSON(of name: ClientName) -> JSONValue {
        inspectionJSON(ember.client(name).inspect(), server: ember.administration?.inspection(of: name))
    }

    private func inspectionJSON(_ inspection: ClientInspection, server: ServerConnectionInspection?) -> JSONValue {
        .object([
            ("client", .string(inspection.client.rawValue)),
            ("connection", .string(inspection.connection)),
            ("views", .array(inspection.views.map { view in
                var fields: [(key: String, value: JSONValue)] = [
                    ("path", .string(view.query.path.description)), ("query", .string(view.query.params.isDefault ? "" : view.query.params.description)),
                    ("complete", .bool(view.isComplete)), ("data", view.data.jsonValue(.export)),
                    ("serverData", view.serverData.jsonValue(.export)), ("serverComplete", .bool(view.serverComplete)),
                ]
                switch matchesServer(view) {
                case .some(nil): fields.append(("matchesServer", .bool(true)))
                case .some(let serverData?):
                    fields.append(("matchesServer", .bool(false)))
                    fields.append(("serverHas", serverData.jsonValue(.export)))
                case nil: fields.append(("matchesServer", .null))
                }
                return .object(fields)
            })),
            ("writes", .array(inspection.writes.map { write in
                var fields: [(key: String, value: JSONValue)] = [("id", .int(Int64(write.id))), ("path", .string(write.path.description))]
                switch write.change {
                case .set(let node): fields += Self.writeFields(.put(write.path, node))
                case .update(let changes): fields += Self.writeFields(.merge(write.path, changes))
                }
                fields.append(("state", .string(write.state.rawValue)))
                return .object(fields)
            })),
            ("listens", .array(inspection.listens.map { listen in
                .object([
                    ("path", .string(listen.query.path.description)),
                    ("query", .string(listen.query.params.isDefault ? "" : listen.query.params.description)),
                    ("tag", listen.tag.map { .int(Int64($0)) } ?? .null),
                ])
            })),
            ("transactions", .array(inspection.transactions.map { transaction in
                .object([
                    ("path", .string(transaction.path.description)), ("state", .string(transaction.state)),
                    ("attempts", .int(Int64(transaction.attempts))), ("retries", .int(Int64(transaction.retries))),
                    ("value", transaction.value.jsonValue(.export)),
                ])
            })),
            ("onDisconnect", .array(inspection.onDisconnects.map { operation in
                var fields: [(key: String, value: JSONValue)] = [("path", .string(operation.path.description))]
                switch operation.operation {
                case .set(let node): fields += Self.writeFields(.put(operation.path, node))
                case .update(let changes): fields += Self.writeFields(.merge(operation.path, changes))
                case .cancel:
                    fields.append(("operation", .string("cancel")))
                }
                fields.append(("state", .string(operation.isRegistered ? "registered" : "queued")))
                return .object(fields)
            })),
            ("server", server.map { server in
                .object([
                    ("connection", .int(Int64(server.connection.rawValue))), ("auth", .string(Self.describe(server.auth))),
                    ("listens", .array(server.listens.map { .string($0.description) })),
                    ("onDisconnect", .array(server.onDisconnect.map { .string(describeWrite($0)) })),
                ])
            } ?? .null),
        ])
    }

    /// A write's operation and value, as `inspect --json` gives them.
    private static func writeFields(_ write: OnDisconnectOperation) -> [(key: String, value: JSONValue)] {
        switch write {
        case .put(_, let node): [("operation", .string("set")), ("value", node.jsonValue(.export))]
        case .merge(_, let changes):
            [("operation", .string("update")), ("value", .object(changes.map { (String($0.path.description.dropFirst()), $0.node.jsonValue(.export)) }))]
        }
    }

    /// A server connection's user, in a few words.
    private static func describe(_ auth: ConnectionAuth) -> String {
        switch auth {
        case .none: "not signed in"
        case .user(let token): "signed in as \(token.uid)"
        case .admin: "administrator"
        case .variable(let variable): "administrator acting as \(variable.serialized())"
        }
    }

    /// A write (pending, or an onDisconnect operation), as a command would write it.
    private func describeWrite(_ operation: OnDisconnectOperation) -> String {
        switch operation {
        case .put(let path, let node): "set \(path) " + formatter.compact(node.jsonValue(.normal))
        case .merge(let path, let changes):
            "update \(path) {" + changes.map { "\(String($0.path.description.dropFirst())): \(formatter.compact($0.node.jsonValue(.normal)))" }.joined(separator: ", ") + "}"
        }
    }
}
