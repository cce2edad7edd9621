import BlueDotCore
import Foundation
import HCI
import Positioning

/// A simulated walk past iBeacons at known places, written as a btsnoop recording of the LE Advertising Report
/// events a controller would have sent: the fixture of the end-to-end recording test, built at test time from a
/// seed so that it needs no binary file.
struct WalkRecording {
    /// The iBeacon UUID every anchor shares; minor = anchor number.
    static let uuid: [UInt8] = [0xF7, 0x82, 0x6D, 0xA6, 0x4F, 0xA2, 0x4E, 0x98, 0x80, 0x24,
                                0xBC, 0x5B, 0x71, 0xE0, 0x89, 0x3E]
    static let uuidText = "f7826da6-4fa2-4e98-8024-bc5b71e0893e"
    static let startTime = 1_700_000_000.0

    /// A 20 m x 12 m hall with eight beacons on the walls and two in the middle, 2.5 m up.
    static let venue: Venue = {
        let places: [(Double, Double)] = [(0, 0), (10, 0), (20, 0), (20, 12), (10, 12), (0, 12), (0, 6), (20, 6),
                                          (7, 6), (13, 6)]
        let anchors = places.enumerated().map { index, place in
            Anchor(id: "ibeacon:\(uuidText):1:\(index + 1)", x: place.0, y: place.1, z: 2.5)
        }
        return Venue(name: "walk hall", origin: .init(latitude: 52.2297, longitude: 21.0122),
                     model: PathLossModel(measuredPowerDBm: -59, pathLossExponent: 2, shadowingSigmaDB: 2),
                     anchors: anchors, bounds: .init(minX: 0, minY: 0, maxX: 20, maxY: 12))
    }()

    /// The walk: along y = 3 from x = 2 to 18 at 1 m/s, then up to y = 9, then back to x = 10.
    static let track = Track(target: "self", waypoints: [
        .init(t: startTime, x: 2, y: 3), .init(t: startTime + 16, x: 18, y: 3), .init(t: startTime + 22, x: 18, y: 9),
        .init(t: startTime + 30, x: 10, y: 9),
    ])

    /// The simulated packets: 5 Hz per beacon, 2 dB shadowing, from `seed`.
    static func packets(seed: UInt64, track: Track = track) -> [SimulatedPacket] {
        var rng = SplitMix64(seed: seed)
        let simulator = Simulator(venue: venue, configuration: SimulationConfiguration(
            rateHz: 5, arrivals: .regular, shadowingSigmaDB: 2, rssiDecimals: 0))
        return simulator.simulate(tracks: [track], using: &rng)
    }

    /// The LE Advertising Report event for one packet: a non-connectable iBeacon advertisement.
    static func event(for packet: SimulatedPacket) -> HCIPacket {
        let minor = UInt16(packet.observation.anchor.split(separator: ":").last!)!
        var data = ByteWriter()
        data.append([0x02, 0x01, 0x06])                        // Flags: LE General Discoverable, no BR/EDR
        data.append([0x1A, 0xFF])                              // Manufacturer Specific Data, 26 bytes
        data.u16(IBeacon.appleCompanyID)
        data.append([IBeacon.beaconType, 0x15])
        data.append(uuid)
        data.u16BigEndian(1)
        data.u16BigEndian(minor)
        data.i8(-59)
        let report = AdvertisingReport(
            eventType: .legacy(.advNonconnInd), addressType: .random,
            address: BDAddress(rawValue: 0xC000_0000_0000 | UInt64(minor)),
            rssiDBm: Int8(packet.observation.rssiDBm.rounded()), data: data.bytes[...])
        return HCIEvent.leMeta(.advertisingReport(LEAdvertisingReportEvent(reports: [report]))).packet
    }

    /// Writes the recording to `path` and returns the packets it holds.
    @discardableResult
    static func write(to path: String, seed: UInt64, track: Track = track) throws -> [SimulatedPacket] {
        let packets = packets(seed: seed, track: track)
        var bytes = BtsnoopWriter.fileHeader()
        for packet in packets {
            bytes += BtsnoopWriter.record(event(for: packet), direction: .controllerToHost,
                                          timestamp: BtsnoopTimestamp(unixSeconds: packet.observation.t))
        }
        try Data(bytes).write(to: URL(filePath: path))
        return packets
    }
}
