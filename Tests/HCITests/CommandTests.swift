import Testing
@testable import HCI

/// Every declared command, with non-default values, for round trips.
let sampleCommands: [KnownHCICommand] = [
    .reset(ResetCommand()),
    .setEventMask(SetEventMaskCommand.defaultWithLEMeta),
    .leSetEventMask(LESetEventMaskCommand(leEventMask: 0x0000_0000_0000_101F)),
    .readLocalVersionInformation(ReadLocalVersionInformationCommand()),
    .readLocalSupportedCommands(ReadLocalSupportedCommandsCommand()),
    .leReadLocalSupportedFeatures(LEReadLocalSupportedFeaturesCommand()),
    .leSetScanParameters(LESetScanParametersCommand(scanType: .active, scanIntervalUnits: 0x0060,
                                                    scanWindowUnits: 0x0030, ownAddressType: 1, filterPolicy: 0)),
    .leSetScanEnable(LESetScanEnableCommand(enable: true, filterDuplicates: false)),
    .leSetExtendedScanParameters(LESetExtendedScanParametersCommand(
        le1M: .init(scanType: .active, scanIntervalUnits: 0x60, scanWindowUnits: 0x30),
        leCoded: .init(scanType: .passive, scanIntervalUnits: 0x120, scanWindowUnits: 0x90))),
    .leSetExtendedScanParameters(LESetExtendedScanParametersCommand(
        le1M: nil, leCoded: .init(scanType: .active, scanIntervalUnits: 0x100, scanWindowUnits: 0x100))),
    .leSetExtendedScanEnable(LESetExtendedScanEnableCommand(enable: true, filterDuplicates: 2,
                                                            durationUnits: 500, periodUnits: 3)),
]

@Suite struct CommandTests {
    @Test(arguments: sampleCommands)
    func roundTripsThroughItsPacket(_ command: KnownHCICommand) throws {
        let packet = command.packet
        #expect(packet.type == .command)
        let generic = try HCICommandPacket.decode(packet)
        #expect(generic.packet == packet)
        #expect(try generic.command() == command)
    }

    @Test func resetIsTheKnownH4Bytes() throws {
        #expect(ResetCommand().packet.h4Bytes == [0x01, 0x03, 0x0C, 0x00])
        #expect(try ResetCommand.decode(packet: HCIPacket(type: .command, bytes: [0x03, 0x0C, 0x00])) == ResetCommand())
    }

    @Test func opcodeSplitsIntoGroupAndCommand() {
        let opcode = LESetExtendedScanParametersCommand.opcode
        #expect(opcode.rawValue == 0x2041)
        #expect(opcode.ogf == 0x08)
        #expect(opcode.ocf == 0x041)
        #expect(Opcode(ogf: 0x3F, ocf: 0x3FF).rawValue == 0xFFFF)
        #expect(ResetCommand.opcode.description == "0x0C03 (OGF 0x03, OCF 0x003)")
    }

    /// Bytes produced by Bumble 0.0.236 (`HCI_LE_Set_Extended_Scan_Parameters_Command` with scanning_phys 0x05).
    @Test func extendedScanParametersMatchBumble() throws {
        let bumble: [UInt8] = [0x01, 0x41, 0x20, 0x0D, 0x00, 0x00, 0x05,
                               0x01, 0x60, 0x00, 0x30, 0x00, 0x00, 0x20, 0x01, 0x90, 0x00]
        guard case let .leSetExtendedScanParameters(command) = sampleCommands[8] else {
            Issue.record("sample 8 is not an extended scan parameters command")
            return
        }
        #expect(command.packet.h4Bytes == bumble)
        #expect(try LESetExtendedScanParametersCommand.decode(packet: HCIPacket(type: .command, bytes: Array(bumble.dropFirst()))) == command)
    }

    /// The host's own commands from the horizon74 capture (frames 121 and 123), as Wireshark shows them.
    @Test func decodesRecordedExtendedScanCommands() throws {
        let parameters = HCIPacket(type: .command, bytes: [0x41, 0x20, 0x08, 0x01, 0x00, 0x01, 0x01, 0x12, 0x00, 0x12, 0x00])
        let command = try LESetExtendedScanParametersCommand.decode(packet: parameters)
        #expect(command.ownAddressType == 1)
        #expect(command.le1M == .init(scanType: .active, scanIntervalUnits: 0x12, scanWindowUnits: 0x12))
        #expect(command.leCoded == nil)
        let enable = try LESetExtendedScanEnableCommand.decode(
            packet: HCIPacket(type: .command, bytes: [0x42, 0x20, 0x06, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00]))
        #expect(enable == LESetExtendedScanEnableCommand(enable: true))
    }

    @Test func unknownOpcodeDecodesGenericallyOnly() throws {
        let packet = HCIPacket(type: .command, bytes: [0x57, 0xFD, 0x02, 0xAA, 0xBB])
        let generic = try HCICommandPacket.decode(packet)
        #expect(generic.opcode == Opcode(ogf: 0x3F, ocf: 0x157))
        #expect(generic.parameters == [0xAA, 0xBB])
        #expect(try generic.command() == nil)
    }

    @Test func malformedCommandsThrowNamingTheField() {
        #expect(throws: HCIDecodingError.truncated(field: "LE_Scan_Window", offset: 3, needed: 2, available: 1)) {
            try LESetScanParametersCommand.decode(parameters: [0x01, 0x60, 0x00, 0x30])
        }
        #expect(throws: HCIDecodingError.invalid(field: "LE_Scan_Enable", offset: 0, reason: "expected 0x00 or 0x01, found 2")) {
            try LESetScanEnableCommand.decode(parameters: [0x02, 0x00])
        }
        #expect(throws: HCIDecodingError.trailingBytes(type: "HCI_Reset", count: 1)) {
            try ResetCommand.decode(parameters: [0x00])
        }
        #expect(throws: HCIDecodingError.self) {
            try LESetExtendedScanParametersCommand.decode(parameters: [0x00, 0x00, 0x02])
        }
        #expect(throws: HCIDecodingError.self) {
            try ResetCommand.decode(packet: SetEventMaskCommand(eventMask: 0).packet)
        }
    }

    @Test(arguments: sampleCommands)
    func everyTruncationThrows(_ command: KnownHCICommand) {
        let bytes = command.packet.bytes
        for cut in 0..<bytes.count {
            #expect(throws: HCIDecodingError.self) {
                try HCICommandPacket.decode(HCIPacket(type: .command, bytes: Array(bytes.prefix(cut))))
            }
            // The parameters alone, cut short, must throw too (every declared command has fixed-size fields).
            let parameters = Array(bytes.dropFirst(3))
            if cut < parameters.count {
                #expect(throws: HCIDecodingError.self) {
                    try KnownHCICommand.decode(opcode: HCICommandPacket.decode(HCIPacket(type: .command, bytes: bytes)).opcode,
                                               parameters: parameters.prefix(cut))
                }
            }
        }
    }
}
