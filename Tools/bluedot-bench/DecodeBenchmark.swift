import Foundation
import HCI
import Scanner
import SystemIO

/// `bluedot-bench decode`: how fast a btsnoop recording becomes sightings, and whether memory stays flat.
///
/// Writes a synthetic recording of `--reports N` advertising report entries (a mix of iBeacon, Eddystone-UID,
/// Eddystone-TLM, AltBeacon and plain advertisements, one to three entries per LE Advertising Report event, and
/// some LE Extended Advertising Report events), then decodes it the way `bluedot decode` does: the streaming
/// `BtsnoopFileReader`, then `SightingDecoder` (report entries, AD structures, beacon frames, canonical ids).
/// `--stage` stops earlier (records, report entries) or goes further (JSON lines) to show where time goes.
/// Prints reports per second of CPU time on one thread and the peak resident memory of the process; run it with
/// two sizes to see that memory does not grow with the file.
enum DecodeBenchmark {
    static func run(_ arguments: [String]) throws {
        var reports = 1_000_000
        var path: String?
        var stage = Stage.sightings
        var k = 0
        while k < arguments.count {
            switch arguments[k] {
            case "--reports": k += 1; reports = Int(arguments[k]) ?? reports
            case "--file": k += 1; path = arguments[k]
            case "--stage":
                k += 1
                guard let chosen = Stage(rawValue: arguments[k]) else {
                    throw BenchmarkError.usage("--stage takes records, reports, sightings or json")
                }
                stage = chosen
            default: throw BenchmarkError.usage("unknown option \(arguments[k])")
            }
            k += 1
        }
        let file = path ?? NSTemporaryDirectory() + "bluedot-bench-\(getpid()).btsnoop"
        let written = try writeRecording(to: file, reports: reports)
        defer { if path == nil { try? FileManager.default.removeItem(atPath: file) } }
        let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        let rssBefore = ResourceUsage.peakResidentKiB()

        let cursor = try BtsnoopFileReader(path: file).makeCursor()
        var decoder = SightingDecoder()
        var sightings = 0
        var bytesOut = 0
        let cpuStart = ResourceUsage.cpuSeconds()
        let wallStart = ContinuousClock.now
        while let record = try cursor.next() {
            guard let packet = record.packet else { continue }
            switch stage {
            case .records:
                sightings += Int(packet.bytes.count > 3 ? packet.bytes[3] : 0)
            case .reports:
                _ = AdvertisingReportBatch.forEachReport(in: packet) { report in
                    sightings += 1
                    bytesOut &+= Int(report.data.count)
                }
            case .sightings, .json:
                decoder.decode(packet, timestamp: record.timestamp.unixSeconds) { sighting in
                    sightings += 1
                    if stage == .json { bytesOut += sighting.jsonLine.utf8.count }
                }
            }
        }
        let cpu = ResourceUsage.cpuSeconds() - cpuStart
        let wall = (ContinuousClock.now - wallStart).seconds
        precondition(sightings == written, "decoded \(sightings) of \(written) reports")
        let stats = decoder.statistics
        print("decode (stage \(stage.rawValue): \(stage.summary)): \(written) reports in \(size / 1_048_576) MiB btsnoop")
        print(String(format: "  %.2f M reports/s per CPU second (%.3f s CPU, %.3f s wall), %.0f ns per report",
                     Double(written) / cpu / 1e6, cpu, wall, cpu / Double(written) * 1e9))
        print("  beacons by type: \(stats.beaconsByType.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")), malformed \(stats.malformed)")
        print("  peak resident memory: \(ResourceUsage.peakResidentKiB() / 1024) MiB (after writing the file: \(rssBefore / 1024) MiB)")
    }

    /// How far down the pipeline to decode.
    enum Stage: String {
        case records, reports, sightings, json

        var summary: String {
            switch self {
            case .records: "btsnoop records only"
            case .reports: "records and advertising report entries"
            case .sightings: "records, report entries, AD structures, beacon frames and sightings, as bluedot decode"
            case .json: "sightings and their JSON lines"
            }
        }
    }

    /// Streams a synthetic recording to `path`, returning how many report entries it holds.
    static func writeRecording(to path: String, reports: Int) throws -> Int {
        guard FileManager.default.createFile(atPath: path, contents: nil),
              let handle = FileHandle(forWritingAtPath: path)
        else { throw BenchmarkError.usage("cannot create \(path)") }
        defer { try? handle.close() }
        let payloads = try samplePayloads()
        var buffer = BtsnoopWriter.fileHeader()
        var written = 0
        var event = 0
        var micros: Int64 = 1_700_000_000 * 1_000_000
        while written < reports {
            let perEvent = min(1 + event % 3, reports - written)
            let extended = event % 5 == 4
            var w = ByteWriter(capacity: 256)
            w.u8(LEMetaEvent.code)
            w.u8(0)  // parameter length, patched below
            w.u8(extended ? 0x0D : 0x02)
            w.u8(UInt8(perEvent))
            for entry in 0..<perEvent {
                let data = payloads[(written + entry) % payloads.count]
                let address: [UInt8] = [UInt8(truncatingIfNeeded: written + entry), 0x22, 0x33, 0x44, 0x55, 0xC6]
                let rssi = Int8(-40 - (written + entry) % 55)
                if extended {
                    w.u16(0x0010)  // legacy ADV_NONCONN_IND properties as an extended report
                    w.u8(1)
                    w.append(address)
                    w.u8(1); w.u8(0); w.u8(0xFF)
                    w.i8(-4)  // TX power
                    w.i8(rssi)
                    w.u16(0); w.u8(0xFF); w.append([0, 0, 0, 0, 0, 0])
                    w.u8(UInt8(data.count)); w.append(data)
                } else {
                    w.u8(0x03); w.u8(1); w.append(address); w.u8(UInt8(data.count)); w.append(data); w.i8(rssi)
                }
            }
            var bytes = w.bytes
            bytes[1] = UInt8(bytes.count - 2)
            buffer += BtsnoopWriter.record(
                HCIPacket(type: .event, bytes: bytes), direction: .controllerToHost,
                timestamp: BtsnoopTimestamp(microsecondsSinceYear0: micros + BtsnoopTimestamp.unixEpochMicroseconds))
            micros += 1_000
            written += perEvent
            event += 1
            if buffer.count > 1 << 20 {
                handle.write(Data(buffer))
                buffer.removeAll(keepingCapacity: true)
            }
        }
        handle.write(Data(buffer))
        return written
    }

    /// Advertising data of the kinds a gateway hears, with real frame encoders.
    static func samplePayloads() throws -> [[UInt8]] {
        let uuid = BluetoothUUID("f7826da6-4fa2-4e98-8024-bc5b71e0893e")!
        var payloads: [[UInt8]] = []
        for minor in UInt16(1)...4 {
            payloads.append(try Beacon.advertisingData([.iBeacon(IBeacon(proximityUUID: uuid, major: 1, minor: minor, measuredPowerDBm: -59))]))
        }
        payloads.append(try Beacon.advertisingData([.eddystoneUID(try EddystoneUID(
            txPowerAt0mDBm: -20, namespace: Array(0..<10), instance: Array(10..<16)))]))
        payloads.append(try Beacon.advertisingData([.eddystoneURL(EddystoneURL(txPowerAt0mDBm: -20, url: "https://example.com/a"))]))
        payloads.append(try Beacon.advertisingData([.altBeacon(AltBeacon(
            companyID: 0x0118, id1: uuid, id2: 7, id3: 9, referenceRSSIDBm: -60))]))
        // A phone or a watch: flags, a name and manufacturer data that is no beacon.
        payloads.append([0x02, 0x01, 0x1A, 0x05, 0x09, 0x4D, 0x69, 0x6B, 0x65, 0x07, 0xFF, 0x06, 0x00, 0x01, 0x09, 0x20, 0x02])
        return payloads
    }
}
