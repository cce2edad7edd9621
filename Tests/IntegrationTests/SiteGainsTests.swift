import BlueDotCore
import Devices
import Formats
import Foundation
import JSON
import Logging
import Positioning
import Testing

@testable import Site

/// Receivers that hear each other, end to end: the Bumble site of `Tools/virtual-world/site-gains.json` (six
/// receivers with hidden gain offsets of up to ±6 dB, walls between some pairs, two tags walking), six
/// `bluedot run ... --publish --advertise` receivers whose controllers advertise through the HCI commands, a real
/// mosquitto, and one solver learning (`bluedot run --mqtt`, self-calibration on by default).
///
/// Asserted: the receivers hear each other (their frames come back as links), and the solver's learned offsets
/// (`/api/calibration`) recover the hidden gains. Measured and printed: the tags' error replayed three ways over the
/// very sightings the broker carried (`bluedot replay` and `bluedot evaluate`): the venue as written (no gains),
/// learning (`--learn`), and the venue given the true gains.
@Suite(.serialized, .enabled(if: MosquittoBroker.available && IntegrationEnvironment.runWorldTests,
                             "needs mosquitto and the virtual world"))
struct SiteGainsTests {
    static let siteScript = IntegrationEnvironment.packageRoot.appendingPathComponent("Tools/virtual-world/site.py").path
    static let siteConfig = IntegrationEnvironment.packageRoot
        .appendingPathComponent("Tools/virtual-world/site-gains.json").path
    static let site = "gs"
    /// Long enough for the pair fit's second pass (the first comes once three links have five samples each, the
    /// next a minute later, over 31 samples a link). `BLUEDOT_SITE_GAINS_SECONDS` runs longer, for the figures of
    /// docs/site.md.
    static let learningSeconds = IntegrationEnvironment.environment["BLUEDOT_SITE_GAINS_SECONDS"].flatMap(Double.init)
        ?? 80

    @Test func receiversThatHearEachOtherGiveBackTheirHiddenGains() async throws {
        let scratch = try IntegrationEnvironment.scratchDirectory()
        let broker = try await MosquittoBroker()
        let venuePath = scratch.appendingPathComponent("site.venue.json").path
        let truthPath = scratch.appendingPathComponent("truth.jsonl").path
        let gainsPath = scratch.appendingPathComponent("gains.json").path
        let world = try ChildProcess(IntegrationEnvironment.python, [
            Self.siteScript, "--config", Self.siteConfig, "--truth", truthPath, "--venue", venuePath,
            "--truth-gains", gainsPath,
        ])
        defer { world.kill() }
        let ready = try #require(await world.readyObject(timeout: .seconds(60)),
                                 "site.py did not get ready: \(world.standardError.suffix(2000))")
        let ports = try #require(ready["receivers"] as? [String: [String: Any]])
        let ids = ports.keys.sorted()
        #expect(ids.count == 6)

        // What the broker carries, kept to replay it afterwards.
        var options = try MQTTOptions(url: "mqtt://127.0.0.1:\(broker.port)")
        options.clientID = "gains-recorder"
        let recorder = try MQTTClient(options: options, logger: Logger(label: "test.recorder"))
        try recorder.subscribe("bluedot/\(Self.site)/sightings/+")
        try recorder.start()
        let batches = LockedValue<[SightingBatch]>([])
        let recording = Task.detached {
            for await case .message(let m) in recorder.events {
                if let batch = try? SightingBatch.decode(m.payload) { batches.withLock { $0.append(batch) } }
            }
        }
        defer { recording.cancel(); recorder.stop() }
        #expect(await eventually(seconds: 10) { recorder.isConnected })

        var receivers: [ChildProcess] = []
        defer { for r in receivers { r.kill() } }
        for id in ids {
            let port = try #require(ports[id]?["port"] as? Int)
            receivers.append(try ChildProcess(IntegrationEnvironment.bluedot, [
                "run", "--h4-tcp", "127.0.0.1:\(port)", "--publish", "mqtt://127.0.0.1:\(broker.port)",
                "--site", Self.site, "--receiver", id, "--advertise", "--log-level", "info",
            ]))
        }
        let learnedPath = scratch.appendingPathComponent("learned.json").path
        let solver = try ChildProcess(IntegrationEnvironment.bluedot, [
            "run", "--mqtt", "mqtt://127.0.0.1:\(broker.port)", "--site", Self.site, "--venue", venuePath,
            "--mode", "tag", "--listen", "127.0.0.1:0", "--learned-calibration", learnedPath, "--history", "off",
            "--log-level", "info",
        ])
        defer { solver.kill() }
        let base = await solver.listeningBase(timeout: .seconds(30)) ?? ""
        #expect(!base.isEmpty, "solver did not listen: \(solver.standardError.suffix(2000))")
        for (id, r) in zip(ids, receivers) {
            #expect(await r.waitForOutput(timeout: .seconds(30)) { _ in r.standardError.contains("advertising") },
                    "\(id) did not advertise: \(r.standardError.suffix(1500))")
        }

        try await Task.sleep(for: .seconds(Self.learningSeconds))

        // Links: every receiver heard another's frame, and the solver mapped it to that receiver.
        let heard = batches.value
        let beaconOf = Dictionary(uniqueKeysWithValues: ids.map { (ReceiverBeacon(site: Self.site, receiver: $0)!.beaconID, $0) })
        var links: [String: Int] = [:]
        for batch in heard {
            for o in batch.sightings {
                if let tx = beaconOf[o.target] { links["\(tx)>\(batch.receiver)", default: 0] += 1 }
            }
        }
        print("site gains: \(heard.count) batches, \(links.count) directed links heard, \(links.values.reduce(0, +)) link sightings")
        #expect(links.count >= 20, "most of the 30 directed pairs hear each other: \(links.keys.sorted())")
        #expect(!links.keys.contains { $0.split(separator: ">").first == $0.split(separator: ">").last }, "nobody hears itself")

        let metrics = try ChildProcess.get(base + "metrics")
        let counted = metrics.split(separator: "\n").first { $0.hasPrefix("bluedot_anchor_link_observations_total ") }
        #expect((counted?.split(separator: " ").last.flatMap { Double($0) } ?? 0) > 100, "the solver counts the links")

        // The offsets the solver learned against the hidden gains, both relative to their mean (the pairs tell
        // receivers apart; the level is the tags'), compared at 4 m, the reference distance of the learned levels:
        // a gain is the same at every distance, and the anchors' learned exponents differ a little.
        let hidden = try Self.gains(gainsPath)
        let document = try ChildProcess.get(base + "api/calibration")
        let learned = try Self.learnedLevels(document)
        let venueModel = try Self.venueLevels(venuePath)
        var recovered: [String: Double] = [:]
        for id in ids { recovered[id] = (learned[id] ?? .nan) - (venueModel[id] ?? .nan) }
        let meanHidden = ids.map { hidden[$0]! }.reduce(0, +) / Double(ids.count)
        let meanRecovered = ids.map { recovered[$0]! }.reduce(0, +) / Double(ids.count)
        var squares = 0.0
        var untouched = 0.0
        for id in ids {
            let truth = hidden[id]! - meanHidden
            let found = recovered[id]! - meanRecovered
            squares += (found - truth) * (found - truth)
            untouched += truth * truth
            print("  \(id): hidden \(String(format: "%+.1f", truth)) dB, learned \(String(format: "%+.1f", found)) dB (both less their mean)")
        }
        let rms = (squares / Double(ids.count)).squareRoot()
        let spread = (untouched / Double(ids.count)).squareRoot()
        print("site gains: learned offsets within \(String(format: "%.2f", rms)) dB rms of the hidden gains (spread \(String(format: "%.2f", spread)) dB)")
        #expect(rms.isFinite && rms < 0.4 * spread, "the learned offsets explain most of the hidden gains: \(document)")

        // The same sightings replayed three ways, scored after the first minute (a site learning from the start, as
        // the solver did: the figures of a site that has been running are docs/site.md's, from a longer run).
        let observations = scratch.appendingPathComponent("observations.jsonl").path
        let start = heard.first?.clock ?? 0
        var lines: [UInt8] = []
        for batch in heard.sorted(by: { $0.clock < $1.clock }) {
            for var o in batch.sightings {
                o.anchor = batch.receiver
                if let tx = beaconOf[o.target] { o.target = tx }
                ObservationWriter.append(o, to: &lines)
                lines.append(UInt8(ascii: "\n"))
            }
        }
        try Data(lines).write(to: URL(fileURLWithPath: observations))
        let lateTruth = scratch.appendingPathComponent("truth-late.jsonl").path
        let truthLines = try String(contentsOfFile: truthPath, encoding: .utf8).split(separator: "\n").filter { line in
            guard case .object(let o)? = try? JSONValue.parse(Array(line.utf8)), case .number(let t)? = o["t"] else {
                return false
            }
            return t > start + 60
        }
        try (truthLines.joined(separator: "\n") + "\n").write(toFile: lateTruth, atomically: true, encoding: .utf8)
        let trueVenue = scratch.appendingPathComponent("true.venue.json").path
        try Self.writeVenue(venuePath, adding: hidden, to: trueVenue)

        func replay(_ name: String, venue: String, _ extra: [String] = []) throws -> Double {
            let out = scratch.appendingPathComponent("\(name).locations.jsonl").path
            let run = try ChildProcess.run(IntegrationEnvironment.bluedot,
                                           ["replay", observations, "--venue", venue, "-o", out] + extra,
                                           timeout: .seconds(300))
            #expect(run.status == 0, "\(name): \(run.standardError.suffix(1500))")
            let score = try ChildProcess.run(IntegrationEnvironment.bluedot,
                                             ["evaluate", out, "--truth", lateTruth, "--json"], timeout: .seconds(60))
            guard case .object(let o)? = try? JSONValue.parse(Array(score.standardOutput.utf8)),
                  case .number(let median)? = o["median"] else {
                Issue.record("\(name): evaluate printed \(score.standardOutput) \(score.standardError)")
                return .nan
            }
            return median
        }
        let before = try replay("before", venue: venuePath)
        let after = try replay("learning", venue: venuePath, ["--learn", scratch.appendingPathComponent("replayed.json").path])
        let withTruth = try replay("true-gains", venue: trueVenue)
        print("site gains: tags' median error after the first minute: \(String(format: "%.2f", before)) m as written, "
              + "\(String(format: "%.2f", after)) m learning, \(String(format: "%.2f", withTruth)) m with the true gains")
        // Twenty-odd seconds scored tell the three apart no better than ±0.2 m (two 80 s runs: learning 1.56 and
        // 1.78 m against 1.59 and 1.64 m as written): the test checks they all follow the tags, and the 600 s run
        // of docs/site.md gives the comparison.
        for (name, median) in [("as written", before), ("learning", after), ("true gains", withTruth)] {
            #expect(median.isFinite && median < 3, "\(name): the replayed tracks follow the tags")
        }

        solver.signal(SIGTERM)
        #expect(await solver.wait(timeout: .seconds(10)))
        broker.kill()
    }

    static func gains(_ path: String) throws -> [String: Double] {
        guard case .object(let o) = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path)))) else {
            throw BrokerError("\(path): not an object")
        }
        return o.compactMapValues { if case .number(let v) = $0 { v } else { nil } }
    }

    /// RSSI at 4 m of a model.
    static func level(measuredPower: Double, exponent: Double) -> Double {
        measuredPower - exponent * 10 * log10(4)
    }

    /// Each anchor's level at 4 m in a learned-calibration document.
    static func learnedLevels(_ text: String) throws -> [String: Double] {
        guard case .object(let o) = try JSONValue.parse(Array(text.utf8)), case .array(let anchors)? = o["anchors"] else {
            throw BrokerError("not a learned calibration: \(text.prefix(300))")
        }
        var out: [String: Double] = [:]
        for case .object(let a) in anchors {
            if case .string(let id)? = a["id"], case .number(let p)? = a["measuredPower"],
               case .number(let n)? = a["pathLossExponent"] {
                out[id] = level(measuredPower: p, exponent: n)
            }
        }
        return out
    }

    /// Each anchor's level at 4 m in a venue (its own model, else the venue's).
    static func venueLevels(_ path: String) throws -> [String: Double] {
        let venue = try VenueLoader.load(path: path)
        return Dictionary(venue.anchors.map { a in
            let m = a.model(default: venue.model)
            return (a.id, level(measuredPower: m.measuredPowerDBm, exponent: m.pathLossExponent))
        }, uniquingKeysWith: { a, _ in a })
    }

    /// The venue at `path` with each anchor's measured power moved by its gain, written to `output`.
    static func writeVenue(_ path: String, adding gains: [String: Double], to output: String) throws {
        var venue = try VenueLoader.load(path: path)
        for i in venue.anchors.indices {
            var model = venue.anchors[i].model(default: venue.model)
            model.measuredPowerDBm += gains[venue.anchors[i].id] ?? 0
            venue.anchors[i].measuredPowerDBm = model.measuredPowerDBm
        }
        try VenueWriter.json(venue).write(toFile: output, atomically: true, encoding: .utf8)
    }
}
