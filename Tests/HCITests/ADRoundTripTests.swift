import BlueDotCore
import Testing

@testable import HCI

/// Encoder/decoder round trips for every AD type, and robustness against random and truncated input.
@Suite struct ADRoundTripTests {
    /// The seeded generator of reproducible tests.
    typealias SeededGenerator = SplitMix64

    static let everyType: [ADStructure] = [
        .flags([.leLimitedDiscoverable, .brEdrNotSupported]),
        .serviceUUIDs16(complete: false, uuids: [0x180F]),
        .serviceUUIDs16(complete: true, uuids: [0x180F, 0xFEAA]),
        .serviceUUIDs32(complete: false, uuids: [0x1234_5678]),
        .serviceUUIDs32(complete: true, uuids: [0xDEAD_BEEF, 1]),
        .serviceUUIDs128(complete: false, uuids: [BluetoothUUID(high: 0x0123_4567_89AB_CDEF, low: 42)]),
        .serviceUUIDs128(complete: true, uuids: [BluetoothUUID(shortUUID: 0x180D)]),
        .localName(complete: false, name: "Tag"),
        .localName(complete: true, name: "Tag 7 – Zürich"),
        .txPowerLevel(dBm: -127),
        .txPowerLevel(dBm: 20),
        .serviceData16(uuid: 0xFEAA, data: [0x20, 0x00]),
        .serviceData32(uuid: 0x0102_0304, data: []),
        .serviceData128(uuid: BluetoothUUID(high: 1, low: 2), data: [9, 8, 7]),
        .manufacturerData(companyID: 0x0059, data: [1, 2, 3]),
        .other(type: ADType(rawValue: 0x19), data: [0x40, 0x02]),
    ]

    @Test(arguments: everyType)
    func roundTripsEachType(structure: ADStructure) throws {
        let bytes = try ADStructureList([structure]).encoded()
        #expect(Int(bytes[0]) == bytes.count - 1)
        #expect(bytes[1] == structure.type.rawValue)
        let list = ADStructureList(parsing: bytes)
        #expect(list.errors.isEmpty)
        #expect(list.structures == [structure])
    }

    @Test func roundTripsAllTypesTogether() throws {
        let structures = Array(Self.everyType.prefix(12))
        let bytes = try ADStructureList(structures).encoded()
        #expect(ADStructureList(parsing: bytes) == ADStructureList(structures))
    }

    @Test func encoderRejectsOverlongStructure() {
        let list = ADStructureList([.manufacturerData(companyID: 1, data: Array(repeating: 0, count: 253))])
        #expect(throws: ADStructureList.EncodingError.tooLong(type: .manufacturerSpecificData, dataLength: 255)) {
            try list.encoded()
        }
    }

    @Test func randomBytesNeverCrashAndReencodeLosslessly() throws {
        var rng = SeededGenerator(seed: 0xAD5)
        for _ in 0..<5000 {
            let count = Int.random(in: 0...40, using: &rng)
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let list = ADStructureList(parsing: bytes)
            _ = Beacon.decode(fromAdvertisingData: bytes)
            // Whatever parsed re-encodes and parses back to the same structures.
            let again = ADStructureList(parsing: try list.encoded())
            #expect(again.structures == list.structures, "input \(bytes)")
        }
    }

    @Test func everyTruncationYieldsAPrefixOfTheStructures() throws {
        let bytes = try ADStructureList(Self.everyType).encoded()
        let whole = ADStructureList(parsing: bytes)
        for cut in 0...bytes.count {
            let list = ADStructureList(parsing: Array(bytes.prefix(cut)))
            #expect(Array(whole.structures.prefix(list.structures.count)) == list.structures)
            // A cut inside a structure is always reported as an overrun.
            let boundary = list.structures.isEmpty ? 0 : try ADStructureList(list.structures).encoded().count
            #expect(list.errors.isEmpty == (boundary == cut), "cut at \(cut)")
        }
    }
}
