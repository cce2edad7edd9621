#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import BlueDotCore
import HCI

/// HCI over an H4 byte stream: a TCP connection (Bumble's `tcp-server`, a network-attached controller) or a
/// serial line (`/dev/ttyUSB0`, a Zephyr `hci_uart` board, a pty).
///
/// Bytes arrive in chunks of any size and go through `H4Framer`; each whole packet is yielded. The peer closing
/// the link finishes the stream; a read error or lost framing sync throws an `SystemIOError` naming this
/// transport. Reading happens on a dedicated thread per open link, so it never blocks Swift's cooperative pool,
/// and `close()` interrupts it at once through a wake pipe. `open()` after the stream ended reconnects; opening
/// while a link is up closes that link first, so descriptors never pile up.
public final class H4StreamTransport: HCITransport {
    /// Where the byte stream comes from.
    public enum Endpoint: Sendable, Hashable, CustomStringConvertible {
        /// A TCP connection to `host:port` (IPv4 or IPv6).
        case tcp(TCPEndpoint)
        /// A serial line or pty at `path`, raw 8N1 at `baudRate`, with RTS/CTS flow control when `flowControl`.
        case serial(path: String, baudRate: BaudRate, flowControl: Bool)

        /// `tcp:host:port` or `tty:/dev/ttyUSB0@115200`.
        public var description: String {
            switch self {
            case let .tcp(endpoint): "tcp:\(endpoint)"
            case let .serial(path, baudRate, flowControl): "tty:\(path)@\(baudRate)\(flowControl ? "+rtscts" : "")"
            }
        }
    }

    /// Where this transport connects.
    public let endpoint: Endpoint
    /// How long a TCP connect may take before `open()` fails.
    public let connectTimeout: Duration
    /// How long one `send` may wait for room in the socket or serial buffer.
    public let writeTimeout: Duration
    /// The endpoint's description, used in logs and errors.
    public var name: String { endpoint.description }

    private let current = OpenLink()

    /// Creates a transport for `endpoint`; nothing is opened until `open()`.
    public init(endpoint: Endpoint, connectTimeout: Duration = .seconds(5), writeTimeout: Duration = .seconds(2)) {
        self.endpoint = endpoint
        self.connectTimeout = connectTimeout
        self.writeTimeout = writeTimeout
    }

    /// A TCP transport for `host:port` or `[v6]:port`.
    public convenience init(tcp text: String, connectTimeout: Duration = .seconds(5)) throws(SystemIOError) {
        self.init(endpoint: .tcp(try TCPEndpoint(parsing: text)), connectTimeout: connectTimeout)
    }

    /// A serial transport for the tty at `path`; `baudRate` must be one of `BaudRate.standard`.
    public convenience init(serialPath path: String, baudRate: Int = 115200, flowControl: Bool = false) throws(SystemIOError) {
        self.init(endpoint: .serial(path: path, baudRate: try BaudRate(baudRate), flowControl: flowControl))
    }

    /// Connects (or opens the tty) and returns the packets framed from its bytes. Any link already open is
    /// closed first. Throws `SystemIOError`.
    public func open() async throws -> AsyncThrowingStream<HCIPacket, any Error> {
        await close()
        let endpoint = endpoint
        let name = name
        let timeout = connectTimeout
        let descriptor = try await Blocking.run("connect") { () throws(SystemIOError) -> Int32 in
            switch endpoint {
            case let .tcp(tcp):
                return try StreamOpeners.connectTCP(tcp, timeout: timeout, name: name)
            case let .serial(path, baudRate, flowControl):
                return try StreamOpeners.openSerial(path: path, baudRate: baudRate, flowControl: flowControl, name: name)
            }
        }
        var policy = DescriptorLink.Policy()
        switch endpoint {
        case .tcp: policy.isSocket = true
        case .serial: policy.hangUpErrors = [EIO]  // a pty whose master closed, a USB adapter unplugged
        }
        let link = try DescriptorLink(descriptor: descriptor, name: name, policy: policy)
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: HCIPacket.self)
        continuation.onTermination = { _ in link.stop() }
        current.install(link)
        let framer = LockedValue(H4Framer())
        link.startReading(
            onBytes: { chunk throws(SystemIOError) in
                try framer.withLock { (framer: inout H4Framer) throws(SystemIOError) in
                    framer.append(chunk)
                    do throws(H4Framer.Error) {
                        while let packet = try framer.next() { continuation.yield(packet) }
                    } catch {
                        throw .framingLost(transport: name, error)
                    }
                }
            },
            onEnd: { error in continuation.finish(throwing: error) })
        return stream
    }

    /// Writes one packet as H4 bytes. Throws `SystemIOError` (`.notOpen` after the link ended).
    public func send(_ packet: HCIPacket) async throws { try current.send(packet, transport: name, timeout: writeTimeout) }

    /// Stops the reader, closes the descriptor and returns once both are done.
    public func close() async { await current.close() }
}
