/// A link to one HCI controller: a BlueZ raw socket, an H4 byte stream over TCP or a serial line, or a recording.
///
/// Declared here, in the pure module, so that the scanner talks to any controller the same way; the
/// implementations that touch the kernel live in `SystemIO`, and tests may supply their own.
public protocol HCITransport: Sendable {
    /// A short name for logs and errors, such as `tcp:127.0.0.1:9000` or `hci0`.
    var name: String { get }

    /// Opens the link and returns the packets the controller sends, in order.
    ///
    /// The stream finishes when the controller side closes the link and throws when the link fails (including an
    /// H4 stream that lost sync). After the stream ends, `open()` may be called again to reconnect.
    func open() async throws -> AsyncThrowingStream<HCIPacket, any Error>

    /// Sends one packet (normally a command) to the controller. Throws when the link is not open or fails.
    func send(_ packet: HCIPacket) async throws

    /// Closes the link; the packet stream finishes. Safe to call more than once.
    func close() async

    /// The longest wait between two reopen attempts this transport wants, whatever the scanner's backoff; nil (the
    /// default): the backoff's own. A local adapter is cheap to look for, and should be back the moment it returns.
    var longestReopenWait: Duration? { get }

    /// What the last `open()` reached, when the name does not say it all (an adapter by its address: which hciN;
    /// by its index: which controller); nil (the default) otherwise. Logged when a link comes back.
    var openedDescription: String? { get }
}

extension HCITransport {
    public var longestReopenWait: Duration? { nil }
    public var openedDescription: String? { nil }
}

/// An error of a transport that says whether reconnecting could cure it.
///
/// A dropped link is worth reopening; a missing permission is not: the kernel refuses every command the same way
/// however often the scanner reconnects. The scanner stops with an error that is permanent instead of retrying it.
public protocol HCITransportError: Error {
    /// True when trying again cannot help: a missing capability, no Bluetooth in the kernel, an invalid address.
    var isPermanent: Bool { get }
}
