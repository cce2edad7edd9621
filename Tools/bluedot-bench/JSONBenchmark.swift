import BlueDotCore
import Formats
import Foundation
import Gateway
import HCI
import JSON
import LocationDisplay
import Positioning
import Scanner
import Site

/// `bluedot-bench json`: what BlueDot's JSON costs, per item, on one thread: writing a sighting line (`scan`,
/// `decode`), a location line (the location stream, replay, MQTT), an observation line, a feed frame (the map's
/// push feed) and a sighting batch (a receiver's MQTT payload, per sighting); reading observation lines and
/// sighting batches back. Items are realistic (the decode benchmark's beacon mix, a walking tag's fixes with
/// rooms and coordinates), written into a reused buffer as the outputs do. Each figure is the best of `--rounds`
/// rounds of `--items` items, in ns per item of CPU time; `--binary` also times `bluedot decode` end to end on a
/// recording of `--reports` reports written to /dev/null.
enum JSONBenchmark {
    struct Options {
        var items = 200_000
        var rounds = 5
        var binary: String?
        var reports = 1_000_000
    }

    static func run(_ arguments: [String]) throws {
        var o = Options()
        var i = 0
        while i < arguments.count {
            guard i + 1 < arguments.count else { throw BenchError("\(arguments[i]) needs a value") }
            let value = arguments[i + 1]
            switch arguments[i] {
            case "--items": o.items = Int(value) ?? o.items
            case "--rounds": o.rounds = Int(value) ?? o.rounds
            case "--binary": o.binary = value
            case "--reports": o.reports = Int(value) ?? o.reports
            default: throw BenchError("unknown option \(arguments[i])")
            }
            i += 2
        }
        print("json: best of \(o.rounds) rounds of \(o.items) items, CPU time per item on one thread")
        let sightings = try sampleSightings(o.items)
        let fixes = sampleFixes(o.items)
        let observations = fixes.enumerated().map { k, f in
            Observation(t: f.timestamp, anchor: native(String(format: "rx-%04d", k % 1000)), target: f.targetID,
                        rssiDBm: -59 - Double(k % 400) / 10)
        }
        var out: [UInt8] = []
        out.reserveCapacity(1 << 17)
        /// Appends an item's text, as an output buffer does: flushed (here cleared) at 64 KiB.
        func measure(_ name: String, count: Int, bytesEach: (() -> Double)? = nil,
                     _ body: (Int, inout [UInt8]) -> Void) {
            var best = Double.infinity
            var bytes = 0
            for _ in 0..<o.rounds {
                bytes = 0
                let start = ResourceUsage.cpuSeconds()
                for k in 0..<count {
                    body(k, &out)
                    out.append(0x0A)
                    if out.count >= 1 << 16 {
                        bytes += out.count
                        out.removeAll(keepingCapacity: true)
                    }
                }
                bytes += out.count
                out.removeAll(keepingCapacity: true)
                best = min(best, ResourceUsage.cpuSeconds() - start)
            }
            print(String(format: "  %@ %7.0f ns per item  (%.2f M/s, %.0f bytes each)", pad(name),
                         best / Double(count) * 1e9, Double(count) / best / 1e6,
                         bytesEach?() ?? Double(bytes) / Double(count)))
        }

        print("writing")
        measure("sighting line (scan, decode)", count: sightings.count) { k, out in sightings[k].appendJSON(to: &out) }
        measure("location line (stream, replay, MQTT)", count: fixes.count) { k, out in
            LocationWriter.append(fixes[k], to: &out)
        }
        measure("observation line (simulate, site files)", count: observations.count) { k, out in
            ObservationWriter.append(observations[k], to: &out)
        }
        let drawing = DotDrawing(symbol: "courseArrow", accuracyMeters: 2.37, rotationDegrees: 91.5, ping: true,
                                 pingSequence: 1234)
        // The hub makes each message once; every connection writes its frame.
        let reported = fixes.map { fix in
            var fix = fix
            fix.reportedAt = fix.timestamp + 0.27
            return fix
        }
        let messages = reported.enumerated().map { k, fix in FeedMessage(id: UInt64(k), event: .fix(fix, drawing)) }
        measure("feed frame (SSE fix event)", count: messages.count) { k, out in
            messages[k].event.appendFrame(id: messages[k].id, to: &out)
        }
        // The event's making, once per fix whatever the connections (a fix event's payload is boxed), with one
        // connection's frame.
        measure("feed fix event made, then framed once", count: fixes.count) { k, out in
            let message = FeedMessage(id: UInt64(k), event: .fix(reported[k], drawing))
            message.event.appendFrame(id: message.id, to: &out)
        }
        // What the feed's connections send: each frame in a ByteBuffer of its own.
        var frameBytes = 0
        measure("feed frame into its own ByteBuffer (router)", count: messages.count,
                bytesEach: { Double(frameBytes) / Double(o.rounds * messages.count) }) { k, _ in
            frameBytes &+= GatewayRouter.feedFrame(messages[k]).readableBytes
        }
        guard frameBytes > 0 else { throw BenchError("the feed wrote no frames") }
        let batches = stride(from: 0, to: observations.count, by: 100).map { start in
            SightingBatch(receiver: "rx-0042", sequence: start / 100, clock: 1_732_400_000.5, sightings:
                observations[start..<min(start + 100, observations.count)].map {
                    Observation(t: $0.t, anchor: "rx-0042", target: $0.target, rssiDBm: $0.rssiDBm.rounded(), txPowerDBm: -59)
                })
        }
        var batchBest = Double.infinity
        var encoded: [[UInt8]] = []
        for _ in 0..<o.rounds {
            let start = ResourceUsage.cpuSeconds()
            encoded = batches.map { $0.encoded() }
            batchBest = min(batchBest, ResourceUsage.cpuSeconds() - start)
        }
        let batchSightings = batches.reduce(0) { $0 + $1.sightings.count }
        print(String(format: "  %@ %7.0f ns per sighting  (%.2f M/s)", pad("sighting batch, 100 per batch (MQTT)"),
                     batchBest / Double(batchSightings) * 1e9, Double(batchSightings) / batchBest / 1e6))

        print("reading")
        var text: [UInt8] = []
        for ob in observations {
            ObservationWriter.append(ob, to: &text)
            text.append(0x0A)
        }
        var readBest = Double.infinity
        for _ in 0..<o.rounds {
            let start = ResourceUsage.cpuSeconds()
            var reader = ObservationReader(source: MemoryChunkSource(text), name: "bench")
            var n = 0
            while try reader.next() != nil { n += 1 }
            readBest = min(readBest, ResourceUsage.cpuSeconds() - start)
            guard n == observations.count else { throw BenchError("read \(n) of \(observations.count) observations") }
        }
        print(String(format: "  %@ %7.0f ns per line  (%.2f M/s)", pad("observation lines (ObservationReader)"),
                     readBest / Double(observations.count) * 1e9, Double(observations.count) / readBest / 1e6))
        var decodeBest = Double.infinity
        for _ in 0..<o.rounds {
            let start = ResourceUsage.cpuSeconds()
            var n = 0
            // As a site's solver reads them: ids through one string table.
            var table = StringTable()
            for payload in encoded { n += try SightingBatch.decode(payload, table: &table).sightings.count }
            decodeBest = min(decodeBest, ResourceUsage.cpuSeconds() - start)
            guard n == batchSightings else { throw BenchError("decoded \(n) of \(batchSightings) sightings") }
        }
        print(String(format: "  %@ %7.0f ns per sighting  (%.2f M/s)", pad("sighting batches (SightingBatch.decode)"),
                     decodeBest / Double(batchSightings) * 1e9, Double(batchSightings) / decodeBest / 1e6))

        if let binary = o.binary { try decodeEndToEnd(binary: binary, reports: o.reports, rounds: o.rounds) }
    }

    /// `bluedot decode` of a synthetic recording, its output to /dev/null: reports per second of wall time (the
    /// process's start included), best of `rounds`.
    static func decodeEndToEnd(binary: String, reports: Int, rounds: Int) throws {
        let file = NSTemporaryDirectory() + "bluedot-bench-json-\(getpid()).btsnoop"
        let written = try DecodeBenchmark.writeRecording(to: file, reports: reports)
        defer { try? FileManager.default.removeItem(atPath: file) }
        var best = Double.infinity
        for _ in 0..<rounds {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["decode", file]
            process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
            process.standardError = FileHandle.nullDevice
            let start = ContinuousClock.now
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw BenchError("bluedot decode exited \(process.terminationStatus)") }
            best = min(best, (ContinuousClock.now - start).seconds)
        }
        print("end to end")
        print(String(format: "  %-44@ %7.2f M reports/s  (%d reports in %.3f s wall, best of %d)",
                     pad("bluedot decode FILE > /dev/null"), Double(written) / best / 1e6, written, best, rounds))
    }

    /// `text` as a native Swift string: Foundation's `String(format:)` gives a bridged one on Linux, which every
    /// writer would first copy, while the strings BlueDot writes come from its readers and decoders (native).
    static func native(_ text: String) -> String {
        var copy = text
        copy.makeContiguousUTF8()
        return copy
    }

    /// `name` padded to the figures' column.
    static func pad(_ name: String) -> NSString {
        (name.count >= 44 ? name : name + String(repeating: " ", count: 44 - name.count)) as NSString
    }

    /// Sightings of the decode benchmark's beacon mix, decoded from real advertising data.
    static func sampleSightings(_ count: Int) throws -> [Sighting] {
        let payloads = try DecodeBenchmark.samplePayloads()
        return (0..<count).map { k in
            let data = payloads[k % payloads.count]
            let beacon = Beacon.decode(fromAdvertisingData: data).first
            return Sighting(timestamp: 1_732_400_000 + Double(k) * 0.001037,
                            address: BDAddress(rawValue: 0xC655_4433_2200 | UInt64(k & 0xFF)),
                            addressType: .random, rssiDBm: -40 - k % 55, txPowerDBm: k % 5 == 4 ? -4 : nil,
                            beacon: beacon)
        }
    }

    /// Fixes of walking tags: every optional field set but z, as a site's solver publishes them.
    static func sampleFixes(_ count: Int) -> [Location] {
        (0..<count).map { k in
            let a = Double(k) * 0.013
            return Location(timestamp: 1_732_400_000 + Double(k) * 0.002,
                targetID: native(String(format: "ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:%d", k % 500)),
                x: 12.345 + 10 * cos(a), y: 7.891 + 6 * sin(a), floor: k % 3,
                horizontalAccuracyMeters: 1.5 + Double(k % 40) / 17, speedMetersPerSecond: 0.8 + Double(k % 7) / 13,
                courseDegrees: Double(k % 3600) / 10, anchorCount: 3 + k % 5,
                latitude: 52.2205 + Double(k % 1000) * 1e-7, longitude: 21.0122 + Double(k % 997) * 1e-7,
                room: ["Kitchen", "Workshop", "Open lab"][k % 3], roomProbability: 0.6 + Double(k % 40) / 100)
        }
    }
}
