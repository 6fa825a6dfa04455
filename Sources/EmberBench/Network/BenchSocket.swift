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
/// until it gives `nil`. The hot loops read payloads as bytes (``nextPayload()``,
/// ``bufferedPayload()``) and search them with `memchr`/`memcmp`: input goes into one kept buffer, as
/// the Redis peer's client (`RedisConnection`) reads, so that neither client spends the cores
/// the servers need on copies, zeroed buffers or strings.
final class BenchSocket: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// A frame's payload, in the input buffer: valid until the next read.
    struct Payload {
        let bytes: UnsafeRawBufferPointer

        /// Whether the payload contains `needle`.
        func contains(_ needle: StaticString) -> Bool { find(needle) != nil }

        /// Where `needle` ends in the payload.
        func find(_ needle: StaticString) -> Int? {
            // memchr for the first byte, memcmp for the rest (Glibc's module has no memmem).
            let length = needle.utf8CodeUnitCount
            guard let base = bytes.baseAddress, length > 0, bytes.count >= length else { return nil }
            let first = Int32(needle.utf8Start.pointee)
            var offset = 0
            while offset + length <= bytes.count {
                guard let found = memchr(base + offset, first, bytes.count - length + 1 - offset) else { return nil }
                let at = base.distance(to: UnsafeRawPointer(found))
                if memcmp(found, needle.utf8Start, length) == 0 { return at + length }
                offset = at + 1
            }
            return nil
        }

        /// The decimal number right after `needle`.
        func number(after needle: StaticString) -> Int? {
            guard var index = find(needle) else { return nil }
            var value = 0
            var digits = 0
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                value = value * 10 + Int(bytes[index] - 48)
                index += 1
                digits += 1
            }
            return digits > 0 ? value : nil
        }

        var text: String { String(decoding: bytes, as: UTF8.self) }
    }

    let socket: Int32
    private let input = ReceiveBuffer()
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

    deinit {
        Glibc.close(socket)
    }

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

    /// Reads what the socket has (blocking until something arrives) into the input buffer.
    /// - Returns: how many bytes arrived (0: the server closed).
    @discardableResult
    func receiveAvailable() throws -> Int {
        let count = input.receive(from: socket)
        guard count >= 0 else { throw Failure(description: "read: \(String(cString: strerror(errno)))") }
        return count
    }

    private func byte(_ offset: Int) -> UInt8 { input[offset] }

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
    func nextFrame() throws -> String { try nextPayload().text }

    /// The next text frame's payload, blocking (valid until the next read).
    func nextPayload() throws -> Payload {
        while true {
            if let payload = try bufferedPayload() { return payload }
            guard try receiveAvailable() > 0 else { throw Failure(description: "the server closed the connection") }
        }
    }

    /// A whole text frame already received, if there is one (control frames are skipped).
    func bufferedFrame() throws -> String? { try bufferedPayload()?.text }

    /// A whole text frame's payload already received, if there is one (control frames are
    /// skipped); valid until the next read.
    func bufferedPayload() throws -> Payload? {
        while true {
            let available = input.count
            guard available >= 2 else { return nil }
            let opcode = byte(0) & 0x0F
            var length = Int(byte(1) & 0x7F)
            var header = 2
            if length == 126 {
                guard available >= 4 else { return nil }
                length = Int(byte(2)) << 8 | Int(byte(3))
                header = 4
            } else if length == 127 {
                guard available >= 10 else { return nil }
                length = (0..<8).reduce(0) { $0 << 8 | Int(byte(2 + $1)) }
                header = 10
            }
            guard available >= header + length else { return nil }
            let payload = UnsafeRawBufferPointer(rebasing: input.unread[header..<(header + length)])
            input.consume(header + length)
            if opcode == 0x8 { throw Failure(description: "the server closed the WebSocket") }
            guard opcode == 0x1 else { continue }
            return Payload(bytes: payload)
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
        while input.count < length {
            guard try receiveAvailable() > 0 else { throw Failure(description: "the server closed the connection") }
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: input.unread[..<length]), as: UTF8.self)
        input.consume(length)
        return (status, text)
    }

    /// Reads up to the end of an HTTP head (`\r\n\r\n`) and returns it.
    private func readHead() throws -> String {
        while true {
            let available = input.unread
            if let end = Payload(bytes: available).find("\r\n\r\n") {
                let head = String(decoding: UnsafeRawBufferPointer(rebasing: available[..<(end - 4)]), as: UTF8.self)
                input.consume(end)
                return head
            }
            guard try receiveAvailable() > 0 else { throw Failure(description: "the server closed the connection") }
        }
    }
}
