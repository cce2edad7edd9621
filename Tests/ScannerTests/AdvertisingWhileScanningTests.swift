import BlueDotCore
import HCI
import Testing

@testable import Scanner

/// A receiver's advertisement beside its scan: the command family follows the scan's, it stops before the scan
/// does, and a controller that refuses it keeps scanning.
@Suite struct AdvertisingWhileScanningTests {
    static let data: [UInt8] = [0x02, 0x01, 0x06, 0x03, 0x03, 0xAA, 0xFE]
    static let advertisement = ScanConfiguration.Advertisement(data: data, interval: .milliseconds(100))

    func run(_ controller: FakeController, procedure: ScanConfiguration.Procedure = .automatic) async throws -> LEScanner {
        let scanner = Fixture.scanner(controller, procedure: procedure, advertisement: Self.advertisement)
        let run = Task { try await scanner.run { _ in } }
        #expect(await eventually { scanner.isScanning })
        // Scanning is set before advertising starts; wait for the enable to go out.
        #expect(await eventually { controller.sentOpcodes.contains { $0 == LESetAdvertisingEnableCommand.opcode
            || $0 == LESetExtendedAdvertisingEnableCommand.opcode } })
        #expect(await eventually { scanner.isAdvertising })
        scanner.stop()
        try await run.value
        return scanner
    }

    @Test func legacyScanAdvertisesWithLegacyCommandsAndStopsFirst() async throws {
        let controller = FakeController()
        _ = try await run(controller)
        let after = Array(controller.sentOpcodes.dropFirst(ControllerSessionTests.initSequence.count + 3))
        #expect(after == [
            LESetAdvertisingParametersCommand.opcode, LESetAdvertisingDataCommand.opcode,
            LESetAdvertisingEnableCommand.opcode, LESetAdvertisingEnableCommand.opcode, LESetScanEnableCommand.opcode,
        ])
        let sent = controller.sent
        let parameters = try LESetAdvertisingParametersCommand.decode(
            parameters: sent.first { $0.opcode == LESetAdvertisingParametersCommand.opcode }!.parameters[...])
        #expect(parameters.advertisingType == LESetAdvertisingParametersCommand.AdvertisingType.nonConnectableUndirected.rawValue)
        #expect(parameters.intervalMinUnits == 160 && parameters.intervalMaxUnits == 160)
        #expect(parameters.ownAddressType == 0, "the public address: a stable identity")
        let data = try LESetAdvertisingDataCommand.decode(
            parameters: sent.first { $0.opcode == LESetAdvertisingDataCommand.opcode }!.parameters[...])
        #expect(data.data == Self.data)
        let enables = try sent.filter { $0.opcode == LESetAdvertisingEnableCommand.opcode }
            .map { try LESetAdvertisingEnableCommand.decode(parameters: $0.parameters[...]).enable }
        #expect(enables == [true, false])
    }

    @Test func extendedScanAdvertisesLegacyPDUsWithExtendedCommands() async throws {
        let controller = FakeController(.init(supportsExtendedScanning: true))
        _ = try await run(controller)
        let opcodes = controller.sentOpcodes
        #expect(!opcodes.contains(LESetAdvertisingParametersCommand.opcode), "a controller refuses mixed families")
        let sent = controller.sent
        let parameters = try LESetExtendedAdvertisingParametersCommand.decode(
            parameters: sent.first { $0.opcode == LESetExtendedAdvertisingParametersCommand.opcode }!.parameters[...])
        #expect(parameters.properties == .legacy, "non-connectable, non-scannable legacy PDUs: every scanner hears them")
        #expect(parameters.intervalMinUnits == 160)
        let data = try LESetExtendedAdvertisingDataCommand.decode(
            parameters: sent.first { $0.opcode == LESetExtendedAdvertisingDataCommand.opcode }!.parameters[...])
        #expect(data.data == Self.data && data.operation == LESetExtendedAdvertisingDataCommand.completeData)
        let enables = try sent.filter { $0.opcode == LESetExtendedAdvertisingEnableCommand.opcode }
            .map { try LESetExtendedAdvertisingEnableCommand.decode(parameters: $0.parameters[...]) }
        #expect(enables.map(\.enable) == [true, false])
        #expect(enables.first?.sets == [.init(handle: 0)])
    }

    @Test func controllerThatRefusesToAdvertiseKeepsScanning() async throws {
        let controller = FakeController(.init(
            failingOpcodes: [LESetAdvertisingEnableCommand.opcode.rawValue: .commandDisallowed]))
        let scanner = Fixture.scanner(controller, advertisement: Self.advertisement)
        let run = Task { try await scanner.run { _ in } }
        #expect(await eventually { controller.sentOpcodes.contains(LESetAdvertisingEnableCommand.opcode) })
        #expect(await eventually { scanner.statistics.lastError == "the controller refused to advertise" })
        #expect(scanner.isScanning)
        #expect(!scanner.isAdvertising)
        scanner.stop()
        try await run.value
        // Nothing to stop: only the scan is disabled at the end.
        #expect(controller.sentOpcodes.last == LESetScanEnableCommand.opcode)
        #expect(controller.sentOpcodes.filter { $0 == LESetAdvertisingEnableCommand.opcode }.count == 1)
    }

    @Test func noAdvertisementSendsNoAdvertisingCommand() async throws {
        let controller = FakeController()
        let scanner = Fixture.scanner(controller)
        let run = Task { try await scanner.run { _ in } }
        #expect(await eventually { scanner.isScanning })
        scanner.stop()
        try await run.value
        #expect(!controller.sentOpcodes.contains { $0.ocf >= 0x006 && $0.ocf <= 0x00A && $0.ogf == 0x08 })
    }

    @Test func intervalAndDataAreChecked() {
        let short = ScanConfiguration(advertisement: .init(data: [], interval: .milliseconds(10)))
        #expect(throws: ScannerError.invalidConfiguration(field: "advertisement.interval", reason: "10.0 ms is under 20 ms")) {
            try short.validate()
        }
        let long = ScanConfiguration(advertisement: .init(data: Array(repeating: 0, count: 32)))
        #expect(throws: ScannerError.invalidConfiguration(
            field: "advertisement.data", reason: "32 octets; a legacy PDU carries 31")) { try long.validate() }
    }
}
