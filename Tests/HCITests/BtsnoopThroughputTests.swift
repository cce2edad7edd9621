import Foundation
import Testing

@testable import HCI

/// Throughput of btsnoop record iteration plus AD and beacon decoding, one core.
///
/// Opt-in benchmark (`BLUEDOT_BENCH=1 swift test -c release --filter BtsnoopThroughputTests`): the target is
/// >= 2 million advertising reports per second for the whole pipeline in release, so this part must stay well above.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["BLUEDOT_BENCH"] == "1", "set BLUEDOT_BENCH=1"))
struct BtsnoopThroughputTests {
    /// A recording of `count` LE Advertising Report events, each one report carrying flags and an iBeacon.
    static func syntheticRecording(count: Int) throws -> [UInt8] {
        let beacon = IBeacon(
            proximityUUID: BluetoothUUID("f7826da6-4fa2-4e98-8024-bc5b71e0893e")!, major: 1, minor: 7,
            measuredPowerDBm: -59)
        let data = try Beacon.advertisingData([.iBeacon(beacon)])
        var event: [UInt8] = [0x3E, UInt8(11 + data.count), 0x02, 0x01, 0x00, 0x00, 1, 2, 3, 4, 5, 6, UInt8(data.count)]
        event += data + [0xC4]
        var file = BtsnoopWriter.fileHeader()
        file.reserveCapacity(16 + count * (25 + event.count))
        for k in 0..<count {
            file += BtsnoopWriter.record(
                HCIPacket(type: .event, bytes: event), direction: .controllerToHost,
                timestamp: BtsnoopTimestamp(unixMicroseconds: Int64(k) * 100))
        }
        return file
    }

    @Test func decodesAdvertisingReportsQuickly() throws {
        let count = 1_000_000
        let file = try Self.syntheticRecording(count: count)
        let clock = ContinuousClock()
        var beacons = 0
        var decoder = BtsnoopDecoder()
        let elapsed = try clock.measure {
            var k = 0
            while k < file.count {  // 64 KiB chunks, as the file reader feeds them
                decoder.append(file[k..<min(file.count, k + 65_536)])
                k += 65_536
                while let record = try decoder.next() {
                    guard let packet = record.packet else { continue }
                    var r = ByteReader(packet.bytes)
                    _ = try r.bytes(4, "event header, subevent, report count")
                    _ = try r.bytes(8, "event type, address type, address")
                    let length = Int(try r.u8("data length"))
                    var ad = ADElementReader(try r.bytes(length, "data"))
                    while let element = try ad.next() {
                        if Beacon.decode(element: element) != nil { beacons += 1 }
                    }
                }
            }
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        let rate = Double(count) / seconds
        print("btsnoop + AD + beacon decoding: \(Int(rate)) reports/s (\(count) in \(seconds) s)")
        #expect(beacons == count)
        #expect(rate >= 2_000_000, "\(Int(rate)) reports/s is below 2 million")
    }
}
