import HCI

/// A transport whose `open()` always fails, like an adapter that is not there.
struct UnopenableTransport: HCITransport {
    struct Refused: Error, CustomStringConvertible {
        var description: String { "No such device (ENODEV)" }
    }

    var name: String { "test:missing-adapter" }
    func open() async throws -> AsyncThrowingStream<HCIPacket, any Error> { throw Refused() }
    func send(_ packet: HCIPacket) async throws { throw Refused() }
    func close() async {}
}
