import BeaconLocation
import BlueDotCore
import Foundation
import LocationBus
import LocationDisplay
import Testing

@testable import History

/// A scratch folder for one test's database.
func scratchDatabase(_ name: String = "history.sqlite") throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bluedot-history-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.appendingPathComponent(name).path
}

/// A fix of `target` at time `t`, somewhere along a line, with coordinates.
func fix(_ target: String, _ t: Double, room: String? = nil, probability: Double? = nil) -> Location {
    Location(timestamp: t, targetID: target, x: t / 10, y: 2, z: 1.2, floor: 0, horizontalAccuracyMeters: 1.5,
        speedMetersPerSecond: 0.5, courseDegrees: 90, anchorCount: 4,
        latitude: 52 + t.truncatingRemainder(dividingBy: 1000) * 1e-6, longitude: 21, room: room,
        roomProbability: probability)
}

@Suite struct HistoryStoreTests {
    /// The clock the stores read: the test fixes' times are recent for it (retention keeps them).
    let clock = ManualClock(start: 10_000)

    /// What goes in comes out: every field, per target, in both orders, room changes beside.
    @Test func writesThenReadsBack() throws {
        let store = try HistoryStore(path: try scratchDatabase(), clock: clock)
        defer { store.close() }
        store.record((0..<5).map { fix("a", Double($0), room: "lab", probability: 0.875) })
        store.record((0..<3).map { fix("b", Double($0) + 0.5) })
        store.record(RoomChange(targetID: "a", from: nil, to: "lab", timestamp: 0))
        store.flush()
        let a = try store.fixes(HistoryQuery(target: "a", newestFirst: false))
        #expect(a.records.map(\.timestamp) == [0, 1, 2, 3, 4])
        #expect(a.records[2] == fix("a", 2, room: "lab", probability: 0.875))
        #expect(a.next == nil)
        let all = try store.fixes(HistoryQuery())
        #expect(all.records.map(\.targetID) == ["a", "a", "b", "a", "b", "a", "b", "a"])
        #expect(all.records.first?.timestamp == 4, "newest first by default")
        let changes = try store.roomChanges(HistoryQuery(target: "a"))
        #expect(changes.records == [RoomChange(targetID: "a", from: nil, to: "lab", timestamp: 0)])
        #expect(try store.targets() == [HistoryTarget(id: "a", fixes: 5, first: 0, last: 4),
                                        HistoryTarget(id: "b", fixes: 3, first: 0.5, last: 2.5)])
        #expect(store.statistics.fixesWritten == 8 && store.statistics.roomChangesWritten == 1)
        #expect(try store.fixes(HistoryQuery(target: "nobody")).records.isEmpty)
    }

    /// Presence is kept with each fix; a history of schema 1 (before presence) opens, keeps its fixes (without
    /// presence) and takes new ones with it.
    @Test func presenceIsKeptAndASchemaOneHistoryIsMigrated() throws {
        let path = try scratchDatabase("schema-1.sqlite")
        let db = try SQLiteConnection(filename: path, path: path)
        try db.execute("""
            BEGIN;
            CREATE TABLE targets (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
            CREATE TABLE fixes (
                id INTEGER PRIMARY KEY, target INTEGER NOT NULL REFERENCES targets(id), t REAL NOT NULL,
                x REAL NOT NULL, y REAL NOT NULL, z REAL, floor INTEGER, accuracy REAL NOT NULL,
                vertical_accuracy REAL, speed REAL, course REAL, last_known INTEGER NOT NULL, anchors INTEGER,
                lat REAL, lon REAL, room TEXT, room_probability REAL);
            CREATE TABLE room_changes (
                id INTEGER PRIMARY KEY, target INTEGER NOT NULL REFERENCES targets(id), t REAL NOT NULL,
                from_room TEXT, to_room TEXT);
            INSERT INTO targets (id, name) VALUES (1, 'a');
            INSERT INTO fixes (target, t, x, y, accuracy, last_known, anchors) VALUES (1, 1, 2, 3, 1.5, 0, 4);
            PRAGMA user_version = 1;
            COMMIT;
            """)
        db.close()
        let store = try HistoryStore(path: path, clock: clock)
        defer { store.close() }
        var away = fix("a", 200)
        away.lastKnown = true
        away.presence = .notHome
        away.silentForSeconds = 130
        store.record([away])
        store.flush()
        let fixes = try store.fixes(HistoryQuery(target: "a", newestFirst: false)).records
        #expect(fixes.count == 2 && fixes[0].x == 2 && fixes[0].presence == nil && fixes[0].silentForSeconds == nil)
        #expect(fixes[1] == away)
    }

    /// A campus view's fixes keep their site; a history of schema 2 (before sites) opens, keeps its fixes (with
    /// presence, without a site) and takes new ones with theirs.
    @Test func theSiteIsKeptAndASchemaTwoHistoryIsMigrated() throws {
        let path = try scratchDatabase("schema-2.sqlite")
        let db = try SQLiteConnection(filename: path, path: path)
        try db.execute("""
            BEGIN;
            CREATE TABLE targets (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
            CREATE TABLE fixes (
                id INTEGER PRIMARY KEY, target INTEGER NOT NULL REFERENCES targets(id), t REAL NOT NULL,
                x REAL NOT NULL, y REAL NOT NULL, z REAL, floor INTEGER, accuracy REAL NOT NULL,
                vertical_accuracy REAL, speed REAL, course REAL, last_known INTEGER NOT NULL, anchors INTEGER,
                lat REAL, lon REAL, room TEXT, room_probability REAL, presence TEXT, silent_for REAL);
            CREATE TABLE room_changes (
                id INTEGER PRIMARY KEY, target INTEGER NOT NULL REFERENCES targets(id), t REAL NOT NULL,
                from_room TEXT, to_room TEXT);
            INSERT INTO targets (id, name) VALUES (1, 'a');
            INSERT INTO fixes (target, t, x, y, accuracy, last_known, anchors, presence)
                VALUES (1, 1, 2, 3, 1.5, 0, 4, 'home');
            PRAGMA user_version = 2;
            COMMIT;
            """)
        db.close()
        let store = try HistoryStore(path: path, clock: clock)
        defer { store.close() }
        var there = fix("a", 200)
        there.site = "west-wing"
        store.record([there])
        store.flush()
        let fixes = try store.fixes(HistoryQuery(target: "a", newestFirst: false)).records
        #expect(fixes.count == 2 && fixes[0].presence == .home && fixes[0].site == nil)
        #expect(fixes[1] == there && fixes[1].site == "west-wing")
    }

    /// A folder whose name holds what an SQLite URI reads specially (`?`, `#`, `%`, a space, UTF-8): the database
    /// is made there, under that name, and nowhere else.
    @Test func folderNamesWithURICharacters() throws {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("bluedot-history-\(UUID().uuidString)/a b?c#d%41é")
        let path = folder.appendingPathComponent("h.sqlite").path
        #expect(HistoryStore.uriPath("/t/a b?c#d%41é") == "/t/a%20b%3Fc%23d%2541%C3%A9")
        let store = try HistoryStore(path: path, clock: clock)
        store.record([fix("a", 1)])
        store.flush()
        store.close()
        #expect(FileManager.default.fileExists(atPath: path))
        let reopened = try HistoryStore(path: path, clock: clock)
        defer { reopened.close() }
        #expect(try reopened.fixes(HistoryQuery(target: "a")).records.map(\.timestamp) == [1])
    }

    /// Keyset pages: every fix once, in order, with inserts between pages (newer fixes do not shift the older
    /// pages of a newest-first walk; an oldest-first walk picks them up at its end); ranges are inclusive.
    @Test func pagesAreStableUnderInserts() throws {
        let store = try HistoryStore(path: try scratchDatabase(), clock: clock)
        defer { store.close() }
        store.record((0..<250).map { fix("tag", Double($0)) })
        store.flush()
        var seen: [Double] = []
        var query = HistoryQuery(target: "tag", limit: 100)
        var pages = 0
        repeat {
            let page = try store.fixes(query)
            seen += page.records.map(\.timestamp)
            pages += 1
            if pages == 1 {
                store.record((250..<260).map { fix("tag", Double($0)) })
                store.flush()
            }
            query.cursor = page.next
        } while query.cursor != nil
        #expect(pages == 3)
        #expect(seen == (0..<250).reversed().map(Double.init))
        var oldest = HistoryQuery(target: "tag", limit: 70, newestFirst: false)
        var forward: [Double] = []
        repeat {
            let page = try store.fixes(oldest)
            forward += page.records.map(\.timestamp)
            oldest.cursor = page.next
        } while oldest.cursor != nil
        #expect(forward == (0..<260).map(Double.init))
        let range = try store.fixes(HistoryQuery(target: "tag", from: 10, to: 20, newestFirst: false))
        #expect(range.records.map(\.timestamp) == (10...20).map(Double.init))
        // Equal times page by row: ten fixes at one instant, three per page.
        store.record((0..<10).map { _ in fix("same", 500) })
        store.flush()
        var tied = HistoryQuery(target: "same", limit: 3)
        var count = 0
        repeat {
            let page = try store.fixes(tied)
            count += page.records.count
            tied.cursor = page.next
        } while tied.cursor != nil
        #expect(count == 10)
        #expect(HistoryCursor("12.5,7") == HistoryCursor(t: 12.5, row: 7))
        #expect(HistoryCursor(HistoryCursor(t: 1795503939.228, row: 42).description)?.t == 1795503939.228)
        #expect(HistoryCursor("x,1") == nil && HistoryCursor("1") == nil && HistoryCursor("nan,1") == nil)
    }

    /// Retention by the injected clock: fixes and room changes older than the retention go, the rest stay.
    @Test func retentionDeletesWhatIsTooOld() throws {
        let clock = ManualClock(start: 1_000_000)
        var settings = HistoryStore.Settings()
        settings.retentionSeconds = 3600
        let store = try HistoryStore(path: try scratchDatabase(), settings: settings, clock: clock)
        defer { store.close() }
        store.record(stride(from: 990_000.0, to: 1_000_000, by: 100).map { fix("tag", $0) })
        store.record(RoomChange(targetID: "tag", from: nil, to: "lab", timestamp: 990_000))
        store.flush()
        store.housekeepNow()
        let kept = try store.fixes(HistoryQuery(target: "tag", limit: 1000, newestFirst: false)).records
        #expect(kept.first?.timestamp == 996_400 && kept.count == 36)
        #expect(store.statistics.expired == 64)
        #expect(try store.roomChanges(HistoryQuery()).records.isEmpty)
    }

    /// The size cap: the oldest fixes go until the pages in use fit, and the file gives the space back.
    @Test func sizeCapKeepsTheNewest() throws {
        let path = try scratchDatabase()
        var settings = HistoryStore.Settings()
        settings.maxBytes = 256 << 10
        let store = try HistoryStore(path: path, settings: settings, clock: ManualClock(start: 20_000))
        defer { store.close() }
        store.record((0..<20_000).map { fix("ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:\($0 % 50)", Double($0)) })
        store.flush()
        store.housekeepNow()
        let stats = store.statistics
        #expect(stats.bytes <= settings.maxBytes && stats.bytes > 0)
        #expect(stats.trimmed > 0)
        let newest = try store.fixes(HistoryQuery(limit: 1)).records.first
        #expect(newest?.timestamp == 19_999, "the newest fixes stay")
        let oldest = try store.fixes(HistoryQuery(limit: 1, newestFirst: false)).records.first
        #expect((oldest?.timestamp ?? 0) >= Double(stats.trimmed) - 1)
        let fileBytes = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        #expect(fileBytes <= Int(settings.maxBytes) + 64 << 10, "free pages go back to the file system")
    }

    /// A closed store's file opens again with everything committed; a file that is not a database, a newer
    /// schema and a folder that cannot be made are errors naming the path.
    @Test func reopensAndRefusesWhatItCannotRead() throws {
        let path = try scratchDatabase()
        let first = try HistoryStore(path: path, clock: clock)
        first.record((0..<100).map { fix("tag", Double($0)) })
        first.close()
        first.record([fix("tag", 100)])
        #expect(first.statistics.dropped == 1, "records after close are counted, not written")
        let second = try HistoryStore(path: path, clock: clock)
        #expect(try second.fixes(HistoryQuery(limit: 1000)).records.count == 100)
        second.close()

        let garbage = try scratchDatabase("garbage.sqlite")
        try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: garbage))
        #expect { try HistoryStore(path: garbage) } throws: { error in
            "\(error)".hasPrefix(garbage + ": ") && "\(error)".contains("not a BlueDot history database")
        }
        let newer = try scratchDatabase("newer.sqlite")
        let db = try SQLiteConnection(filename: newer, path: newer)
        try db.execute("PRAGMA user_version = 7")
        db.close()
        #expect { try HistoryStore(path: newer) } throws: { error in
            "\(error)" == "\(newer): written by a newer BlueDot (history schema 7; this one reads 3)"
        }
        #expect { try HistoryStore(path: "/proc/bluedot/none/history.sqlite") } throws: { error in
            "\(error)".hasPrefix("/proc/bluedot/none/history.sqlite: ")
        }
    }

    /// Many threads record while others read: nothing is lost or duplicated; a full queue drops and counts.
    @Test func concurrentWritersAndReaders() async throws {
        let store = try HistoryStore(path: try scratchDatabase(), clock: clock)
        defer { store.close() }
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    for k in 0..<50 { store.record((0..<10).map { fix("w\(writer)", Double(k * 10 + $0)) }) }
                }
            }
            for _ in 0..<2 {
                group.addTask { for _ in 0..<20 { _ = try? store.fixes(HistoryQuery(limit: 50)) } }
            }
        }
        store.flush()
        let targets = try store.targets()
        #expect(targets.map(\.fixes) == [500, 500, 500, 500])

        var settings = HistoryStore.Settings()
        settings.queueLimit = 10
        settings.commitIntervalSeconds = 30
        let small = try HistoryStore(path: nil, settings: settings, clock: clock)
        small.record((0..<25).map { fix("tag", Double($0)) })
        #expect(small.statistics.dropped == 15)
        small.flush()
        #expect(try small.fixes(HistoryQuery(limit: 100)).records.count == 10)
        small.close()
    }

    /// The recorder, an observer of the source, stores every location and the room changes the source derives
    /// from them, and a forgotten target's leave.
    @Test func recorderStoresFixesAndRoomChanges() throws {
        let store = try HistoryStore(path: nil, clock: clock)
        defer { store.close() }
        let recorder = HistoryRecorder(store: store)
        let source = LocationSource(id: "test", clock: ManualClock(start: 0))
        source.addObserver(recorder)
        source.update([fix("tag", 1, probability: 0.2), fix("tag", 2, room: "lab", probability: 0.9)])
        source.update([fix("tag", 3, room: "hall", probability: 0.8)])
        source.delete(["tag"])
        store.flush()
        #expect(try store.fixes(HistoryQuery()).records.count == 3)
        let changes = try store.roomChanges(HistoryQuery(newestFirst: false)).records
        #expect(changes == [
            RoomChange(targetID: "tag", from: nil, to: "lab", timestamp: 2),
            RoomChange(targetID: "tag", from: "lab", to: "hall", timestamp: 3),
            RoomChange(targetID: "tag", from: "hall", to: nil, timestamp: 3),
        ])
    }

    /// With rooms decided behind the fix, each fix is written once, at the smoothed position a later fix carries
    /// for it and with that later fix's room; what no later fix describes is written as it came: before a
    /// last-known fix, and at the end.
    @Test func recorderKeepsEachFixAtItsSmoothedPosition() throws {
        let store = try HistoryStore(path: nil, clock: clock)
        defer { store.close() }
        let recorder = HistoryRecorder(store: store)
        let source = LocationSource(id: "test", clock: ManualClock(start: 0))
        source.addObserver(recorder)
        // Fix n describes fix n - 3 (the first three describe the first fix, as the engine's smoother does).
        func lagged(_ n: Int, lastKnown: Bool = false) -> Location {
            var f = fix("tag", Double(n), room: "room-\(n)", probability: 0.9)
            f.lastKnown = lastKnown
            let k = Double(max(0, n - 3))
            if !lastKnown { f.smoothed = SmoothedPosition(timestamp: k, x: 100 + k, y: 7, latitude: 10 + k, longitude: 20) }
            return f
        }
        for n in 0...5 { source.update([lagged(n)]) }
        store.flush()
        var rows = try store.fixes(HistoryQuery(newestFirst: false)).records
        #expect(rows.map(\.timestamp) == [0, 1, 2], "fixes 3 to 5 wait for theirs")
        #expect(rows.map(\.x) == [100, 101, 102] && rows.allSatisfy { $0.y == 7 })
        #expect(rows.map(\.latitude) == [10, 11, 12])
        #expect(rows.map(\.room) == ["room-0", "room-4", "room-5"], "the room decided there")
        #expect(rows.allSatisfy { $0.horizontalAccuracyMeters == 1.5 && $0.speedMetersPerSecond == 0.5 })
        source.update([lagged(6), lagged(7, lastKnown: true)])
        store.flush()
        rows = try store.fixes(HistoryQuery(newestFirst: false)).records
        #expect(rows.map(\.timestamp) == [0, 1, 2, 3, 4, 5, 6, 7], "a silence writes what was held as it came")
        #expect(rows[3].x == 103 && rows[4].x == 0.4 && rows[6].x == 0.6)
        source.update([lagged(8), lagged(9)])
        recorder.writeHeld()
        store.flush()
        #expect(try store.fixes(HistoryQuery()).records.count == 10, "and the end, every fix once")
    }
}
