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
    .leSetAdvertisingParameters(LESetAdvertisingParametersCommand(
        intervalMinUnits: 0xA0, intervalMaxUnits: 0xB0, advertisingType: .nonConnectableUndirected,
        ownAddressType: 1, peerAddressType: 1, peerAddress: BDAddress("C0:11:22:33:44:55")!, channelMap: 0x05,
        filterPolicy: 2)),
    .leSetAdvertisingData(LESetAdvertisingDataCommand(data: [0x02, 0x01, 0x06, 0x03, 0x03, 0xAA, 0xFE])!),
    .leSetAdvertisingData(LESetAdvertisingDataCommand(data: [])!),
    .leSetAdvertisingEnable(LESetAdvertisingEnableCommand(enable: true)),
    .leSetExtendedAdvertisingParameters(LESetExtendedAdvertisingParametersCommand(
        handle: 3, properties: [.legacy, .scannable], intervalMinUnits: 0x0100A0, intervalMaxUnits: 0x0200B0,
        channelMap: 0x03, ownAddressType: 1, peerAddressType: 0, peerAddress: BDAddress("01:02:03:04:05:06")!,
        filterPolicy: 1, txPower: -12, primaryPHY: 3, secondaryMaxSkip: 2, secondaryPHY: 2, sid: 7,
        scanRequestNotifications: true)),
    .leSetExtendedAdvertisingData(LESetExtendedAdvertisingDataCommand(
        handle: 1, operation: 0x01, fragmentPreference: 0, data: Array(0..<200))!),
    .leSetExtendedAdvertisingEnable(LESetExtendedAdvertisingEnableCommand(
        enable: true, sets: [.init(handle: 0), .init(handle: 2, durationUnits: 300, maximumEvents: 9)])),
    .leSetExtendedAdvertisingEnable(LESetExtendedAdvertisingEnableCommand(enable: false, sets: [])),
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

    /// Bytes produced by Bumble 0.0.236 for the advertising a site receiver sends: ADV_NONCONN_IND every 100 ms
    /// from the public address, with `02 01 06 03 03 AA FE` as its data, legacy then extended (legacy PDUs, set 0).
    @Test func advertisingCommandsMatchBumble() throws {
        let data: [UInt8] = [0x02, 0x01, 0x06, 0x03, 0x03, 0xAA, 0xFE]
        let expected: [(KnownHCICommand, String)] = [
            (.leSetAdvertisingParameters(LESetAdvertisingParametersCommand(
                intervalMinUnits: 160, intervalMaxUnits: 160, advertisingType: .nonConnectableUndirected)),
             "0106200fa000a0000300000000000000000700"),
            (.leSetAdvertisingData(LESetAdvertisingDataCommand(data: data)!),
             "01082020070201060303aafe" + String(repeating: "00", count: 24)),
            (.leSetAdvertisingEnable(LESetAdvertisingEnableCommand(enable: true)), "010a200101"),
            (.leSetExtendedAdvertisingParameters(LESetExtendedAdvertisingParametersCommand(
                properties: .legacy, intervalMinUnits: 160, intervalMaxUnits: 160)),
             "01362019001000a00000a00000070000000000000000007f0100010000"),
            (.leSetExtendedAdvertisingData(LESetExtendedAdvertisingDataCommand(data: data)!),
             "0137200b000301070201060303aafe"),
            (.leSetExtendedAdvertisingEnable(LESetExtendedAdvertisingEnableCommand(enable: true, sets: [.init(handle: 0)])),
             "01392006010100000000"),
        ]
        for (command, hex) in expected {
            let bytes = command.packet.h4Bytes
            #expect(bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() == hex)
            #expect(try HCICommandPacket.decode(HCIPacket(type: .command, bytes: Array(bytes.dropFirst()))).command()
                    == command)
        }
    }

    @Test func advertisingDataLongerThanItsPDURefused() throws {
        #expect(LESetAdvertisingDataCommand(data: Array(repeating: 0, count: 32)) == nil)
        #expect(LESetExtendedAdvertisingDataCommand(data: Array(repeating: 0, count: 252)) == nil)
        var bad = LESetAdvertisingDataCommand(data: [])!.parameters
        bad[0] = 32
        #expect(throws: HCIDecodingError.self) { try LESetAdvertisingDataCommand.decode(parameters: bad[...]) }
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
