import Gateway
import Positioning
import Testing

/// Drawing state rules and the hub's feed: snapshot first, live events, stale and removed targets.
@Suite struct LocationHubTests {
    func fix(_ target: String = "self", t: Double = 10, speed: Double? = nil, course: Double? = nil, lastKnown: Bool = false)
        -> LocationFix
    {
        LocationFix(
            t: t, target: target, x: 1, y: 2, floor: 0, horizontalAccuracy: 1.5, speed: speed, course: course,
            lastKnown: lastKnown, anchors: 4)
    }

    @Test func symbols() {
        let rules = DotDrawingRules()
        #expect(rules.drawing(for: fix(), now: 10, fresh: true) == DotDrawing(symbol: .default, accuracyMeters: 1.5, ping: true))
        #expect(
            rules.drawing(for: fix(speed: 0.8, course: 90), now: 10, fresh: true)
                == DotDrawing(symbol: .course, accuracyMeters: 1.5, courseDegrees: 90, ping: true))
        #expect(rules.drawing(for: fix(speed: 0.1, course: 90), now: 10, fresh: true).symbol == .default, "standing still")
        #expect(rules.drawing(for: fix(speed: 0.8), now: 10, fresh: true).symbol == .default, "no course")
        #expect(rules.drawing(for: fix(lastKnown: true), now: 10, fresh: true).symbol == .acquiring)
        #expect(rules.drawing(for: fix(), now: 15.01, fresh: false).symbol == .acquiring, "older than 5 s")
        #expect(rules.drawing(for: fix(), now: 14.99, fresh: false) == DotDrawing(symbol: .default, accuracyMeters: 1.5, ping: false))
        var quiet = DotDrawingRules()
        quiet.showPingAnimation = false
        quiet.useCourseSymbolOnMovement = false
        #expect(quiet.drawing(for: fix(speed: 1, course: 10), now: 10, fresh: true) == DotDrawing(symbol: .default, accuracyMeters: 1.5, ping: false))
    }

    @Test func subscribersGetTheSnapshotThenLiveEventsInOrder() async {
        let hub = LocationHub()
        hub.publish(fix("b"), now: 10)
        hub.publish(fix("a"), now: 10)
        let stream = hub.subscribe()
        hub.publish(fix("a", t: 11, speed: 1, course: 45), now: 11, reportedAt: 10.9)
        hub.sweep(now: 17)       // a (t 11) and b (t 10) are now older than 5 s
        hub.sweep(now: 17.5)     // nothing new
        hub.sweep(now: 80)       // both unheard for over 60 s
        hub.close()
        var frames: [String] = []
        for await frame in stream { frames.append(frame) }
        let heads = frames.map { $0.split(separator: "\n").prefix(2).joined(separator: " ") }
        #expect(heads == [
            "id: 3 event: fix", "id: 4 event: fix", "id: 5 event: fix", "id: 6 event: display", "id: 7 event: display",
            "id: 8 event: removed", "id: 9 event: removed",
        ])
        #expect(frames[0].contains("\"target\": \"a\""), "snapshot sorted by target")
        #expect(frames[0].contains("\"ping\":false"), "the snapshot does not ping")
        #expect(frames[2].contains("\"display\":{\"symbol\":\"course\",\"accuracy\":1.5,\"course\":45,\"ping\":true},\"reportedAt\":10.9}"))
        #expect(frames[3] == "id: 6\nevent: display\ndata: {\"target\":\"a\",\"display\":{\"symbol\":\"acquiring\",\"accuracy\":1.5,\"ping\":false}}\n\n")
        #expect(frames[5] == "id: 8\nevent: removed\ndata: {\"target\":\"a\"}\n\n")
        #expect(hub.targetCount == 0)
        #expect(hub.subscriberCount == 0)
    }

    @Test func aSlowSubscriberLosesTheOldestFramesNotThePipeline() async {
        let hub = LocationHub(bufferLimit: 3)
        let stream = hub.subscribe()
        for i in 0..<10 { hub.publish(fix(t: Double(i)), now: Double(i)) }
        hub.close()
        var ids: [String] = []
        for await frame in stream { ids.append(String(frame.split(separator: "\n")[0])) }
        #expect(ids == ["id: 8", "id: 9", "id: 10"])
    }

    @Test func targetIDsAreEscapedInJSON() {
        let event = FeedEvent.removed(target: "tag \"x\"\n")
        #expect(event.json == "{\"target\":\"tag \\\"x\\\"\\n\"}")
    }
}
