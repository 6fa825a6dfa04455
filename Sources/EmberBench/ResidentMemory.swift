#if canImport(Glibc)
import Glibc
#endif

/// The process's resident set size, from `/proc/self/statm`.
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
