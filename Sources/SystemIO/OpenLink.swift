import BlueDotCore
import HCI

/// The link a descriptor transport has open now, shared by the BlueZ socket and the H4 stream transports: both
/// write a packet as H4 bytes with a deadline and close by stopping the reader and waiting for it.
final class OpenLink: Sendable {
    private let current = LockedValue<DescriptorLink?>(nil)

    /// Makes `link` the open one (after `close()` closed any earlier one).
    func install(_ link: DescriptorLink) {
        current.withLock { $0 = link }
    }

    /// Writes one packet as H4 bytes (indicator first). Throws `SystemIOError` (`.notOpen` when no link is open).
    func send(_ packet: HCIPacket, transport name: String, timeout: Duration) throws {
        try write(packet.h4Bytes, transport: name, timeout: timeout)
    }

    /// Writes bytes as they are (a text protocol's line). Throws `SystemIOError` (`.notOpen` when no link is open).
    func write(_ bytes: [UInt8], transport name: String, timeout: Duration) throws {
        guard let link = current.withLock({ $0 }) else { throw SystemIOError.notOpen(transport: name) }
        try link.write(bytes, timeout: timeout)
    }

    /// Stops the reader, closes the descriptor and returns once both are done; nothing when no link is open.
    func close() async {
        guard let link = current.withLock({ link in defer { link = nil }; return link }) else { return }
        link.stop()
        await link.waitUntilFinished()
    }
}
