import BlueDotCore
import LocationBus
import LocationDisplay
import Testing

/// Records observer callbacks and lets a test wait for a number of them.
final class RecordingObserver: LocationSourceObserver {
    let log = LockedValue<[String]>([])
    let (stream, continuation) = AsyncStream.makeStream(of: Void.self)

    func onLocationsUpdated(_ locations: [Location], source: LocationSource) {
        record("updated " + locations.map { "\($0.targetID)@\(Int($0.x))" }.joined(separator: ","))
    }

    func onLocationsDeleted(_ targetIDs: [String], source: LocationSource) {
        record("deleted " + targetIDs.joined(separator: ","))
    }

    func onRoomsChanged(_ changes: [RoomChange], source: LocationSource) {
        record("rooms " + changes.map { "\($0.targetID):\($0.from ?? "-")>\($0.to ?? "-")@\(Int($0.timestamp))" }
            .joined(separator: ","))
    }

    func onStatusChanged(_ status: LocationSourceStatus, source: LocationSource) {
        record("status \(status)")
    }

    private func record(_ line: String) {
        log.withLock { $0.append(line) }
        continuation.yield()
    }

    func waitFor(_ count: Int) async -> [String] {
        var iterator = stream.makeAsyncIterator()
        while log.withLock({ $0.count }) < count { _ = await iterator.next() }
        return log.withLock { $0 }
    }
}

func tag(_ id: String, _ x: Double, _ y: Double) -> Location {
    Location(timestamp: 0, targetID: id, x: x, y: y, horizontalAccuracyMeters: 1)
}

@Suite("LocationSource (many targets)")
struct LocationSourceTests {
    @Test("observers hear status, updates and timeout deletions in order")
    func observerSequence() async {
        let clock = ManualClock(start: 0)
        let source = LocationSource(id: "tags", deleteAfterSeconds: 10, clock: clock)
        let observer = RecordingObserver()
        source.addObserver(observer)
        source.setStatus(.available)
        source.update([tag("a", 1, 0), tag("b", 2, 0)])
        clock.advance(by: 6)
        source.update([tag("a", 3, 0)])
        clock.advance(by: 4)
        #expect(source.expireStale() == [])      // b heard 10 s ago: not yet more than the timeout
        clock.advance(by: 0.5)
        #expect(source.expireStale() == ["b"])
        let log = await observer.waitFor(5)
        #expect(log == ["status initialising", "status available", "updated a@1,b@2", "updated a@3", "deleted b"])
        #expect(source.locations.keys.sorted() == ["a"])
        source.removeObserver(observer)
    }

    @Test("runExpiry deletes on the clock's schedule")
    func periodicExpiry() async {
        let clock = ManualClock(start: 0)
        let source = LocationSource(id: "tags", deleteAfterSeconds: 2, clock: clock)
        let events = source.events
        source.update([tag("a", 0, 0)])
        let expiry = Task { await source.runExpiry(everySeconds: 1) }
        for _ in 0..<3 {
            await clock.waitForSleepers()
            clock.advance(by: 1)
        }
        await clock.waitForSleepers()
        let seen: [LocationSourceEvent] = await events.prefix(3).reduce(into: []) { $0.append($1) }
        #expect(seen == [.statusChanged(.initialising), .updated([tag("a", 0, 0)]), .deleted(["a"])])
        expiry.cancel()
    }

    @Test("a late listener starts from the current status and locations")
    func snapshotFirst() async {
        let source = LocationSource(id: "tags", clock: ManualClock())
        source.setStatus(.available)
        source.update([tag("b", 2, 0), tag("a", 1, 0)])
        let seen: [LocationSourceEvent] = await source.events.prefix(2).reduce(into: []) { $0.append($1) }
        #expect(seen == [.statusChanged(.available), .updated([tag("a", 1, 0), tag("b", 2, 0)])])
    }

    @Test("a relaying source marks rooms busy from the people in them")
    func roomOccupancy() async {
        let clock = ManualClock(start: 0)
        let people = LocationSource(id: "people", deleteAfterSeconds: 5, clock: clock)
        let rooms = RoomOccupancySource(
            id: "rooms", upstream: people,
            rooms: [.init(id: "kitchen", extent: MapExtent(minX: 0, minY: 0, maxX: 4, maxY: 4)),
                    .init(id: "meeting", extent: MapExtent(minX: 5, minY: 0, maxX: 10, maxY: 4))],
            busyThreshold: 2, clock: clock)
        let events = rooms.events
        rooms.start()
        people.setStatus(.available)
        people.update([tag("ann", 1, 1), tag("bob", 6, 1)])
        people.update([tag("bob", 2, 2)])
        clock.advance(by: 6)
        people.expireStale()
        var occupancy: [[String: String]] = []
        var statuses: [LocationSourceStatus] = []
        for await event in events {
            switch event {
            case .updated(let locations):
                occupancy.append(Dictionary(uniqueKeysWithValues: locations.map {
                    ($0.targetID, "\($0.attributes["occupancy"]!)/\($0.attributes["busy"]!)")
                }))
            case .statusChanged(let status): statuses.append(status)
            case .deleted: Issue.record("rooms are never deleted")
            case .roomsChanged: Issue.record("the relay's own locations are rooms, in no room")
            }
            if occupancy.count == 4 { break }
        }
        #expect(statuses == [.initialising, .available])
        #expect(occupancy == [
            ["kitchen": "0/false", "meeting": "0/false"],
            ["kitchen": "1/false", "meeting": "1/false"],
            ["kitchen": "2/true", "meeting": "0/false"],
            ["kitchen": "0/false"],
        ])
        rooms.stop()
        #expect(rooms.status == .inactive)
    }
}

@Suite("LocationSource observers are called in place")
struct LocationSourceInPlaceTests {
    /// Counts callbacks and the thread each ran on, without waiting.
    final class Counting: LocationSourceObserver, Sendable {
        let seen = LockedValue<[String]>([])
        func onLocationsUpdated(_ locations: [Location], source: LocationSource) {
            seen.withLock { $0.append("updated " + locations.map(\.targetID).joined(separator: ",")) }
        }
        func onLocationsDeleted(_ targetIDs: [String], source: LocationSource) {
            seen.withLock { $0.append("deleted " + targetIDs.joined(separator: ",")) }
        }
        func onStatusChanged(_ status: LocationSourceStatus, source: LocationSource) {
            seen.withLock { $0.append("status \(status)") }
        }
    }

    @Test("registration tells the current state, and each change reaches the observer before its call returns")
    func changesArriveBeforeTheCallReturns() {
        let source = LocationSource(id: "tags", clock: ManualClock(start: 0))
        source.setStatus(.available)
        source.update([tag("a", 1, 0)])
        let observer = Counting()
        source.addObserver(observer)
        #expect(observer.seen.value == ["status available", "updated a"])
        source.update([tag("b", 2, 0)])
        #expect(observer.seen.value.last == "updated b")
        source.delete(["a", "nobody"])
        #expect(observer.seen.value.last == "deleted a")
        source.delete(["nobody"])
        source.setStatus(.available)
        #expect(observer.seen.value.count == 4, "no event for a change that changed nothing")
        source.removeObserver(observer)
        source.update([tag("c", 3, 0)])
        #expect(observer.seen.value.count == 4)
    }

    @Test("producers on several threads: every observer sees the same order, one change at a time")
    func concurrentProducersGiveOneOrder() async {
        let source = LocationSource(id: "tags", clock: ManualClock(start: 0))
        let first = Counting(), second = Counting()
        source.addObserver(first)
        source.addObserver(second)
        await withTaskGroup(of: Void.self) { group in
            for producer in 0..<4 {
                group.addTask {
                    for k in 0..<200 { source.update([tag("p\(producer)-\(k)", Double(k), 0)]) }
                }
            }
        }
        #expect(first.seen.value.count == 1 + 800)
        #expect(first.seen.value == second.seen.value)
        for producer in 0..<4 {
            let own = first.seen.value.filter { $0.hasPrefix("updated p\(producer)-") }
            #expect(own == (0..<200).map { "updated p\(producer)-\($0)" }, "each producer's changes in its order")
        }
    }

    @Test("room changes are derived once, by the source: after the update that made them, leaves before deletion")
    func roomChangesFollowTheirUpdate() async {
        let clock = ManualClock(start: 0)
        let source = LocationSource(id: "tags", deleteAfterSeconds: 5, clock: clock)
        let observer = RecordingObserver()
        source.addObserver(observer)
        func tag(_ id: String, _ t: Double, room: String?, probability: Double? = 0.9) -> Location {
            Location(timestamp: t, targetID: id, x: t, y: 0, horizontalAccuracyMeters: 1, room: room,
                     roomProbability: probability)
        }
        source.update([tag("a", 1, room: "hall"), tag("b", 1, room: nil)])
        source.update([tag("a", 2, room: "hall"), tag("b", 2, room: nil, probability: nil)])
        source.update([tag("a", 3, room: "den"), tag("b", 3, room: "den")])
        clock.advance(by: 6)
        source.expireStale()
        let log = await observer.waitFor(8)
        #expect(log == [
            "status initialising",
            "updated a@1,b@1", "rooms a:->hall@1",
            "updated a@2,b@2",
            "updated a@3,b@3", "rooms a:hall>den@3,b:->den@3",
            "rooms a:den>-@3,b:den>-@3", "deleted a,b",
        ])
    }

    @Test("a relay over a source that knows rooms counts people by its room changes, not by outlines")
    func roomOccupancyFollowsTheUpstreamsRoomChanges() async {
        let clock = ManualClock(start: 0)
        let people = LocationSource(id: "people", deleteAfterSeconds: 5, clock: clock)
        // The outline would put everyone in the kitchen; the engine's rooms say otherwise.
        let rooms = RoomOccupancySource(
            id: "rooms", upstream: people,
            rooms: [.init(id: "kitchen", extent: MapExtent(minX: -10, minY: -10, maxX: 10, maxY: 10)),
                    .init(id: "meeting", extent: MapExtent(minX: 20, minY: 0, maxX: 30, maxY: 4))],
            clock: clock)
        rooms.start()
        func person(_ id: String, room: String?) -> Location {
            Location(timestamp: clock.now(), targetID: id, x: 1, y: 1, horizontalAccuracyMeters: 1, room: room,
                     roomProbability: 0.9)
        }
        people.update([person("ann", room: "meeting"), person("bob", room: nil)])
        #expect(rooms.members == ["kitchen": [], "meeting": ["ann"]])
        people.update([person("bob", room: "meeting")])
        #expect(rooms.members == ["kitchen": [], "meeting": ["ann", "bob"]])
        clock.advance(by: 6)
        people.expireStale()
        #expect(rooms.members == ["kitchen": [], "meeting": []])
        rooms.stop()
    }
}
