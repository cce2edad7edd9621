import BlueDotCore
import HCI
import Testing

@testable import Scanner

/// The init sequence, the legacy/extended choice, deadlines, status errors and the clean stop, against a fake.
@Suite struct ControllerSessionTests {
    static let initSequence: [Opcode] = [
        ResetCommand.opcode, ReadLocalVersionInformationCommand.opcode, ReadLocalSupportedCommandsCommand.opcode,
        LEReadLocalSupportedFeaturesCommand.opcode, SetEventMaskCommand.opcode, LESetEventMaskCommand.opcode,
    ]

    /// Runs a scanner until the fake reports scanning, then stops it; returns the scanner once its run has ended.
    func scanAndStop(_ controller: FakeController, procedure: ScanConfiguration.Procedure = .automatic) async throws -> LEScanner {
        let scanner = Fixture.scanner(controller, procedure: procedure)
        let run = Task { try await scanner.run { _ in } }
        #expect(await eventually { scanner.isScanning })
        scanner.stop()
        try await run.value
        return scanner
    }

    @Test func legacyControllerGetsInitSequenceThenLegacyScanThenDisable() async throws {
        let controller = FakeController()
        _ = try await scanAndStop(controller)
        #expect(controller.sentOpcodes == Self.initSequence + [
            LESetScanEnableCommand.opcode, LESetScanParametersCommand.opcode, LESetScanEnableCommand.opcode,
            LESetScanEnableCommand.opcode,
        ])
        let enables = try controller.sent.filter { $0.opcode == LESetScanEnableCommand.opcode }
            .map { try LESetScanEnableCommand.decode(parameters: $0.parameters[...]) }
        #expect(enables.map(\.enable) == [false, true, false])
        #expect(enables.allSatisfy { !$0.filterDuplicates })
        #expect(!controller.scanning)
        #expect(controller.closes == 1)
    }

    @Test func eventMasksAskForLEMetaHardwareErrorAndBothReportKinds() async throws {
        let controller = FakeController()
        _ = try await scanAndStop(controller)
        let mask = try SetEventMaskCommand.decode(
            parameters: controller.sent.first { $0.opcode == SetEventMaskCommand.opcode }!.parameters[...])
        #expect(mask.eventMask & SetEventMaskCommand.leMetaEventBit != 0)
        #expect(mask.eventMask & (1 << 15) != 0)
        let leMask = try LESetEventMaskCommand.decode(
            parameters: controller.sent.first { $0.opcode == LESetEventMaskCommand.opcode }!.parameters[...])
        #expect(leMask.leEventMask & LESetEventMaskCommand.advertisingReportBit != 0)
        #expect(leMask.leEventMask & LESetEventMaskCommand.extendedAdvertisingReportBit != 0)
    }

    @Test func extendedControllerGetsExtendedScan() async throws {
        let controller = FakeController(.init(supportsExtendedScanning: true))
        _ = try await scanAndStop(controller)
        #expect(controller.sentOpcodes == Self.initSequence + [
            LESetExtendedScanEnableCommand.opcode, LESetExtendedScanParametersCommand.opcode,
            LESetExtendedScanEnableCommand.opcode, LESetExtendedScanEnableCommand.opcode,
        ])
        let parameters = try LESetExtendedScanParametersCommand.decode(
            parameters: controller.sent.first { $0.opcode == LESetExtendedScanParametersCommand.opcode }!.parameters[...])
        #expect(parameters.le1M?.scanType == .passive)
        #expect(parameters.le1M?.scanIntervalUnits == 160)  // 100 ms / 0.625 ms
        #expect(parameters.le1M?.scanWindowUnits == 160)
    }

    @Test func legacyProcedureForcesLegacyOnExtendedController() async throws {
        let controller = FakeController(.init(supportsExtendedScanning: true))
        _ = try await scanAndStop(controller, procedure: .legacy)
        #expect(controller.sentOpcodes.contains(LESetScanParametersCommand.opcode))
        #expect(!controller.sentOpcodes.contains(LESetExtendedScanParametersCommand.opcode))
    }

    @Test func featureBitWithoutCommandBitsMeansLegacy() async throws {
        let controller = FakeController(.init(featureBitOnly: true))
        _ = try await scanAndStop(controller)
        #expect(controller.sentOpcodes.contains(LESetScanParametersCommand.opcode))
        #expect(!controller.sentOpcodes.contains(LESetExtendedScanParametersCommand.opcode))
    }

    /// The deadline runs on the scanner's clock: once the test moves it 50 ms past the silent command, the run
    /// ends with the deadline error (a hang would run into the time limit).
    @Test(.timeLimit(.minutes(1))) func silentControllerIsAClearDeadlineError() async throws {
        let controller = FakeController(.init(silentOpcodes: [LESetScanParametersCommand.opcode.rawValue]))
        let clock = ManualClock(start: 0)
        let scanner = Fixture.scanner(controller, timeout: .milliseconds(50), clock: clock)
        let run = Task { try await scanner.run { _ in } }
        #expect(await eventually { controller.sentOpcodes.contains(LESetScanParametersCommand.opcode) })
        await clock.waitForSleepers()  // the silent command's deadline
        clock.advance(by: 0.049)
        #expect(controller.closes == 0, "not yet: 49 ms")
        clock.advance(by: 0.001)
        let error = await #expect(throws: ScannerError.self) { try await run.value }
        #expect(error == .commandTimedOut(command: "LE Set Scan Parameters", timeout: .milliseconds(50)))
        #expect(error?.description == "controller did not answer LE Set Scan Parameters within 50 ms")
        #expect(controller.closes == 1)
    }

    @Test func refusedCommandNamesCommandAndStatus() async throws {
        let controller = FakeController(.init(failingOpcodes: [LESetScanParametersCommand.opcode.rawValue: .invalidParameters]))
        let scanner = Fixture.scanner(controller)
        let error = await #expect(throws: ScannerError.self) { try await scanner.run { _ in } }
        #expect(error == .commandFailed(command: "LE Set Scan Parameters", status: .invalidParameters))
        #expect(error?.description == "controller rejected LE Set Scan Parameters: Invalid HCI Command Parameters (0x12)")
    }

    @Test func linkThatCannotOpenAtStartIsAnError() async throws {
        let scanner = LEScanner(transport: RefusingTransport(), clock: ManualClock(), logger: Fixture.logger)
        let error = await #expect(throws: ScannerError.self) { try await scanner.run { _ in } }
        #expect(error == .transportUnavailable(transport: "refusing", reason: "connectionRefused"))
    }

    @Test func secondRunIsRefused() async throws {
        let controller = FakeController()
        let scanner = try await scanAndStop(controller)
        await #expect(throws: ScannerError.self) { try await scanner.run { _ in } }
    }

    @Test func recorderSeesEveryPacketBothWays() async throws {
        let controller = FakeController()
        let recorder = PacketLog()
        let scanner = Fixture.scanner(controller, recorder: recorder)
        let run = Task { try await scanner.run { _ in } }
        #expect(await eventually { scanner.isScanning })
        scanner.stop()
        try await run.value
        let entries = recorder.entries
        #expect(entries.filter { $0.direction == .hostToController }.count == controller.sent.count)
        #expect(entries.filter { $0.direction == .controllerToHost }.count == controller.sent.count)
        #expect(entries.first?.packet == ResetCommand().packet)
        #expect(entries.allSatisfy { $0.timestamp == 1_700_000_000.25 })
    }
}

/// A transport whose link never opens.
struct RefusingTransport: HCITransport {
    let name = "refusing"
    func open() async throws -> AsyncThrowingStream<HCIPacket, any Error> { throw FakeError.connectionRefused }
    func send(_ packet: HCIPacket) async throws { throw FakeError.notOpen }
    func close() async {}
}

/// A recorder that keeps what it is given.
final class PacketLog: HCIPacketRecorder {
    struct Entry: Sendable {
        var packet: HCIPacket
        var direction: HCIDirection
        var timestamp: Double
    }

    private let storage = LockedValue<[Entry]>([])
    var entries: [Entry] { storage.withLock { $0 } }

    func record(_ packet: HCIPacket, direction: HCIDirection, timestamp: Double) {
        storage.withLock { $0.append(Entry(packet: packet, direction: direction, timestamp: timestamp)) }
    }
}
