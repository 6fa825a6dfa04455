#if canImport(Glibc)
import Glibc
#endif

/// The process's resident set size, from `/proc/self/statm`, and its peak, from `/proc/self/status`.
enum ResidentMemory {
    static func bytes() -> Int {
        guard let file = fopen("/proc/self/statm", "r") else { return 0 }
        defer { fclose(file) }
        var size = 0, resident = 0
        guard withUnsafeMutablePointer(to: &size, { sizePointer in
            withUnsafeMutablePointer(to: &resident) { residentPointer in
                readTwo(file, sizePointer, residentPointer)
            }
        }) else { return 0 }
        return resident * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The process's peak resident set size so far (`VmHWM` in `/proc/self/status`).
    static func peakBytes() -> Int {
        statusField("VmHWM:")
    }

    /// A `kB` field of `/proc/self/status`, in bytes (0 when it cannot be read).
    private static func statusField(_ name: String) -> Int {
        guard let file = fopen("/proc/self/status", "r") else { return 0 }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 256)
        while fgets(&buffer, 256, file) != nil {
            let length = buffer.firstIndex(of: 0) ?? buffer.count
            let line = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard line.hasPrefix(name) else { continue }
            let fields = line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
            return (fields.first.flatMap { Int($0) } ?? 0) * 1024
        }
        return 0
    }

    private static func readTwo(_ file: UnsafeMutablePointer<FILE>, _ a: UnsafeMutablePointer<Int>, _ b: UnsafeMutablePointer<Int>) -> Bool {
        var buffer = [CChar](repeating: 0, count: 128)
        guard fgets(&buffer, 128, file) != nil else { return false }
        let length = buffer.firstIndex(of: 0) ?? buffer.count
        let fields = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self).split(separator: " ")
        guard fields.count >= 2, let first = Int(fields[0]), let second = Int(fields[1]) else { return false }
        a.pointee = first
        b.pointee = second
        return true
    }
}
