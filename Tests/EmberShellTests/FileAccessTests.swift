import Foundation
import Glibc
import Testing

@testable import EmberShell

/// Files that commands read and write, and their failures in words (issue 18, item 9: Foundation
/// said "NSCocoaErrorDomain error 256" for a directory, "file doesn't exist" for /proc/version).
@Suite struct FileAccessTests {
    /// A fresh directory, removed by `body`'s end.
    private func inDirectory(_ body: (String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ember-files-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try body(directory)
    }

    /// The message `body` fails with.
    private func failure(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as FileAccessError {
            #expect(error.code == "io_error")
            return error.message
        } catch {
            return "not a FileAccessError: \(error)"
        }
    }

    @Test func importingADirectorySaysItIsADirectory() throws {
        try inDirectory { directory in
            #expect(failure { _ = try FileAccess.readText(directory) } == "cannot read \(directory): it is a directory")
            #expect(failure { _ = try FileAccess.readText(directory + "/missing.json") } == "cannot read \(directory)/missing.json: no such file")
            let binary = directory + "/binary"
            try Data([0xFF, 0xFE, 0x00]).write(to: URL(fileURLWithPath: binary))
            #expect(failure { _ = try FileAccess.readText(binary) } == "cannot read \(binary): it is not UTF-8 text")
        }
    }

    @Test func exportingOverAReadOnlyOrSpecialFileSaysWhy() throws {
        try inDirectory { directory in
            let readOnly = directory + "/read-only.json"
            try Data("{}".utf8).write(to: URL(fileURLWithPath: readOnly))
            chmod(readOnly, 0o444)
            #expect(failure { try FileAccess.write("1", to: readOnly) } == "cannot write \(readOnly): permission denied: the file is read-only")
            #expect(try String(contentsOfFile: readOnly, encoding: .utf8) == "{}")
            #expect(failure { try FileAccess.write("1", to: directory) } == "cannot write \(directory): it is a directory")
            #expect(failure { try FileAccess.write("1", to: "/dev/null") } == "cannot write /dev/null: it is not a regular file")
            #expect(failure { try FileAccess.write("1", to: directory + "/no/such.json") }
                == "cannot write \(directory)/no/such.json: the directory \(directory)/no does not exist")
            #expect(failure { try FileAccess.write("1", to: readOnly + "/x.json") }
                == "cannot write \(readOnly)/x.json: \(readOnly) is not a directory")
        }
        // the case of the issue, where /proc exists (a read-only kernel file)
        if FileManager.default.fileExists(atPath: "/proc/version") {
            #expect(failure { try FileAccess.write("1", to: "/proc/version") } == "cannot write /proc/version: permission denied: the file is read-only")
        }
    }

    @Test func writeReplacesTheFileAtomicallyAndKeepsItsPermissions() throws {
        try inDirectory { directory in
            let file = directory + "/out.json"
            try FileAccess.write("first\n", to: file)
            #expect(try FileAccess.readText(file) == "first\n")
            chmod(file, 0o600)
            try FileAccess.write("second\n", to: file)
            #expect(try FileAccess.readText(file) == "second\n")
            let permissions = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
            #expect(permissions.map { $0 & 0o777 } == 0o600)
            // no temporary file is left behind
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["out.json"])
        }
    }

    @Test func databaseDirectoryProblems() throws {
        try inDirectory { directory in
            let file = directory + "/file"
            try Data("x".utf8).write(to: URL(fileURLWithPath: file))
            #expect(FileAccess.databaseDirectoryProblem(directory) == nil)
            #expect(FileAccess.databaseDirectoryProblem(directory + "/new/db") == nil)
            #expect(FileAccess.databaseDirectoryProblem(file) == "it is not a directory")
            #expect(FileAccess.databaseDirectoryProblem(file + "/a/b") == "\(file) is not a directory")
        }
    }
}
