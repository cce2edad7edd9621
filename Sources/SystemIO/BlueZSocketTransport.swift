#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import BlueDotCore
import CBlueZ
import HCI

/// HCI through the Linux kernel's Bluetooth stack: a raw HCI socket bound to one adapter (`hci0`).
///
/// Each read returns exactly one packet with its H4 packet indicator first, so no framer is needed. On the raw
/// channel the socket filter passes only events (Command Complete, Command Status, Hardware Error, LE Meta):
/// commands are not echoed back, because the kernel would also copy in the commands bluetoothd sends.
///
/// Two channels:
/// - `.raw` (default) shares the adapter with bluetoothd. The adapter is brought up if it is down
///   (`HCIDEVUP`, needs `CAP_NET_ADMIN`); sending the scan's commands needs `CAP_NET_RAW` (the kernel lets anyone
///   open and bind the socket, and refuses the first command outside its safe list with `EPERM`, which stops the
///   scanner with the missing capability). bluetoothd may change scan
///   parameters or stop a scan it did not start, and the kernel may reject some LE commands while its own
///   scanning runs.
/// - `.user` (`HCI_CHANNEL_USER`) takes the adapter exclusively: no interference, every packet type arrives
///   unfiltered, and the controller behaves as on a bare UART. The price: the adapter must be down first
///   (`hciconfig hci0 down` or `btmgmt power off`), bluetoothd loses it while the link is open (no other
///   Bluetooth on it), and the host must do the whole controller set-up itself, starting with HCI Reset.
///   `EBUSY` means the adapter is up or held by someone else.
public final class BlueZSocketTransport: HCITransport {
    /// Which kernel channel the socket binds to.
    public enum Channel: Sendable, Hashable {
        /// `HCI_CHANNEL_RAW`: shared with bluetoothd.
        case raw
        /// `HCI_CHANNEL_USER`: exclusive; the adapter must be down.
        case user
    }

    /// Which adapter to open.
    public let adapter: AdapterSelector
    /// Which channel to bind.
    public let channel: Channel
    /// How long one `send` may wait for room in the socket buffer.
    public let writeTimeout: Duration
    /// The adapter as given (`hci0` or an address), for logs and errors.
    public var name: String { adapter.description }

    private let current = OpenLink()
    /// The adapter the last open found: its address tells a replugged controller under another name.
    private let opened = LockedValue<BlueZAdapter?>(nil)
    /// `hci1 (F0:F1:F2:F3:F4:F5)`: the adapter the last open found, by name and address; nil before the first.
    public var openedDescription: String? {
        opened.withLock { $0.map { "\($0.name) (\(AdapterSelector.format($0.address)))" } }
    }

    /// Creates a transport for `adapter`; nothing is opened until `open()`.
    public init(adapter: AdapterSelector, channel: Channel = .raw, writeTimeout: Duration = .seconds(2)) {
        self.adapter = adapter
        self.channel = channel
        self.writeTimeout = writeTimeout
    }

    /// Creates a transport for an adapter written `hciN` or `AA:BB:CC:DD:EE:FF`.
    public convenience init(adapter text: String, channel: Channel = .raw) throws(SystemIOError) {
        self.init(adapter: try AdapterSelector(parsing: text), channel: channel)
    }

    /// Opens the socket (bringing a raw-channel adapter up first) and returns the events it receives.
    /// Any link already open is closed first. Throws `SystemIOError`.
    public func open() async throws -> AsyncThrowingStream<HCIPacket, any Error> {
        await close()
        let adapter = adapter
        let channel = channel
        let previous = opened.withLock { $0?.address }
        let (descriptor, found) = try await Blocking.run("hci-open") {
            () throws(SystemIOError) -> (descriptor: Int32, adapter: BlueZAdapter) in
            try Self.openSocket(adapter: adapter, channel: channel, previous: previous)
        }
        opened.withLock { $0 = found }
        let link = try DescriptorLink(descriptor: descriptor, name: name, policy: .init(readSize: 4096))
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: HCIPacket.self)
        continuation.onTermination = { _ in link.stop() }
        current.install(link)
        link.startReading(
            onBytes: { chunk in
                var reader = ByteReader(chunk)
                guard let indicator = try? reader.u8("packet indicator"),
                      let type = HCIPacketType(rawValue: indicator) else { return }
                continuation.yield(HCIPacket(type: type, bytes: Array(reader.rest())))
            },
            onEnd: { error in continuation.finish(throwing: error) })
        return stream
    }

    /// Writes one packet, H4 indicator first, as the kernel expects. Throws `SystemIOError`.
    ///
    /// On the raw channel the kernel lets anyone open and bind the socket, and checks `CAP_NET_RAW` only when a
    /// command outside its small safe list is written: `EPERM` then is the permanent `.missingCapability`, not a
    /// dropped link.
    public func send(_ packet: HCIPacket) async throws {
        do {
            try current.send(packet, transport: name, timeout: writeTimeout)
        } catch SystemIOError.system(_, let error) where error.code == EPERM || error.code == EACCES {
            throw SystemIOError.missingCapability("CAP_NET_RAW", error)
        }
    }

    /// Stops the reader, closes the socket and returns once both are done.
    public func close() async { await current.close() }

    /// A second: looking for the adapter costs a socket and one ioctl per possible index, and a controller that
    /// comes back (replugged, its driver reloaded) is heard again within a second of its return rather than after
    /// the scanner's 8 s backoff.
    public var longestReopenWait: Duration? { .seconds(1) }
}
