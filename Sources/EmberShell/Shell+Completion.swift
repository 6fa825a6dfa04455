import EmberClient
import EmberCore
import EmberEngine
import EmberInstance
import EmberQL
import EmberLua
import Foundation

/// Tab completion: command names, keywords, event names, client names, files, and data paths:
/// the children the current client knows (its cache and pending writes), or, where it knows
/// nothing, those it reads from the server with a `get`, as any client would.
extension Shell {
    /// The completions for the word before the cursor, `prefix` being the entry up to it.
    public func completions(for prefix: String) -> LineCompletion {
        switch CommandParser.completionContext(for: prefix) {
        case .command(let partial):
            let names = commandRegistry.flatMap { [$0.name] + $0.aliases }
            return LineCompletion(partial: partial, candidates: Self.matching(partial, in: names))
        case .keyword(let partial, let candidates):
            return LineCompletion(partial: partial, candidates: Self.matching(partial, in: candidates))
        case .client(let partial):
            return LineCompletion(partial: partial, candidates: Self.matching(partial, in: ember.clientNames.map(\.rawValue)))
        case .path(let partial):
            return pathCompletions(partial)
        case .childPath(let partial, let location):
            return childPathCompletions(partial, under: location)
        case .file(let partial):
            return fileCompletions(partial)
        case .none:
            return LineCompletion(partial: "", candidates: [])
        }
    }

    /// The candidates that start with `partial`, ignoring case, sorted and without repeats.
    static func matching(_ partial: String, in candidates: [String]) -> [String] {
        let lowered = partial.lowercased()
        return Array(Set(candidates.filter { $0.lowercased().hasPrefix(lowered) })).sorted()
    }

    /// `a/b/c` → (`a/b/`, `c`); a word without `/` has an empty directory.
    static func splitAtLastSlash(_ partial: String) -> (directory: String, name: String) {
        guard let slash = partial.lastIndex(of: "/") else { return ("", partial) }
        return (String(partial[...slash]), String(partial[partial.index(after: slash)...]))
    }

    /// How long path completion waits for the server's answer, in milliseconds.
    static let completionWait: Int64 = 2_000

    /// Children of the location the partial path's directory names: from what the client knows
    /// locally (its cache and pending writes), else read from the server through the client.
    func pathCompletions(_ partial: String) -> LineCompletion {
        let (directory, name) = Self.splitAtLastSlash(partial)
        guard let parent = try? PathExpression(directory, at: .start).resolved(against: state.location) else {
            return LineCompletion(partial: partial, candidates: [])
        }
        var keys: [(String, Bool)] = []
        let known = database.cachedValue(at: parent).flatMap { $0.isEmpty ? nil : $0 } ?? serverValue(at: parent)
        if let node = known, !node.isLeaf {
            for child in node.children { keys.append((child.key.name, !child.node.isLeaf && child.node.childCount > 0)) }
        }
        if parent.isEmpty { keys.append((".info", true)) }
        let matches = keys.filter { $0.0.hasPrefix(name) }.map { directory + $0.0 + ($0.1 ? "/" : "") }.sorted()
        let appendsSpace = matches.count == 1 && !matches[0].hasSuffix("/")
        return LineCompletion(partial: partial, candidates: matches, appendsSpace: appendsSpace)
    }

    /// `orderBy child PATH`: the keys the children of `location` hold at the partial path's
    /// directory (issue 37: root paths were offered), from the first 1,000 children.
    func childPathCompletions(_ partial: String, under location: String) -> LineCompletion {
        let (directory, name) = Self.splitAtLastSlash(partial)
        guard let parent = try? PathExpression(location, at: .start).resolved(against: self.state.location),
            let below = try? Path(validating: directory.isEmpty ? "/" : directory)
        else { return LineCompletion(partial: partial, candidates: []) }
        let known = database.cachedValue(at: parent).flatMap { $0.isEmpty ? nil : $0 } ?? serverValue(at: parent)
        var keys: [String: Bool] = [:]
        guard let known, !known.isLeaf else { return LineCompletion(partial: partial, candidates: []) }
        for child in known.children.prefix(1_000) {
            let node = child.node.child(at: below)
            guard !node.isLeaf else { continue }
            for grandchild in node.children where grandchild.key.name.hasPrefix(name) {
                keys[grandchild.key.name] = (keys[grandchild.key.name] ?? false) || (!grandchild.node.isLeaf && grandchild.node.childCount > 0)
            }
        }
        let matches = keys.map { directory + $0.key + ($0.value ? "/" : "") }.sorted()
        let appendsSpace = matches.count == 1 && !matches[0].hasSuffix("/")
        return LineCompletion(partial: partial, candidates: matches, appendsSpace: appendsSpace)
    }

    /// What the server holds at `path`, read through the client (a `get`) when it is connected,
    /// waiting at most ``completionWait`` (Ctrl-C stops it); `nil` otherwise.
    private func serverValue(at path: Path) -> Node? {
        guard database.connectionState.isConnected else { return nil }
        let answer = Pending<Result<DataSnapshot, DatabaseError>>()
        database.reference(path).query.getData(connectTimeout: 0, answer.filler)
        guard case .satisfied = engine.wait(for: answer, deadline: ember.clock.now() + Self.completionWait),
            case .success(let snapshot)? = answer.value
        else { return nil }
        return snapshot.node
    }

    /// Files and directories matching a partial file name.
    func fileCompletions(_ partial: String) -> LineCompletion {
        let (directory, name) = Self.splitAtLastSlash(partial)
        let listed = (try? FileManager.default.contentsOfDirectory(atPath: directory.isEmpty ? "." : directory)) ?? []
        let matches = listed.filter { $0.hasPrefix(name) && (name.hasPrefix(".") || !$0.hasPrefix(".")) }.map { entry in
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: directory + entry, isDirectory: &isDirectory)
            return directory + entry + (isDirectory.boolValue ? "/" : "")
        }.sorted()
        return LineCompletion(partial: partial, candidates: matches, appendsSpace: matches.count == 1 && !matches[0].hasSuffix("/"))
    }

    /// Completions in Lua mode: globals of the session, fields, and methods through metatables
    /// (`db:re` → `db:ref(`), for the expression at the end of `prefix`.
    public func luaCompletions(for prefix: String) -> LineCompletion {
        guard let runtime = try? scripting() else { return LineCompletion(partial: "", candidates: []) }
        if luaGlobals == nil { luaGlobals = runtime.sessionGlobalsReference() }
        runtime.bindSessionDatabase()
        let lines = runtime.lua.completions(for: prefix, globals: luaGlobals)
        let word = prefix.reversed().prefix { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "_" || $0 == "." || $0 == ":" }
        let kept = prefix.count - word.count
        return LineCompletion(
            partial: String(word.reversed()), candidates: lines.map { String($0.dropFirst(kept)) }, appendsSpace: false)
    }
}
