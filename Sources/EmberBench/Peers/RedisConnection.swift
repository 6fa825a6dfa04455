#if canImport(Glibc)
import Glibc
#endif

/// A minimal blocking RESP2 client: one TCP connection (TCP_NODELAY) to a Redis server, with
/// buffered reads and writes.
///
/// Commands can be sent one at a time (``command(_:)``) or pipelined (``send(_:)`` many, then
/// ``flush()`` and as many ``readReply()``). A subscriber's pushes can be read without blocking
/// from a `poll` loop: ``receiveAvailable()`` when ``socket`` is readable, then
/// ``bufferedReply()`` until it gives `nil`. A connection belongs to one thread at a time.
final class RedisConnection {
    /// The socket's file descriptor, for `poll`.
    let socket: Int32
    /// How long a blocking read waits for the server.
    let timeout: Double
    /// Received bytes not parsed yet.
    private let input = ReceiveBuffer()
    private var output: [UInt8] = []
    private var isClosed = false

    /// Connects to `host:port` (a name or an IPv4 or IPv6 address).
    init(host: String, port: Int, timeout: Double = 30) throws(RedisError) {
        self.timeout = timeout
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw .connect("\(host):\(port): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate {
            candidate = info.pointee.ai_next
            let fd = Glibc.socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            if fd < 0 {
                lastError = String(cString: strerror(errno))
                continue
            }
            if Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 {
                var one: Int32 = 1
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                socket = fd
                return
            }
            lastError = String(cString: strerror(errno))
            Glibc.close(fd)
        }
        throw .connect("\(host):\(port): \(lastError)")
    }

    deinit {
        close()
    }

    /// Closes the socket (also done when the connection is released).
    func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(socket)
    }

    // MARK: Commands

    /// Sends one command and waits for its reply; an error reply throws ``RedisError/server(_:)``.
    @discardableResult
    func command(_ arguments: String...) throws(RedisError) -> RESPValue {
        try command(arguments)
    }

    /// Sends one command and waits for its reply; an error reply throws ``RedisError/server(_:)``.
    @discardableResult
    func command(_ arguments: [String]) throws(RedisError) -> RESPValue {
        send(arguments)
        try flush()
        let reply = try readReply()
        if case .error(let message) = reply { throw .server(message) }
        return reply
    }

    /// Sends `commands` in one write and reads their replies in order; any error reply throws
    /// ``RedisError/server(_:)`` once all replies are read.
    func pipeline(_ commands: [[String]]) throws(RedisError) -> [RESPValue] {
        for arguments in commands { send(arguments) }
        try flush()
        var replies: [RESPValue] = []
        replies.reserveCapacity(commands.count)
        var firstError: String?
        for _ in commands {
            let reply = try readReply()
            if case .error(let message) = reply, firstError == nil { firstError = message }
            replies.append(reply)
        }
        if let firstError { throw .server(firstError) }
        return replies
    }

    // MARK: Writing

    /// Appends a command to the output buffer (a RESP array of bulk strings); ``flush()`` sends it.
    func send(_ arguments: [String]) {
        appendHeader(UInt8(ascii: "*"), arguments.count)
        for argument in arguments {
            let utf8 = argument.utf8
            appendHeader(UInt8(ascii: "$"), utf8.count)
            output.append(contentsOf: utf8)
            output.append(UInt8(ascii: "\r"))
            output.append(UInt8(ascii: "\n"))
        }
    }

    private func appendHeader(_ type: UInt8, _ count: Int) {
        output.append(type)
        output.append(contentsOf: String(count).utf8)
        output.append(UInt8(ascii: "\r"))
        output.append(UInt8(ascii: "\n"))
    }

    /// Writes the whole output buffer to the socket.
    func flush() throws(RedisError) {
        var sent = 0
        let result: RedisError? = output.withUnsafeBytes { buffer in
            while sent < buffer.count {
                let written = Glibc.send(socket, buffer.baseAddress! + sent, buffer.count - sent, Int32(MSG_NOSIGNAL))
                if written < 0 {
                    if errno == EINTR { continue }
                    return RedisError.system("send")
                }
                sent += written
            }
            return nil
        }
        output.removeAll(keepingCapacity: true)
        if let result { throw result }
    }

    // MARK: Reading

    /// The next reply, waiting up to ``timeout`` for more bytes as often as needed. Error replies
    /// are returned, not thrown.
    func readReply() throws(RedisError) -> RESPValue {
        while true {
            if let reply = try bufferedReply() { return reply }
            try waitReadable()
            guard try receiveAvailable() > 0 else { throw .closed }
        }
    }

    /// The next reply if the bytes received so far hold a whole one, else `nil` (never blocks).
    func bufferedReply() throws(RedisError) -> RESPValue? {
        guard input.count > 0 else { return nil }
        guard let parsed = try RESPValue.parse(input.unread.assumingMemoryBound(to: UInt8.self)) else { return nil }
        input.consume(parsed.length)
        return parsed.value
    }

    /// Reads what one `recv` gives (blocks when nothing has arrived; call it when `poll` says
    /// the socket is readable); the number of bytes, 0 when the server closed the connection.
    @discardableResult
    func receiveAvailable() throws(RedisError) -> Int {
        let count = input.receive(from: socket)
        guard count >= 0 else { throw .system("recv") }
        return count
    }

    /// Waits until the socket is readable, up to ``timeout``.
    private func waitReadable() throws(RedisError) {
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&descriptor, 1, Int32(timeout * 1000))
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 { throw .system("poll") }
            if ready == 0 { throw .timeout(seconds: timeout) }
            return
        }
    }
}
