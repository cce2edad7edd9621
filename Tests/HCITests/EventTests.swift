import Testing
@testable import HCI

let sampleReturnParameters = LocalVersionInformation(hciVersion: 0x0B, hciRevision: 0x1234, lmpVersion: 0x0B,
                                                     manufacturer: 0x001D, lmpSubversion: 0xABCD)

/// Every declared event kind (the advertising report events have their own tests).
let sampleEvents: [HCIEvent] = [
    .commandComplete(CommandCompleteEvent(numHCICommandPackets: 1, opcode: ResetCommand.opcode, returnParameters: [0x00])),
    .commandComplete(CommandCompleteEvent(returning: sampleReturnParameters)),
    .commandComplete(CommandCompleteEvent(numHCICommandPackets: 1, opcode: .noOperation, returnParameters: [])),
    .commandStatus(CommandStatusEvent(status: .success, numHCICommandPackets: 1, opcode: Opcode(rawValue: 0x2043))),
    .hardwareError(HardwareErrorEvent(hardwareCode: 0x42)),
    .leMeta(.unknown(subevent: 0x03, parameters: [0x00, 0x40, 0x00, 0x06, 0x00, 0x00, 0x00, 0xF4, 0x01])),
    .unknown(code: 0x13, parameters: [0x01, 0x40, 0x00, 0x01, 0x00]),
]

@Suite struct EventTests {
    @Test(arguments: sampleEvents)
    func roundTripsThroughItsPacket(_ event: HCIEvent) throws {
        let packet = event.packet
        #expect(packet.type == .event)
        #expect(try HCIEvent.decode(packet) == event)
    }

    @Test func commandCompleteForResetIsTheKnownBytes() throws {
        let packet = HCIPacket(type: .event, bytes: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
        guard case let .commandComplete(event) = try HCIEvent.decode(packet) else {
            Issue.record("not a Command Complete")
            return
        }
        #expect(event.numHCICommandPackets == 1)
        #expect(event.opcode == ResetCommand.opcode)
        #expect(event.status == .success)
        #expect(HCIEvent.commandComplete(event).packet.h4Bytes == [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
    }

    @Test func typedReturnParametersRoundTrip() throws {
        let version = CommandCompleteEvent(returning: sampleReturnParameters)
        #expect(try version.returnParameters(as: LocalVersionInformation.self) == sampleReturnParameters)

        var octets = [UInt8](repeating: 0, count: 64)
        octets[37] = 0b0110_0000
        let commands = try #require(LocalSupportedCommands(octets: octets))
        let decodedCommands = try CommandCompleteEvent(returning: commands).returnParameters(as: LocalSupportedCommands.self)
        #expect(decodedCommands == commands)
        #expect(decodedCommands.supportsLESetExtendedScanParameters)
        #expect(decodedCommands.supportsLESetExtendedScanEnable)
        #expect(decodedCommands.supportsExtendedScanning)
        #expect(!decodedCommands.supports(octet: 37, bit: 4))
        #expect(!decodedCommands.supports(octet: 64, bit: 0))
        #expect(LocalSupportedCommands(octets: [0]) == nil)

        let features = LESupportedFeatures(mask: 1 << 12 | 1 << 11)
        let decodedFeatures = try CommandCompleteEvent(returning: features).returnParameters(as: LESupportedFeatures.self)
        #expect(decodedFeatures.supportsExtendedAdvertising)
        #expect(decodedFeatures.supportsCodedPHY)
        #expect(!LESupportedFeatures(mask: 1 << 12).supportsCodedPHY)
        #expect(!LESupportedFeatures(mask: 1 << 11).supportsExtendedAdvertising)
    }

    @Test func returnParametersCheckOpcodeAndStatus() {
        let failed = CommandCompleteEvent(numHCICommandPackets: 1, opcode: LocalVersionInformation.commandOpcode,
                                          returnParameters: [0x0C])
        #expect(failed.status == .commandDisallowed)
        #expect(throws: HCIDecodingError.self) { try failed.returnParameters(as: LocalVersionInformation.self) }
        let wrong = CommandCompleteEvent(numHCICommandPackets: 1, opcode: ResetCommand.opcode, returnParameters: [0x00])
        #expect(throws: HCIDecodingError.self) { try wrong.returnParameters(as: LESupportedFeatures.self) }
        let short = CommandCompleteEvent(numHCICommandPackets: 1, opcode: LESupportedFeatures.commandOpcode,
                                         returnParameters: [0x00, 0x01, 0x02])
        #expect(throws: HCIDecodingError.truncated(field: "LE_Features", offset: 0, needed: 8, available: 2)) {
            try short.returnParameters(as: LESupportedFeatures.self)
        }
    }

    @Test func malformedEventsThrowNamingTheField() {
        #expect(throws: HCIDecodingError.truncated(field: "Command_Opcode", offset: 2, needed: 2, available: 1)) {
            try HCIEvent.decode(HCIPacket(type: .event, bytes: [0x0F, 0x03, 0x00, 0x01, 0x03]))
        }
        #expect(throws: HCIDecodingError.truncated(field: "Event parameters", offset: 2, needed: 5, available: 1)) {
            try HCIEvent.decode(HCIPacket(type: .event, bytes: [0x0E, 0x05, 0x01]))
        }
        #expect(throws: HCIDecodingError.trailingBytes(type: "HCI event packet", count: 1)) {
            try HCIEvent.decode(HCIPacket(type: .event, bytes: [0x10, 0x01, 0x01, 0xFF]))
        }
        #expect(throws: HCIDecodingError.self) {
            try HCIEvent.decode(ResetCommand().packet)
        }
    }

    @Test func unknownEventsAndSubeventsAreValuesNotErrors() throws {
        #expect(try HCIEvent.decode(HCIPacket(type: .event, bytes: [0xFF, 0x02, 0xAB, 0xCD]))
            == .unknown(code: 0xFF, parameters: [0xAB, 0xCD]))
        #expect(try HCIEvent.decode(HCIPacket(type: .event, bytes: [0x3E, 0x02, 0x14, 0x00]))
            == .leMeta(.unknown(subevent: 0x14, parameters: [0x00])))
    }
}
