import Glibc

/// A pseudo-terminal pair for driving a line editor as a user at a terminal would.
///
/// `posix_openpt`, `grantpt`, `unlockpt` and `ptsname` are hidden from Swift's Glibc module by
/// feature-test macros, so they are looked up with `dlsym`.
final class PseudoTerminal {
    /// The controlling side: what the "user" types goes in, what the program draws comes out.
    let master: Int32
    /// The terminal side given to the program.
    let terminal: Int32
    /// The terminal side's device path (`/dev/pts/N`), for a child process to open.
    let name: String

    private typealias OpenFunction = @convention(c) (Int32) -> Int32
    private typealias SetupFunction = @convention(c) (Int32) -> Int32
    private typealias NameFunction = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?

    private static func function<T>(_ name: String, as type: T.Type) -> T? {
        dlsym(nil, name).map { unsafeBitCast($0, to: type) }
    }

    /// Opens a pair, `columns` wide; `nil` when the system has no pseudo-terminals.
    init?(columns: UInt16 = 100) {
        guard let openpt = Self.function("posix_openpt", as: OpenFunction.self),
            let grantpt = Self.function("grantpt", as: SetupFunction.self),
            let unlockpt = Self.function("unlockpt", as: SetupFunction.self),
            let ptsname = Self.function("ptsname", as: NameFunction.self)
        else { return nil }
        let master = openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0 else { return nil }
        guard grantpt(master) == 0, unlockpt(master) == 0, let name = ptsname(master) else {
            close(master)
            return nil
        }
        let terminal = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard terminal >= 0 else {
            close(master)
            return nil
        }
        self.master = master
        self.terminal = terminal
        self.name = String(cString: name)
        var size = winsize(ws_row: 24, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
    }

    deinit {
        close(terminal)
        close(master)
    }

    /// Types `keys` as if at the keyboard.
    func type(_ keys: String) -> Bool {
        let bytes = Array(keys.utf8)
        return bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) } == bytes.count
    }

    /// What the program has drawn so far, without waiting.
    func screen() -> String {
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
