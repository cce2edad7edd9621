#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CBlueZ

/// The one place this module calls the kernel: thin wrappers that retry `EINTR` and turn failures into
/// `SystemError` values naming the call. Nothing else in SystemIO calls a syscall directly.
enum System {
    /// Runs `body` until it stops failing with `EINTR`; a result of -1 becomes a `SystemError` for `call`.
    @inline(__always)
    private static func retrying<R: BinaryInteger>(_ call: @autoclosure () -> String, _ body: () -> R) throws(SystemError) -> R {
        while true {
            let result = body()
            if result != -1 { return result }
            let code = errno
            if code != EINTR { throw SystemError(code: code, call: call()) }
        }
    }

    /// `socket(2)`; `label` names the family for errors, such as `socket(AF_BLUETOOTH)`.
    static func socket(_ domain: Int32, _ type: Int32, _ proto: Int32, label: String) throws(SystemError) -> Int32 {
        try retrying(label) { Glibc.socket(domain, type, proto) }
    }

    /// `bind(2)` to an address structure of any socket family.
    static func bind<Address>(_ fd: Int32, _ address: Address, label: String) throws(SystemError) {
        var address = address
        _ = try retrying(label) {
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.bind(fd, $0, socklen_t(MemoryLayout<Address>.size))
                }
            }
        }
    }

    /// `connect(2)` on a non-blocking socket: true when connected at once, false when in progress.
    static func connect(_ fd: Int32, _ address: [UInt8], label: String) throws(SystemError) -> Bool {
        let result = address.withUnsafeBytes { raw in
            Glibc.connect(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
        }
        if result == 0 { return true }
        let code = errno
        if code == EINPROGRESS || code == EINTR { return false }
        throw SystemError(code: code, call: label)
    }

    /// `setsockopt(2)` with a value of any layout.
    static func setsockopt<Value>(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Value, label: String) throws(SystemError) {
        var value = value
        _ = try retrying(label) {
            withUnsafeBytes(of: &value) { Glibc.setsockopt(fd, level, name, $0.baseAddress, socklen_t($0.count)) }
        }
    }

    /// `getsockopt(2)` for an `int` option, such as `SO_ERROR`.
    static func getsockoptInt(_ fd: Int32, _ level: Int32, _ name: Int32, label: String) throws(SystemError) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        _ = try retrying(label) { Glibc.getsockopt(fd, level, name, &value, &length) }
        return value
    }

    /// `ioctl(2)` with an integer argument.
    static func ioctl(_ fd: Int32, _ request: UInt, _ argument: Int32, label: String) throws(SystemError) {
        _ = try retrying(label) { Glibc.ioctl(fd, request, argument) }
    }

    /// `ioctl(2)` with a pointer to a structure the kernel reads and fills.
    static func ioctl<Value>(_ fd: Int32, _ request: UInt, _ value: inout Value, label: String) throws(SystemError) {
        _ = try retrying(label) {
            withUnsafeMutablePointer(to: &value) { Glibc.ioctl(fd, request, UnsafeMutableRawPointer($0)) }
        }
    }

    /// `read(2)` into `buffer`; returns the byte count (0 at end of file) or nil when a non-blocking fd has none.
    static func read(_ fd: Int32, into buffer: inout [UInt8], label: String) throws(SystemError) -> Int? {
        let count = buffer.count
        while true {
            let result = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, count) }
            if result >= 0 { return result }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return nil }
            throw SystemError(code: code, call: label)
        }
    }

    /// `write(2)` of a slice; returns how many bytes went, or nil when a non-blocking fd is full.
    static func write(_ fd: Int32, _ bytes: ArraySlice<UInt8>, label: String) throws(SystemError) -> Int? {
        while true {
            let result = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if result >= 0 { return result }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return nil }
            throw SystemError(code: code, call: label)
        }
    }

    /// `close(2)`. Errors are not reported: after close the descriptor is gone either way (Linux semantics).
    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// `shutdown(2)` of both directions; used to wake a reader blocked on a socket. Errors are ignored.
    static func shutdown(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    /// `poll(2)`; returns how many descriptors are ready (0 on timeout). `timeout` is in milliseconds, -1 for none.
    static func poll(_ fds: inout [pollfd], timeout: Int32) throws(SystemError) -> Int32 {
        let count = nfds_t(fds.count)
        return try retrying("poll") { fds.withUnsafeMutableBufferPointer { Glibc.poll($0.baseAddress, count, timeout) } }
    }

    /// `pipe(2)`, then close-on-exec and non-blocking on both ends: (read end, write end).
    static func pipe() throws(SystemError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        _ = try retrying("pipe") { ends.withUnsafeMutableBufferPointer { Glibc.pipe($0.baseAddress) } }
        do throws(SystemError) {
            for end in ends {
                _ = try retrying("fcntl(F_SETFD)") { fcntl(end, F_SETFD, FD_CLOEXEC) }
                try setNonBlocking(end, true)
            }
        } catch {
            ends.forEach { Glibc.close($0) }
            throw error
        }
        return (ends[0], ends[1])
    }

    /// `open(2)` of a path.
    static func open(_ path: String, _ flags: Int32, label: String) throws(SystemError) -> Int32 {
        try retrying(label) { Glibc.open(path, flags) }
    }

    /// `open(2)` of a path that may be created, with the permission bits for a new file.
    static func open(_ path: String, _ flags: Int32, mode: mode_t, label: String) throws(SystemError) -> Int32 {
        try retrying(label) { Glibc.open(path, flags, mode) }
    }

    /// Sets or clears `O_NONBLOCK` with `fcntl(2)`.
    static func setNonBlocking(_ fd: Int32, _ enabled: Bool) throws(SystemError) {
        let flags = try retrying("fcntl(F_GETFL)") { fcntl(fd, F_GETFL) }
        let wanted = enabled ? flags | O_NONBLOCK : flags & ~O_NONBLOCK
        _ = try retrying("fcntl(F_SETFL)") { fcntl(fd, F_SETFL, wanted) }
    }

    /// `tcgetattr(3)`.
    static func tcgetattr(_ fd: Int32, label: String) throws(SystemError) -> termios {
        var attributes = termios()
        _ = try retrying(label) { Glibc.tcgetattr(fd, &attributes) }
        return attributes
    }

    /// `tcsetattr(3)` with `TCSANOW`, then `tcflush(3)` of both queues so no stale bytes remain.
    static func tcsetattr(_ fd: Int32, _ attributes: termios, label: String) throws(SystemError) {
        var attributes = attributes
        _ = try retrying(label) { Glibc.tcsetattr(fd, TCSANOW, &attributes) }
        _ = try retrying("tcflush") { Glibc.tcflush(fd, TCIOFLUSH) }
    }

    /// `listen(2)`.
    static func listen(_ fd: Int32, backlog: Int32, label: String) throws(SystemError) {
        _ = try retrying(label) { Glibc.listen(fd, backlog) }
    }

    /// `accept4(2)`-like: accepts one connection, close-on-exec; the peer address is not returned.
    static func accept(_ fd: Int32, label: String) throws(SystemError) -> Int32 {
        let client = try retrying(label) { Glibc.accept(fd, nil, nil) }
        _ = try retrying("fcntl(F_SETFD)") { fcntl(client, F_SETFD, FD_CLOEXEC) }
        return client
    }

    /// The local port of a bound IPv4 socket (`getsockname(2)`).
    static func localPort(_ fd: Int32, label: String) throws(SystemError) -> UInt16 {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = try retrying(label) {
            withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.getsockname(fd, $0, &length) }
            }
        }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Opens a new pseudo-terminal through `/dev/ptmx` (what `posix_openpt` does on Linux): unlocks the slave
    /// (`TIOCSPTLCK`) and asks its number (`TIOCGPTN`). Returns the master descriptor and the slave's path.
    static func openPseudoTerminal() throws(SystemError) -> (master: Int32, slavePath: String) {
        let master = try open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC, label: "open(/dev/ptmx)")
        do throws(SystemError) {
            var unlock: Int32 = 0
            try ioctl(master, bluedot_TIOCSPTLCK, &unlock, label: "ioctl(TIOCSPTLCK)")
            var number: Int32 = 0
            try ioctl(master, bluedot_TIOCGPTN, &number, label: "ioctl(TIOCGPTN)")
            return (master, "/dev/pts/\(number)")
        } catch {
            Glibc.close(master)
            throw error
        }
    }
}

extension System {
    /// One address `getaddrinfo(3)` found: what to pass to `socket(2)` and `connect(2)`.
    struct ResolvedAddress: Sendable {
        var family: Int32
        var socketType: Int32
        var proto: Int32
        var address: [UInt8]
    }

    /// Resolves `host` and `port` to TCP stream addresses (IPv4 and IPv6) with `getaddrinfo(3)`.
    /// Failure is the resolver's own message (`gai_strerror`), which has no `errno`.
    static func resolve(host: String, port: UInt16) -> Result<[ResolvedAddress], ResolveFailure> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV  // no AI_ADDRCONFIG: it hides ::1 on hosts with only loopback IPv6
        var list: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, String(port), &hints, &list)
        guard code == 0 else { return .failure(ResolveFailure(message: String(cString: gai_strerror(code)))) }
        defer { freeaddrinfo(list) }
        var found: [ResolvedAddress] = []
        var entry = list
        while let current = entry?.pointee {
            if let address = current.ai_addr {
                let bytes = Array(UnsafeRawBufferPointer(start: address, count: Int(current.ai_addrlen)))
                found.append(ResolvedAddress(
                    family: current.ai_family, socketType: current.ai_socktype, proto: current.ai_protocol,
                    address: bytes))
            }
            entry = current.ai_next
        }
        return .success(found)
    }

    /// Why `getaddrinfo(3)` failed.
    struct ResolveFailure: Error, Sendable {
        var message: String
    }
}
