import Testing
@testable import HCI

@Suite struct H4FramerSmokeTests {
    @Test func framesOneEvent() throws {
        var framer = H4Framer()
        framer.append([0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
        let packet = try #require(try framer.next())
        #expect(packet == HCIPacket(type: .event, bytes: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]))
        #expect(try framer.next() == nil)
    }
}
