#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CBlueZ

/// Blocking openers for the two byte streams H4 travels over. Each returns a descriptor ready for
/// `DescriptorLink` or throws a named error; none leaves a descriptor open when it throws.
enum StreamOpeners {
    /// Connects to `endpoint`, trying each resolved address (IPv6 and IPv4) within `timeout` overall, and
    /// sets `TCP_NODELAY` so each command leaves at once.
    static func connectTCP(_ endpoint: TCPEndpoint, timeout: Duration, name: String) throws(SystemIOError) -> Int32 {
        let addresses: [System.ResolvedAddress]
        switch System.resolve(host: endpoint.host, port: endpoint.port) {
        case let .success(found): addresses = found
        case let .failure(failure): throw .cannotResolve(host: endpoint.host, reason: failure.message)
        }
        guard !addresses.isEmpty else { throw .cannotResolve(host: endpoint.host, reason: "no addresses") }
        let deadline = ContinuousClock.now + timeout
        var lastError: SystemIOError = .connectTimedOut(transport: name, timeout: timeout)
        for address in addresses {
            do throws(SystemIOError) {
                return try connectOne(address, deadline: deadline, timeout: timeout, name: name)
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    private static func connectOne(_ address: System.ResolvedAddress, deadline: ContinuousClock.Instant,
                                   timeout: Duration, name: String) throws(SystemIOError) -> Int32 {
        let fd: Int32
        do throws(SystemError) {
            fd = try System.socket(address.family, address.socketType | Int32(SOCK_CLOEXEC.rawValue),
                                   address.proto, label: "socket(TCP)")
        } catch {
            throw .system(transport: name, error)
        }
        let connected: Bool
        do throws(SystemError) {
            try System.setNonBlocking(fd, true)
            let immediate = try System.connect(fd, address.address, label: "connect")
            connected = try immediate ? true : waitForConnect(fd, deadline: deadline)
            if connected {
                try System.setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, Int32(1), label: "setsockopt(TCP_NODELAY)")
            }
        } catch {
            System.close(fd)
            throw .system(transport: name, error)
        }
        guard connected else {
            System.close(fd)
            throw .connectTimedOut(transport: name, timeout: timeout)
        }
        return fd
    }

    /// Waits for a non-blocking connect to finish: true when connected, false at the deadline.
    private static func waitForConnect(_ fd: Int32, deadline: ContinuousClock.Instant) throws(SystemError) -> Bool {
        let left = deadline - ContinuousClock.now
        guard left > .zero else { return false }
        var fds = [pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)]
        guard try System.poll(&fds, timeout: Int32(clamping: left.milliseconds + 1)) > 0 else { return false }
        let code = try System.getsockoptInt(fd, SOL_SOCKET, SO_ERROR, label: "getsockopt(SO_ERROR)")
        if code != 0 { throw SystemError(code: code, call: "connect") }
        return true
    }

    /// Opens a serial line (or a pty) in raw 8N1 mode at `baudRate`, with RTS/CTS flow control when asked.
    static func openSerial(path: String, baudRate: BaudRate, flowControl: Bool, name: String) throws(SystemIOError) -> Int32 {
        let fd: Int32
        do throws(SystemError) {
            fd = try System.open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC, label: "open(\(path))")
        } catch {
            throw .system(transport: name, error)
        }
        do throws(SystemError) {
            var attributes = try System.tcgetattr(fd, label: "tcgetattr(\(path))")
            cfmakeraw(&attributes)
            attributes.c_cflag &= ~tcflag_t(PARENB | CSTOPB | CSIZE)
            attributes.c_cflag |= tcflag_t(CS8 | CLOCAL | CREAD)
            if flowControl {
                attributes.c_cflag |= tcflag_t(CRTSCTS)
            } else {
                attributes.c_cflag &= ~tcflag_t(CRTSCTS)
            }
            cfsetispeed(&attributes, baudRate.speed)
            cfsetospeed(&attributes, baudRate.speed)
            try System.tcsetattr(fd, attributes, label: "tcsetattr(\(path))")
            return fd
        } catch {
            System.close(fd)
            throw .system(transport: name, error)
        }
    }
}
