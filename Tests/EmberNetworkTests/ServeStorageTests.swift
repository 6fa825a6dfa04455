import EmberTestSupport
import Foundation
import Testing

/// The files `ember serve --db DIR` makes: the database is its user's alone, as its local
/// socket is (0600): the directories 0700, the SQLite files 0600.
@Suite(.serialized)
struct ServeStorageTests {
    static func mode(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test("the database directory is 0700 and its files 0600, a new one and an old one made 0755")
    func permissions() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("ember-modes-\(getpid())-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let fresh = base.appendingPathComponent("fresh").path
        let old = base.appendingPathComponent("old").path
        try FileManager.default.createDirectory(atPath: old, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        for directory in [fresh, old] {
            let server = try ServeProcess(["--db", directory])
            let write = ChildProcess.run(["curl", "-s", "-X", "PUT", "-d", "1", "\(server.url)/x.json"], mergingErrors: true)
            #expect(write.output == "1", "\(write.output)")
            let other = ChildProcess.run(["curl", "-s", "-X", "PUT", "-d", "2", "\(server.url)/x.json?ns=other"], mergingErrors: true)
            #expect(other.output == "2", "\(other.output)")
            let files = try FileManager.default.subpathsOfDirectory(atPath: directory)
            #expect(Self.mode(directory) == 0o700, "\(directory): \(String(Self.mode(directory), radix: 8))")
            var checked = 0
            for name in files {
                let path = directory + "/" + name
                var isDirectory: ObjCBool = false
                FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
                if name.hasSuffix(".sock") { continue }
                let expected = isDirectory.boolValue ? 0o700 : 0o600
                #expect(Self.mode(path) == expected, "\(name): \(String(Self.mode(path), radix: 8))")
                if name.hasPrefix("server.sqlite") { checked += 1 }
            }
            #expect(checked >= 1, "\(files)")
            server.stop()
        }
    }
}
