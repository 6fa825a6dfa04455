import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory under `/tmp` for one peer workload, removed by ``remove()``; unlike
/// ``TemporaryDirectory`` it throws rather than stops the run when none can be made.
struct PeerDirectory {
    /// Why no directory could be made.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let path: String

    /// Makes `/tmp/ember-bench-<prefix>-XXXXXX`.
    init(prefix: String) throws(Failure) {
        var template = Array("/tmp/ember-bench-\(prefix)-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw Failure(description: "mkdtemp: \(String(cString: strerror(errno)))")
        }
        path = String(cString: made)
    }

    /// `path/name`.
    func file(_ name: String) -> String { path + "/" + name }

    /// Removes the directory and everything in it.
    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
