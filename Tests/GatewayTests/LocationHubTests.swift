import BeaconLocation
import BlueDotCore
import Gateway
import LocationBus
import LocationDisplay
import NIOCore
import Positioning
import Testing

/// The hub: each target's drawing state comes from its `LocationDisplay`; the feed sends the snapshot first,
/// then fixes, stale (grey) and removed targets, in order.
@Suite struct LocationHubTests {
    func fix(
        _ target: String = "self", t: Double = 10, speed: Double? = nil, course: Double? = nil, lastKnown: Bool = false,
        geographic: Bool = false, reportedAt: Double? = nil
    ) -> Location {
        Location(timestamp: t, targetID: target, x: 1, y: 2, floor: 0, horizontalAccuracyMeters: 1.5,
            speedMetersPerSecond: speed, courseDegrees: course, lastKnown: lastKnown, anchorCount: 4,
            latitude: geographic ? 41 : nil, longitude: geographic ? 29 : nil, reportedAt: reportedAt)
    }

    @Test func symbolsComeFromTheDisplayEngine() {
        let clock = ManualClock(start: 10)
        let hub = LocationHub(clock: clock, planBearingDegrees: 20)
        hub.publish(fix("a"))
        #expect(hub.drawing(of: "a") == DotDrawing(symbol: "default", accuracyMeters: 1.5, ping: true, pingSequence: 1))
        hub.publish(fix("a", speed: 0.8, course: 90))
        #expect(hub.drawing(of: "a") == DotDrawing(
            symbol: "course", accuracyMeters: 1.5, rotationDegrees: 90, ping: true, pingSequence: 2,
            navigationRotationDegrees: 90))
        hub.publish(fix("b", speed: 0.8, course: 90, geographic: true))
        #expect(hub.drawing(of: "b")?.rotationDegrees == 70, "a course from north turned onto the plan (bearing 20)")
        hub.publish(fix("a", speed: 0.1, course: 90))
        #expect(hub.drawing(of: "a")?.symbol == "default", "standing still")
        hub.publish(fix("a", lastKnown: true))
        #expect(hub.drawing(of: "a") == DotDrawing(
            symbol: "acquiring", accuracyMeters: 1.5, ping: false, pingSequence: 4, navigationRotationDegrees: 90))
        hub.publish(fix("a"))
        clock.advance(by: 4.9)
        hub.sweep()
        #expect(hub.drawing(of: "a")?.symbol == "default")
        clock.advance(by: 0.2)
        hub.sweep()
        #expect(hub.drawing(of: "a")?.symbol == "acquiring", "no update for over 5 s")
    }

    /// What one change makes goes to a subscriber together, and to a connection as one write: the snapshot is
    /// one batch, each `onLocationsUpdated` one more; the frames of a batch are the single frames one after another.
    @Test func aChangeReachesSubscribersAsOneBatch() async {
        let clock = ManualClock(start: 10)
        let hub = LocationHub(clock: clock)
        let source = LocationSource(id: "tags", clock: clock)
        hub.publish(fix("a"))
        hub.publish(fix("b"))
        let stream = hub.subscribeInBatches()
        hub.onLocationsUpdated([fix("a", t: 11), fix("c", t: 11)], source: source)
        hub.onLocationsUpdated([fix("b", t: 12)], source: source)
        hub.close()
        var batches: [[FeedMessage]] = []
        for await batch in stream { batches.append(batch) }
        #expect(batches.map { $0.map(\.id) } == [[3, 4], [5, 6], [7]], "numbered on: the first two went to nobody")
        let frames = GatewayRouter.feedFrames(batches[1])
        let singles = batches[1].map { String(buffer: GatewayRouter.feedFrame($0)) }.joined()
        #expect(String(buffer: frames) == singles)
        #expect(singles.components(separatedBy: "\n\n").filter { !$0.isEmpty }.count == 2)
    }

    @Test func subscribersGetTheSnapshotThenLiveEventsInOrder() async {
        let clock = ManualClock(start: 10)
        let hub = LocationHub(clock: clock)
        hub.publish(fix("b"))
        hub.publish(fix("a"))
        let stream = hub.subscribe()
        clock.advance(by: 1)
        hub.publish(fix("a", t: 11, speed: 1, course: 45, reportedAt: 10.9))
        clock.advance(by: 4.5)
        hub.sweep()              // b last updated 5.5 s ago: grey; a 4.5 s ago: not yet
        clock.advance(by: 1)
        hub.sweep()              // a now 5.5 s: grey
        hub.sweep()              // nothing new
        clock.advance(by: 60)
        hub.remove(["a", "b", "never-seen"])  // the source deleted both (unheard for its timeout)
        hub.close()
        var frames: [String] = []
        for await message in stream { frames.append(message.frame) }
        let heads = frames.map { $0.split(separator: "\n").prefix(2).joined(separator: " ") }
        #expect(heads == [
            "id: 3 event: fix", "id: 4 event: fix", "id: 5 event: fix", "id: 6 event: display", "id: 7 event: display",
            "id: 8 event: removed", "id: 9 event: removed",
        ])
        #expect(frames[0].contains("\"target\": \"a\""), "snapshot sorted by target")
        #expect(frames[0].contains("\"ping\":false"), "the snapshot does not ping")
        #expect(frames[2].contains(
            "\"display\":{\"symbol\":\"course\",\"accuracy\":1.5,\"rotation\":45,\"navigationRotation\":45,\"ping\":true,\"pingSequence\":2},\"reportedAt\":10.9}"))
        #expect(frames[3] == "id: 6\nevent: display\ndata: {\"target\":\"b\",\"display\":{\"symbol\":\"acquiring\",\"accuracy\":1.5,\"navigationRotation\":0,\"ping\":false,\"pingSequence\":1}}\n\n")
        #expect(frames[4].contains("{\"target\":\"a\",\"display\":{\"symbol\":\"acquiring\""))
        #expect(frames[5] == "id: 8\nevent: removed\ndata: {\"target\":\"a\"}\n\n")
        #expect(hub.targetCount == 0)
        #expect(hub.subscriberCount == 0)
        #expect(frames.count == 7, "a target the hub never had is not announced as removed")
    }

    /// Room changes, as the source derives them, follow the fix that made them: entering, moving (a leave then an
    /// enter), and leaving when the target is forgotten; locations without room knowledge change nothing.
    @Test func roomEntriesAndExitsFollowTheFixes() async {
        let hub = LocationHub(clock: ManualClock(start: 10))
        let source = LocationSource(id: "tags", clock: ManualClock(start: 10))
        source.addObserver(hub)
        let stream = hub.subscribe()
        func located(_ t: Double, _ room: String?, probability: Double? = 0.8) -> Location {
            var fix = fix("tag", t: t)
            fix.room = room
            fix.roomProbability = probability
            return fix
        }
        source.update([located(10, nil)])
        source.update([located(11, "kitchen")])
        source.update([located(12, "kitchen")])
        source.update([located(13, "hall")])
        source.update([located(14, nil, probability: nil)])
        source.delete(["tag"])
        hub.close()
        var names: [String] = []
        var frames: [String] = []
        for await message in stream {
            names.append(message.event.name)
            frames.append(message.frame)
        }
        #expect(names == ["fix", "fix", "enter", "fix", "fix", "leave", "enter", "fix", "leave", "removed"])
        #expect(frames[2] == "id: 3\nevent: enter\ndata: {\"target\":\"tag\",\"room\":\"kitchen\",\"t\":11}\n\n")
        #expect(frames[5].contains("\"room\":\"kitchen\",\"t\":13"))
        #expect(frames[8].contains("\"room\":\"hall\",\"t\":13"), "left at the last fix with a room")
        #expect(frames[1].contains("\"room\": \"kitchen\", \"roomProbability\": 0.800"))
    }

    @Test func aSlowSubscriberLosesTheOldestFramesNotThePipeline() async {
        let hub = LocationHub(clock: ManualClock(start: 0), bufferLimit: 3)
        let stream = hub.subscribe()
        for i in 0..<10 { hub.publish(fix(t: Double(i))) }
        hub.close()
        var ids: [String] = []
        for await message in stream { ids.append(String(message.frame.split(separator: "\n")[0])) }
        #expect(ids == ["id: 8", "id: 9", "id: 10"])
    }

    /// The navigation rotation is the viewport rotation of a `LocationDisplay` in navigation auto-pan fed the same
    /// locations: the course (on the plan) while moving with one, kept while standing or without a course.
    @Test func navigationRotationIsTheNavigationDisplaysViewportRotation() {
        let clock = ManualClock(start: 10)
        let hub = LocationHub(clock: clock, planBearingDegrees: 20)
        let reference = LocationDisplay(
            dataSource: LocationDataSource(),
            viewport: MapViewport(center: MapPoint(x: 0, y: 0), unitsPerPixel: 0.05, widthPixels: 640, heightPixels: 480),
            settings: LocationHub.defaultSettings, clock: clock)
        reference.autoPanMode = .navigation
        let steps: [(speed: Double?, course: Double?, expected: Double)] = [
            (nil, nil, 0), (0.8, 30, 30), (0.1, 200, 30), (1.2, nil, 30), (1.0, 350, 350), (0.9, 359.5, 359.5),
        ]
        for (i, step) in steps.enumerated() {
            let sent = fix("a", t: 10 + Double(i), speed: step.speed, course: step.course)
            hub.publish(sent)
            reference.receive(Location(timestamp: sent.timestamp, x: sent.x, y: sent.y, horizontalAccuracyMeters: 1.5,
                speedMetersPerSecond: step.speed, courseDegrees: step.course))
            let rotation = hub.drawing(of: "a")?.navigationRotationDegrees
            #expect(rotation == step.expected, "step \(i)")
            #expect(rotation == reference.viewport.rotationDegrees, "step \(i): same as the engine's own viewport")
        }
        hub.publish(fix("g", speed: 1, course: 90, geographic: true))
        #expect(hub.drawing(of: "g")?.navigationRotationDegrees == 70, "a course from north turned onto the plan")
        clock.advance(by: 30)
        hub.sweep()
        #expect(hub.drawing(of: "a")?.symbol == "acquiring")
        #expect(hub.drawing(of: "a")?.navigationRotationDegrees == 359.5, "going stale keeps the rotation")
        let event = FeedEvent.display(target: "a", hub.drawing(of: "a")!)
        #expect(event.json.contains("\"navigationRotation\":359.5,"))
    }

    @Test func targetIDsAreEscapedInJSON() {
        let event = FeedEvent.removed(target: "tag \"x\"\n")
        #expect(event.json == "{\"target\":\"tag \\\"x\\\"\\n\"}")
    }
}
