import Devices
import HCI
import Testing

@Suite struct PrivateAddressTests {
    /// Core Spec 5.4, Vol 3, Part H, Appendix D.7 (ah random address hash function): IRK, prand and ah's result.
    static let specIRK = IdentityResolvingKey(hex: "ec0234a357c8ad05341010a60a397d9b")!

    @Test func ahMatchesTheCoreSpecificationSampleData() {
        #expect(PrivateAddress.ah(irk: Self.specIRK, 0x708194) == 0x0dfbaa)
    }

    @Test func theSampleAddressResolvesAndANeighbourDoesNot() throws {
        let rpa = try #require(BDAddress("70:81:94:0d:fb:aa"))
        #expect(PrivateAddress.isResolvable(rpa))
        #expect(PrivateAddress.resolves(rpa, with: Self.specIRK))
        #expect(!PrivateAddress.resolves(try #require(BDAddress("70:81:94:0d:fb:ab")), with: Self.specIRK))
        let other = try #require(IdentityResolvingKey(hex: "00112233445566778899aabbccddeeff"))
        #expect(!PrivateAddress.resolves(rpa, with: other))
    }

    @Test func madeAddressesResolveWithTheirKeyOnly() throws {
        let other = try #require(IdentityResolvingKey(hex: "00112233445566778899aabbccddeeff"))
        for random: UInt32 in [0, 1, 0x12345, 0x3F_FFFF, 0xFFFF_FFFF] {
            let rpa = try #require(PrivateAddress.make(irk: Self.specIRK, random: random))
            #expect(rpa.rawValue >> 46 == 0b01)
            #expect(PrivateAddress.resolves(rpa, with: Self.specIRK))
            #expect(!PrivateAddress.resolves(rpa, with: other))
        }
    }

    @Test func keyHexAndByteOrders() throws {
        let k = Self.specIRK
        #expect(k.hex == "ec0234a357c8ad05341010a60a397d9b")
        #expect(k.bytes.first == 0xec && k.bytes.last == 0x9b)
        #expect(IdentityResolvingKey(littleEndianBytes: k.bytes.reversed()) == k)
        #expect(IdentityResolvingKey(hex: "0xEC0234A357C8AD05341010A60A397D9B") == k)
        #expect(IdentityResolvingKey(hex: "ec0234a357c8ad05341010a60a397d9") == nil)
        #expect(IdentityResolvingKey(hex: "ec0234a357c8ad05341010a60a397d9g") == nil)
        #expect("\(k)" == "irk(…9b)")
    }
}
