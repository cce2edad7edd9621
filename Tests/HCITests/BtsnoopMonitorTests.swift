import Testing

@testable import HCI

/// Datalink 2001 (Linux monitor), as `btmon -w` writes it.
///
/// btmon needs a live monitor socket (AF_BLUETOOTH), which this machine's kernel does not have, so the file is
/// hand-built here from the documented layout: BlueZ `doc/btsnoop.rst` and `src/shared/btsnoop.h` (flags =
/// adapter index << 16 | opcode; payload = the packet without an H4 indicator). A file of the same layout (new
/// index, reset, command complete) was checked once by hand with `btmon -r`, which decoded it as expected.
@Suite struct BtsnoopMonitorTests {
    static func record(_ opcode: UInt16, index: UInt16, _ payload: [UInt8], at us: Int64) -> [UInt8] {
        BtsnoopWriter.record(
            payload: payload, flags: UInt32(index) << 16 | UInt32(opcode),
            timestamp: BtsnoopTimestamp(unixMicroseconds: us))
    }

    @Test func decodesMonitorFile() throws {
        let newIndex: [UInt8] = [0x00, 0x01] + [0x11, 0x22, 0x33, 0x44, 0x55, 0x66] + Array("hci1\0\0\0\0".utf8)
        let note = Array("Bluetooth monitor ver 5.66\0".utf8)
        var file = BtsnoopWriter.fileHeader(datalink: .monitor)
        file += Self.record(0, index: 1, newIndex, at: 1)
        file += Self.record(12, index: 0xFFFF, note, at: 2)
        file += Self.record(8, index: 1, [], at: 3)
        file += Self.record(2, index: 1, [0x03, 0x0C, 0x00], at: 4)
        file += Self.record(3, index: 1, [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00], at: 5)
        file += Self.record(5, index: 1, [0x40, 0x20, 0x00, 0x00], at: 6)
        file += Self.record(4, index: 1, [0x40, 0x00, 0x00, 0x00], at: 7)
        file += Self.record(7, index: 1, [0x01, 0x00, 0x00], at: 8)
        file += Self.record(18, index: 1, [0x01, 0x00, 0x00, 0x00], at: 9)
        file += Self.record(19, index: 1, [0x01, 0x00, 0x00, 0x00], at: 10)
        file += Self.record(13, index: 1, [0x06, 0x04] + Array("test\0".utf8), at: 11)

        let (records, error) = BtsnoopDecoderTests.decode([file[...]])
        #expect(error == nil)
        #expect(records.count == 11)
        #expect(records[0].content == .monitor(opcode: .newIndex, data: newIndex) && records[0].adapterIndex == 1)
        #expect(records[1].content == .monitor(opcode: .systemNote, data: note) && records[1].adapterIndex == 0xFFFF)
        #expect(records[2].content == .monitor(opcode: .openIndex, data: []))
        #expect(records[10].content.isMonitor(.userLogging))
        let packets = records.compactMap { record in record.packet.map { ($0.type, record.direction!) } }
        #expect(packets.map(\.0) == [.command, .event, .acl, .acl, .sco, .iso, .iso])
        #expect(
            packets.map(\.1) == [
                .hostToController, .controllerToHost, .controllerToHost, .hostToController, .controllerToHost,
                .hostToController, .controllerToHost,
            ])
        #expect(records[3].packet == HCIPacket(type: .command, bytes: [0x03, 0x0C, 0x00]))
        #expect(records[3].adapterIndex == 1 && records[3].timestamp.unixMicroseconds == 4)
    }

    @Test func opcodeMappingIsSymmetric() {
        for type in HCIPacketType.allCases {
            for direction in [HCIDirection.hostToController, .controllerToHost] {
                let opcode = BtsnoopMonitorOpcode(packetType: type, direction: direction)
                #expect(opcode.hciPacket?.type == type)
                if type != .command && type != .event { #expect(opcode.hciPacket?.direction == direction) }
            }
        }
    }
}

extension BtsnoopRecord.Content {
    fileprivate func isMonitor(_ opcode: BtsnoopMonitorOpcode) -> Bool {
        if case let .monitor(o, _) = self { o == opcode } else { false }
    }
}
