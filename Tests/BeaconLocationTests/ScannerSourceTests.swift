import BeaconLocation
import BlueDotCore
import HCI
import Logging
import Testing

/// The live source is restarted by the input runner after a failure; each restart must really try the controller again.
@Suite struct ScannerSourceTests {
    /// A controller link that cannot be opened, counting the attempts.
    final class UnreachableTransport: HCITransport {
        struct Unreachable: Error, Equatable {}
        let opens = LockedValue(0)
        var name: String { "unreachable" }

        func open() async throws -> AsyncThrowingStream<HCIPacket, any Error> {
            opens.withLock { $0 += 1 }
            throw Unreachable()
        }

        func send(_ packet: HCIPacket) async throws { throw Unreachable() }
        func close() async {}
    }

    @Test func everyRunOpensTheTransportAgain() async throws {
        let transport = UnreachableTransport()
        let source = ScannerSource(
            transport: transport, mapper: SightingMapper(mode: .self), recorder: nil,
            clock: ManualClock(), logger: Logger(label: "test"))
        for attempt in 1...3 {
            let error = await #expect(throws: (any Error).self) { try await source.run(started: {}) { _ in } }
            #expect("\(String(describing: error))".contains("unreachable"), "attempt \(attempt): \(String(describing: error))")
            #expect(transport.opens.withLock { $0 } == attempt)
        }
    }

    @Test func runAfterStopReturnsAtOnce() async throws {
        let transport = UnreachableTransport()
        let source = ScannerSource(
            transport: transport, mapper: SightingMapper(mode: .self), recorder: nil,
            clock: ManualClock(), logger: Logger(label: "test"))
        source.stop()
        try await source.run(started: {}) { _ in }
        #expect(transport.opens.withLock { $0 } == 0)
    }
}
