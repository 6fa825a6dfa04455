import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A blocking TCP connection to 127.0.0.1 for the network workloads, speaking just enough
/// WebSocket (RFC 6455: the upgrade, masked text frames out, unmasked frames in) and HTTP/1.1
/// to drive `ember serve` as Firebase's clients would, without a client library's own costs in
/// the figures. A connection belongs to one thread at a time (handed over, never shared: hence
/// `@unchecked Sendable`).
///
/// Frames can be read blocking (``nextFrame()``) or, for many connections on one thread, from a
/// `poll` loop: ``receiveAvailable()`` when ``socket`` is readable, then ``bufferedFrame()``
/// until it gives `nil`.
final class BenchSocket: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let socket: Int32
    private var input: [UInt8] = []
    private var inputStart = 0
    private var maskSeed: UInt32 = 0x9E37_79B9

    /// Connects to 127.0.0.1:`port`.
    init(port: Int) throws {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw Failure(description: "connect to 127.0.0.1:\(port): \(reason)")
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        socket = fd
    }

    deinit { Glibc.close(socket) }

    // MARK: Bytes

    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(socket, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "write: \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }

    /// Reads what the socket has (blocking until something arrives).
    /// - Returns: how many bytes arrived (0: the server closed).
    @discardableResult
    func receiveAvailable() throws -> Int {
        if inputStart > 0 && inputStart == input.count {
            input.removeAll(keepingCapacity: true)
            inputStart = 0
        } else if inputStart > 65_536 {
            input.removeFirst(inputStart)
            inputStart = 0
        }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(socket, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "read: \(String(cString: strerror(errno)))")
            }
            input.append(contentsOf: buffer[0..<count])
            return count
        }
    }

    // MARK: WebSocket

    /// The upgrade to the realtime protocol (`/.ws?v=5&ns=NAME`), then the server's hello.
    func upgrade(namespace: String) throws {
        let request = "GET /.ws?v=5&ns=\(namespace) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        try write(Array(request.utf8))
        let head = try readHead()
        guard head.hasPrefix("HTTP/1.1 101") else { throw Failure(description: "the upgrade was refused: \(head.prefix(80))") }
        let hello = try nextFrame()
        guard hello.contains("\"h\"") else { throw Failure(description: "no hello: \(hello.prefix(80))") }
    }

    /// Sends `text` as one masked text frame.
    func send(_ text: String) throws {
        let payload = Array(text.utf8)
        var frame: [UInt8] = [0x81]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            frame.append(0x80 | 126)
            frame += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8((payload.count >> shift) & 0xFF)) }
        }
        maskSeed = maskSeed &* 1_664_525 &+ 1_013_904_223
        let mask = withUnsafeBytes(of: maskSeed) { Array($0) }
        frame += mask
        frame.reserveCapacity(frame.count + payload.count)
        for (index, byte) in payload.enumerated() { frame.append(byte ^ mask[index & 3]) }
        try write(frame)
    }

    /// The next text frame, blocking.
    func nextFrame() throws -> String {
        while true {
            if let frame = try bufferedFrame() { return frame }
            guard try receiveAvailable() > 0 else { throw Failure(description: "the server closed the connection") }
        }
    }

    /// A whole text frame already received, if there is one (control frames are skipped).
    func bufferedFrame() throws -> String? {
        while true {
            let available = input.count - inputStart
            guard available >= 2 else { return nil }
            let opcode = input[inputStart] & 0x0F
            var length = Int(input[inputStart + 1] & 0x7F)
            var header = 2
            if length == 126 {
                guard available >= 4 else { return nil }
                length = Int(input[inputStart + 2]) << 8 | Int(input[inputStart + 3])
                header = 4
            } else if length == 127 {
                guard available >= 10 else { return nil }
                length = (0..<8).reduce(0) { $0 << 8 | Int(input[inputStart + 2 + $1]) }
                header = 10
            }
            guard available >= header + length else { return nil }
            let start = inputStart + header
            inputStart = start + length
            if opcode == 0x8 { throw Failure(description: "the server closed the WebSocket") }
            guard opcode == 0x1 else { continue }
            return String(decoding: input[start..<(start + length)], as: UTF8.self)
        }
    }

    // MARK: HTTP

    /// Sends one HTTP/1.1 request (keep-alive) and reads its response.
    /// - Returns: the status code and the body.
    func http(_ method: String, _ target: String, body: String) throws -> (status: Int, body: String) {
        let bytes = Array(body.utf8)
        try write(Array("\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(bytes.count)\r\n\r\n".utf8) + bytes)
        let head = try readHead()
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        var length = 0
        for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
            length = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
        }
        while input.count - inputStart < length {
            guard try receiveAvailable() > 0 else { throw Failure(description: "the server closed the connection") }
        }
        let text = String(decoding: input[inputStart..<(inputStart + length)], as: UTF8.self)
        inputStart += length
        return (status, text)
    }

    /// Reads up to the end of an HTTP head (`\r\n\r\n`) and returns it.
    private func readHead() throws -> String {
        while true {
            if let end = Self.headEnd(input, from: inputStart) {
                let head = String(decoding: input[inputStart..<end], as: UTF8.self)
                inputStart = end + 4
                return head
            }
            guard try receiveAvailable() > 0 else { throw Failure(description: "the server closed the connection") }
        }
    }

    private static func headEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + 3 < bytes.count {
            if bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 { return index }
            index += 1
        }
        return nil
    }
}
