import BeaconLocation
import BlueDotCore
import Devices
import Formats
import Foundation
import HCI
import JSON
import LocationDisplay
import Positioning
import Scanner
import Testing

/// The spine's parts: sightings mapped by mode, the pipeline's one engine, paced replays on the injected clock,
/// several inputs into one engine, and the many-target source.
@Suite struct SpineTests {
    static let venue = Venue(
        name: "square", origin: Venue.Origin(latitude: 41, longitude: 29, bearingDegrees: 90),
        anchors: [
            Anchor(id: "a", x: 0, y: 0, z: 2), Anchor(id: "b", x: 10, y: 0, z: 2),
            Anchor(id: "c", x: 0, y: 10, z: 2), Anchor(id: "d", x: 10, y: 10, z: 2),
        ])

    /// Noiseless observations of a target standing at (3, 4), 4 Hz per anchor, for `seconds`.
    static func standing(seconds: Double, target: String = "self", unknown: Bool = false) -> [Observation] {
        var out: [Observation] = []
        let model = venue.model
        var t = 0.0
        while t < seconds {
            for anchor in venue.anchors {
                let d = ((anchor.x - 3) * (anchor.x - 3) + (anchor.y - 4) * (anchor.y - 4) + 0.8 * 0.8).squareRoot()
                let rssi = model.measuredPowerDBm - 10 * model.pathLossExponent * log10(d)
                out.append(Observation(t: t, anchor: anchor.id, target: target, rssiDBm: rssi))
            }
            if unknown { out.append(Observation(t: t, anchor: "nobody", target: target, rssiDBm: -70)) }
            t += 0.25
        }
        return out
    }

    @Test func pipelineLocationsCarryCoordinatesAndReportTimes() throws {
        let pipeline = PositioningPipeline(venue: Self.venue, configuration: .moving)
        var located: [Location] = []
        for o in Self.standing(seconds: 10, unknown: true) { located += pipeline.ingest([Arrival(o, arrivedAt: 999.4)]) }
        #expect(located.count == pipeline.counters.fixes && located.count >= 9)
        #expect(pipeline.counters.unknownAnchors == 40)
        let last = try #require(located.last)
        #expect(abs(last.x - 3) < 0.5 && abs(last.y - 4) < 0.5, "noiseless ranges: within 0.5 m of (3, 4)")
        #expect(last.reportedAt == 999.4)
        // bearing 90: +y points east, so y = 4 m east and x = 3 m south of the origin.
        let lat = try #require(last.latitude), lon = try #require(last.longitude)
        let scale = GeographicOrigin(latitude: 41, longitude: 29).metersPerDegree
        #expect(abs((lat - 41) * scale.north + last.x) < 1e-6)
        #expect(abs((lon - 29) * scale.east - last.y) < 1e-6)
    }

    /// A target nobody hears any more: advancing the pipeline releases last-known fixes with a growing radius on
    /// the 1 s grid, and nothing twice.
    @Test func advancingReleasesLastKnownFixesOfAQuietTarget() throws {
        let pipeline = PositioningPipeline(venue: Self.venue, configuration: .moving)
        var last: Location?
        for o in Self.standing(seconds: 3) { last = pipeline.ingest([Arrival(o, arrivedAt: 999)]).last ?? last }
        #expect(try #require(last).timestamp == 2)
        // The grid point at 3 s holds the last packets (2.25-2.75 s); after it nothing is heard.
        let heard = try #require(pipeline.advance(to: 3.75).last)
        #expect(!heard.lastKnown && heard.timestamp == 3)
        var radii: [Double] = []
        for k in 2...6 {
            let fix = try #require(pipeline.advance(to: 2.75 + Double(k)).last)
            #expect(fix.timestamp == 2 + Double(k) && fix.lastKnown)
            radii.append(fix.horizontalAccuracyMeters)
        }
        #expect(zip(radii, radii.dropFirst()).allSatisfy { $0 < $1 })
        #expect(pipeline.advance(to: 8.75).isEmpty)
    }

    /// The paced replay's clock: while it runs, observation time is its start plus `speed` times the clock time
    /// since; stopped, it has none. Recordings are stamped with the clock itself.
    @Test(.timeLimit(.minutes(1))) func sourcesTellTheirObservationClock() async throws {
        let clock = ManualClock(start: 5000)
        let source = PacedReplaySource(name: "t", observations: Self.standing(seconds: 4), speed: 2, clock: clock)
        #expect(source.observationTime(at: 5001) == nil)
        let started = LockedValue(false)
        let task = Task { try await source.run(started: { started.withLock { $0 = true } }) { _ in } }
        await clock.waitForSleepers()
        #expect(started.value)
        #expect(source.observationTime(at: 5001.5) == 5003)
        source.stop()
        task.cancel()
        try await task.value
        #expect(source.observationTime(at: 5001) == nil)
        let recording = RecordingSource(path: "/nonexistent", mapper: SightingMapper(), clock: clock)
        #expect(recording.observationTime(at: 123.5) == 123.5)
    }

    @Test(.timeLimit(.minutes(1))) func pacedReplayLoopsWithTimeGoingForwardOnTheClock() async throws {
        let clock = ManualClock(start: 5000)
        let observations = Self.standing(seconds: 1)
        let source = PacedReplaySource(
            name: "t", observations: observations, speed: 1, loop: true, loopGapSeconds: 1, clock: clock)
        let seen = LockedValue<[Observation]>([])
        let task = Task { try await source.run(started: {}) { batch in seen.withLock { $0 += batch.map(\.observation) } } }
        while seen.value.count < observations.count * 3 {
            await clock.waitForSleepers()
            clock.advance(by: 0.25)
        }
        source.stop()
        task.cancel()
        try await task.value
        let times = seen.value.map(\.t)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(times.first == 5000)
        #expect(times[observations.count] == 5000 + 0.75 + 1, "second loop: after the span and the gap")
        #expect(source.statistics.loops >= 2)
        #expect(source.statistics.reports == seen.value.count)
    }

    /// A replay at a 2 ms quantum of 40 observations 0.25 ms apart (10 ms of stream), and one a second later
    /// that keeps it waiting.
    static func burstReplay(clock: ManualClock) -> PacedReplaySource {
        let observations = (0..<40).map { k in
            Observation(t: Double(k) * 0.00025, anchor: "rx-1", target: "tag", rssiDBm: -60)
        } + [Observation(t: 1, anchor: "rx-1", target: "tag", rssiDBm: -60)]
        return PacedReplaySource(name: "burst", observations: observations, pacingQuantumSeconds: 0.002, clock: clock)
    }

    /// Observations closer together than the pacing quantum go out together, never before they are due and at
    /// most one quantum after; each wake-up delivers everything due by then.
    @Test(.timeLimit(.minutes(1))) func pacedReplayWakesAtMostOncePerQuantum() async throws {
        let clock = ManualClock(start: 1000)
        let source = Self.burstReplay(clock: clock)
        let seen = LockedValue<[(t: Double, arrived: Double)]>([])
        let task = Task { try await source.run(started: {}) { batch in seen.withLock { $0 += batch.map { ($0.observation.t, $0.arrivedAt) } } } }
        while seen.value.count < 40 {
            await clock.waitForSleepers()
            clock.advance(by: 0.0005)
        }
        await clock.waitForSleepers()
        source.stop()
        task.cancel()
        try await task.value
        let delivered = seen.value
        #expect(delivered.count == 40)
        #expect(delivered.allSatisfy { $0.arrived >= $0.t - 1e-9 }, "never before its time")
        #expect(delivered.allSatisfy { $0.arrived - $0.t <= 0.002 + 0.0005 + 1e-9 }, "at most a quantum late")
        // The first goes out at once, then one wait per 2 ms: about 6 arrival times for 40 observations.
        let arrivals = Set(delivered.map(\.arrived))
        #expect(arrivals.count <= 7, "\(arrivals.count) wake-ups for 40 observations")
        #expect(arrivals.count >= 5, "\(arrivals.count) wake-ups for 40 observations")
    }

    /// What falls due in one wake goes out as one batch, and between batches the replay says how far it has
    /// handed over everything: up to the stamped time of its next observation.
    @Test(.timeLimit(.minutes(1))) func pacedReplayHandsOverBatchesAndHowFarTheyReach() async throws {
        let clock = ManualClock(start: 1000)
        let source = Self.burstReplay(clock: clock)
        #expect(source.deliveredThrough() == nil)
        let batches = LockedValue<[(times: [Double], arrived: Double, through: Double?)]>([])
        let task = Task {
            try await source.run(started: {}) { batch in
                let through = source.deliveredThrough()
                #expect(Set(batch.map(\.arrivedAt)).count == 1, "what falls due in one wake arrives together")
                batches.withLock { $0.append((batch.map(\.observation.t), batch[0].arrivedAt, through)) }
            }
        }
        while batches.value.reduce(0, { $0 + $1.times.count }) < 40 {
            await clock.waitForSleepers()
            clock.advance(by: 0.0005)
        }
        await clock.waitForSleepers()
        #expect(source.deliveredThrough() == 1001, "waiting for the observation stamped 1001")
        source.stop()
        task.cancel()
        try await task.value
        let seen = batches.value
        let expected: [Double] = (0..<40).map { k in 1000 + Double(k) * 0.00025 }
        let times: [Double] = seen.flatMap(\.times)
        #expect(times == expected, "every one, in order, once")
        #expect(seen.count >= 5 && seen.count <= 7, "\(seen.count) batches: one per wake")
        for (k, batch) in seen.enumerated() {
            #expect(batch.times.allSatisfy { $0 <= batch.arrived + 1e-9 }, "none before its time")
            let next: Double = k + 1 < seen.count ? seen[k + 1].times[0] : 1001
            let reaches: Bool = batch.through.map { abs($0 - next) < 1e-9 } ?? false
            #expect(reaches, "through the next one's stamp")
        }
        #expect(source.deliveredThrough() == nil, "nothing is known once the replay has ended")
    }

    /// A replay faster than it is read (all of it due at once) still hands over in bounded batches.
    @Test(.timeLimit(.minutes(1))) func aReplayFasterThanItIsReadHandsOverBoundedBatches() async throws {
        let observations = (0..<1000).map { k in
            Observation(t: Double(k) * 0.001, anchor: "rx-1", target: "tag", rssiDBm: -60)
        }
        let source = PacedReplaySource(name: "fast", observations: observations, speed: 1e9, clock: SkippingClock())
        let sizes = LockedValue<[Int]>([])
        try await source.run(started: {}) { batch in sizes.withLock { $0.append(batch.count) } }
        #expect(sizes.value.reduce(0, +) == 1000)
        #expect(sizes.value.allSatisfy { $0 <= 256 }, "\(sizes.value)")
        #expect(sizes.value.count >= 4)
    }

    /// An observation file streamed (read again for each loop) replays exactly as the same observations held in
    /// memory: the same observations at the same clock times, loop after loop; a missing file fails at once.
    @Test(.timeLimit(.minutes(1))) func aStreamedFileReplaysAsTheSameObservationsInMemory() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("paced-\(UUID()).jsonl").path
        var text: [UInt8] = []
        for o in Self.standing(seconds: 1.5) {
            ObservationWriter.append(o, to: &text)
            text.append(0x0A)
        }
        try Data(text).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        // As the file holds them (numbers as written).
        var reader = try ObservationReader(path: path)
        let observations = try reader.readAll().map(\.observation)

        func replay(_ make: (ManualClock) throws -> PacedReplaySource) async throws -> ([Observation], [Double], Int) {
            let clock = ManualClock(start: 5000)
            let source = try make(clock)
            let seen = LockedValue<([Observation], [Double])>(([], []))
            let task = Task {
                try await source.run(started: {}) { batch in seen.withLock { $0.0 += batch.map(\.observation); $0.1 += batch.map(\.arrivedAt) } }
            }
            while seen.value.0.count < observations.count * 3 {
                await clock.waitForSleepers()
                clock.advance(by: 0.25)
            }
            source.stop()
            task.cancel()
            try await task.value
            let (delivered, times) = seen.value
            return (Array(delivered.prefix(observations.count * 3)), Array(times.prefix(observations.count * 3)),
                    source.statistics.loops)
        }
        let memory = try await replay { clock in
            PacedReplaySource(name: "m", observations: observations, loop: true, loopGapSeconds: 1, clock: clock)
        }
        let file = try await replay { clock in
            try PacedReplaySource(name: "f", path: path, loop: true, loopGapSeconds: 1, clock: clock)
        }
        #expect(file.0 == memory.0)
        #expect(file.1 == memory.1)
        #expect(file.2 >= 2 && memory.2 >= 2)
        #expect(file.0[observations.count].t == 5000 + 1.25 + 1, "second pass: after the span and the gap")
        #expect(throws: JSONLinesError.self) {
            try PacedReplaySource(name: "x", path: path + ".missing", clock: ManualClock(start: 0))
        }
    }

    @Test func sightingsBecomeObservationsByMode() {
        let sighting = Sighting(
            timestamp: 7, address: BDAddress("C0:00:00:00:00:01")!, addressType: .random, rssiDBm: -61,
            txPowerDBm: -4, dataStatus: .complete, beacon: nil)
        let selfMode = SightingMapper(mode: .self).observation(for: sighting)
        #expect(selfMode == Observation(t: 7, anchor: "mac:c0:00:00:00:00:01", rssiDBm: -61, txPowerDBm: -4))
        // Tag mode: an address nobody registered is a stranger's, and makes no observation; registered, the
        // device's id is the target.
        #expect(SightingMapper(mode: .tag, receiverID: "rx-1").observation(for: sighting) == nil)
        let registry = try! DeviceRegistry(devices: [
            Device(id: "tag-1", name: "Tag 1", addresses: [BDAddress("C0:00:00:00:00:01")!]),
        ])
        let devices = DeviceIdentifier(registry: registry)!
        let tagMode = SightingMapper(mode: .tag, receiverID: "rx-1", devices: devices).observation(for: sighting)
        #expect(tagMode == Observation(t: 7, anchor: "rx-1", target: "tag-1", rssiDBm: -61, txPowerDBm: -4))
        #expect(SightingMapper(mode: .self, devices: devices).observation(for: sighting)?.anchor == "tag-1")
        var silent = sighting
        silent.rssiDBm = nil
        #expect(SightingMapper(mode: .self).observation(for: silent) == nil)
        #expect(devices.statistics.devices == 2 && devices.statistics.strangers == 0)
    }

    /// Tag mode with a registry: a device changing its resolvable private address stays one target under the
    /// registry's id; a stranger's private addresses make no observation, counted by the decoder and the identifier.
    @Test func aDeviceChangingItsPrivateAddressStaysOneTarget() throws {
        let irk = try #require(IdentityResolvingKey(hex: "ec0234a357c8ad05341010a60a397d9b"))
        let other = try #require(IdentityResolvingKey(hex: "0f1e2d3c4b5a69788796a5b4c3d2e1f0"))
        let devices = try #require(DeviceIdentifier(registry: try DeviceRegistry(devices: [
            Device(id: "alice-phone", name: "Alice's phone", irks: [irk]),
        ])))
        var decoder = ObservationDecoder(mapper: SightingMapper(mode: .tag, receiverID: "rx-1", devices: devices))
        var targets: [String] = []
        for n in 0..<10 {
            for key in [irk, other] {
                let address = try #require(PrivateAddress.make(irk: key, random: UInt32(n * 977)))
                let sighting = Sighting(timestamp: Double(n), address: address, addressType: .random, rssiDBm: -70,
                                        txPowerDBm: nil, beacon: nil)
                if let o = decoder.map(sighting) { targets.append(o.target) }
            }
        }
        #expect(targets == Array(repeating: "alice-phone", count: 10))
        #expect(decoder.strangers == 10 && decoder.observations == 10)
        #expect(devices.statistics.strangers == 10 && devices.statistics.resolver.passes == 20)
    }

    /// Two inputs at once (two tags from two files, say) into one engine: both targets are located by the same
    /// pipeline, and the many-target source holds both.
    @Test(.timeLimit(.minutes(1))) func severalInputsFeedOneEngineAndOneSource() async throws {
        let clock = ManualClock(start: 1000)
        let inputs: [any ObservationSource] = [
            PacedReplaySource(name: "one", observations: Self.standing(seconds: 4, target: "tag-1"), clock: clock),
            PacedReplaySource(name: "two", observations: Self.standing(seconds: 4, target: "tag-2"), clock: clock),
        ]
        let source = BeaconLocationSource(
            id: "beacons", inputs: inputs, venue: Self.venue, engineConfiguration: .moving, clock: clock,
            logger: quietLogger)
        #expect(source.status == .initialising)
        let running = Task { try await source.run() }
        while source.locations.count < 2 {
            await clock.waitForSleepers(count: 3)  // both inputs and the ticker: nobody lags behind the time
            clock.advance(by: 0.25)
        }
        #expect(source.status == .available)
        #expect(Set(source.locations.keys) == ["tag-1", "tag-2"])
        #expect(source.runner.pipeline?.liveTargets == 2, "one engine tracks both")
        // Once both wait again nothing moves: the runner's counters are the two inputs' together, and each has
        // handed over at least its first step (4 anchors), which with the other's released both first fixes.
        await clock.waitForSleepers(count: 3)
        let each = inputs.map(\.statistics.observations)
        #expect(each.allSatisfy { $0 >= 4 }, "\(each)")
        #expect(source.runner.statistics.observations == each.reduce(0, +), "both inputs counted")
        source.stop()
        try await running.value
        #expect(source.status == .inactive)
    }
}
