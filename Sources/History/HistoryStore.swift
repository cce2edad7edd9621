import BeaconLocation
import BlueDotCore
import CSQLite
import FoundationEssentials
import LocationBus
import Logging

/// Every fix and room change in an SQLite database: written in batches on a thread of its own, read by queries
/// (`HistoryStore+Queries.swift`), trimmed by age and size.
///
/// `record` only appends to a queue under a lock and never blocks on the disk: the writer thread commits what has
/// queued every `commitIntervalSeconds` (250 ms) in one transaction. A file database is in WAL mode with
/// `synchronous = NORMAL`: a committed transaction survives the process being killed (`kill -9`), so a crash loses
/// at most the last quarter second or so that was still queued; only a power cut can also lose the last commits
/// before a checkpoint. A full queue drops new records and counts them (`Statistics.dropped`). Every
/// `housekeepingIntervalSeconds` the writer deletes fixes and room changes older than the retention (by the fixes'
/// time against the injected clock), then the oldest fixes until the database is under its size cap, and gives the
/// freed pages back to the file system (incremental vacuum).
///
/// Queries use a connection of their own (WAL: readers do not wait for the writer). An in-memory store (`path` nil)
/// is a shared-cache memory database that both connections open; it is gone when the store closes. The writer
/// thread holds the store until `close()`, which its owner calls.
public final class HistoryStore: @unchecked Sendable {
    // @unchecked: the lets are Sendable or only touched by the writer thread (`writer`, the statements); the queue
    // and counters are guarded by `condition`; the reader by its lock.

    /// How the store keeps its data.
    public struct Settings: Sendable, Hashable {
        /// Records older than this (fix time against the clock) are deleted, seconds.
        public var retentionSeconds: Double = 30 * 86_400
        /// The database's size cap, bytes (pages in use, indexes included).
        public var maxBytes: Int64 = 1 << 30
        /// How often the writer commits what has queued, seconds.
        public var commitIntervalSeconds: Double = 0.25
        /// Records queued at most; more are dropped and counted.
        public var queueLimit = 200_000
        /// How often retention and the size cap run, seconds.
        public var housekeepingIntervalSeconds: Double = 300

        /// The defaults: 30 days, 1 GiB, commits every 250 ms.
        public init() {}
    }

    /// Counters since the store opened.
    public struct Statistics: Sendable, Hashable {
        /// Fixes committed.
        public var fixesWritten: Int64 = 0
        /// Room changes committed.
        public var roomChangesWritten: Int64 = 0
        /// Records dropped: the queue was full, or a commit failed.
        public var dropped: Int64 = 0
        /// Transactions committed.
        public var commits: Int64 = 0
        /// How long the last commit took, seconds.
        public var lastCommitSeconds: Double = 0
        /// Fixes deleted by the retention.
        public var expired: Int64 = 0
        /// Fixes deleted to keep under the size cap.
        public var trimmed: Int64 = 0
        /// Bytes in use at the last housekeeping.
        public var bytes: Int64 = 0
    }

    enum Record {
        case fix(Location)
        case change(RoomChange)
    }

    /// The database file, or `:memory:`.
    public let path: String
    /// The settings.
    public let settings: Settings
    private let clock: any BlueDotClock
    private let logger: Logger
    private let condition = ThreadCondition()
    // Guarded by `condition`.
    private var queue: [Record] = []
    private var counters = Statistics()
    private var flushRequested: UInt64 = 0
    private var flushed: UInt64 = 0
    private var closing = false
    private var finished = false
    // The writer thread's own.
    private let writer: SQLiteConnection
    private var targetIDs: [String: Int64] = [:]
    private var lastHousekeeping = -Double.infinity
    /// The queries' connection.
    let reader: LockedValue<SQLiteConnection>

    /// The schema version this build writes (`PRAGMA user_version`).
    public static let schemaVersion: Int64 = 3

    /// Opens (or creates) the database at `path` (nil: in memory) and starts the writer thread; throws naming the
    /// file when it cannot be opened, is not a database, or was written by a newer schema.
    public init(path: String?, settings: Settings = Settings(), clock: any BlueDotClock = SystemClock(),
                logger: Logger = Logger(label: "bluedot.history")) throws(HistoryError) {
        let name = path ?? ":memory:"
        self.path = name
        self.settings = settings
        self.clock = clock
        self.logger = logger
        let filename: String
        if let path {
            let folder = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? ""
            if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
                do {
                    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                } catch {
                    throw HistoryError(path: name, message: "cannot create the folder \(folder): \(error)")
                }
            }
            filename = "file:" + Self.uriPath(path)
        } else {
            filename = "file:bluedot-history-\(UUID().uuidString)?mode=memory&cache=shared"
        }
        writer = try SQLiteConnection(filename: filename, path: name)
        try Self.prepareSchema(writer, inMemory: path == nil)
        let reader = try SQLiteConnection(filename: filename, path: name)
        if path == nil { try reader.execute("PRAGMA read_uncommitted = 1") }
        self.reader = LockedValue(reader)
        SystemThread.detach(name: "bluedot-history") { [self] in runWriter() }
    }

    /// `path` as the path of an SQLite URI filename: every byte but letters, digits, `-._~/` percent-encoded, so
    /// that `?`, `#` and `%` in a folder's name stay part of it.
    static func uriPath(_ path: String) -> String {
        let hex = Array("0123456789ABCDEF".unicodeScalars)
        var out = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(hex[Int(byte >> 4)])
                out.unicodeScalars.append(hex[Int(byte & 15)])
            }
        }
        return out
    }

    deinit { close() }

    /// Creates the tables, or checks the version of existing ones.
    private static func prepareSchema(_ db: SQLiteConnection, inMemory: Bool) throws(HistoryError) {
        do {
            // Only a new file takes auto_vacuum; WAL keeps readers off the writer's back.
            try db.execute("PRAGMA auto_vacuum = INCREMENTAL")
            if !inMemory {
                try db.execute("PRAGMA journal_mode = WAL")
                // The writer appends: a commit touches the newest pages of the fixes and each target's place in
                // the index. A 1 MiB page cache holds those for a site of hundreds of targets (SQLite's default is
                // 2 MiB); older pages come back from the operating system's cache. A memory database keeps every
                // page in its cache whatever the size.
                try db.execute("PRAGMA cache_size = -1024")
            }
            try db.execute("PRAGMA synchronous = NORMAL")
        } catch {
            throw HistoryError(path: db.path, message: "not a BlueDot history database: \(error.message)")
        }
        let version = try db.integer("PRAGMA user_version")
        guard version <= schemaVersion else {
            throw HistoryError(path: db.path, message: """
                written by a newer BlueDot (history schema \(version); this one reads \(schemaVersion))
                """)
        }
        guard version < schemaVersion else { return }
        if version == 1 || version == 2 {
            // Schema 1 (before presence) gains presence and silent_for, and schemas 1 and 2 (before views of many
            // sites) the site, all empty for the rows already there.
            let presence = version == 1 ? "ALTER TABLE fixes ADD COLUMN presence TEXT; ALTER TABLE fixes ADD COLUMN silent_for REAL;" : ""
            try db.execute("""
                BEGIN;
                \(presence)
                ALTER TABLE fixes ADD COLUMN site TEXT;
                PRAGMA user_version = \(schemaVersion);
                COMMIT;
                """)
            return
        }
        try db.execute("""
            BEGIN;
            CREATE TABLE targets (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
            CREATE TABLE fixes (
                id INTEGER PRIMARY KEY, target INTEGER NOT NULL REFERENCES targets(id), t REAL NOT NULL,
                x REAL NOT NULL, y REAL NOT NULL, z REAL, floor INTEGER, accuracy REAL NOT NULL,
                vertical_accuracy REAL, speed REAL, course REAL, last_known INTEGER NOT NULL, anchors INTEGER,
                lat REAL, lon REAL, room TEXT, room_probability REAL, presence TEXT, silent_for REAL, site TEXT);
            CREATE INDEX fixes_by_target ON fixes(target, t);
            CREATE INDEX fixes_by_time ON fixes(t);
            CREATE TABLE room_changes (
                id INTEGER PRIMARY KEY, target INTEGER NOT NULL REFERENCES targets(id), t REAL NOT NULL,
                from_room TEXT, to_room TEXT);
            CREATE INDEX room_changes_by_target ON room_changes(target, t);
            CREATE INDEX room_changes_by_time ON room_changes(t);
            PRAGMA user_version = \(schemaVersion);
            COMMIT;
            """)
    }

    // MARK: Recording (any thread; never waits for the disk)

    /// Queues locations to be written.
    public func record(_ locations: [Location]) {
        enqueue(locations.map(Record.fix))
    }

    /// Queues a room change to be written.
    public func record(_ change: RoomChange) {
        enqueue([.change(change)])
    }

    private func enqueue(_ records: [Record]) {
        guard !records.isEmpty else { return }
        condition.lock()
        defer { condition.unlock() }
        guard !closing else {
            counters.dropped += Int64(records.count)
            return
        }
        let room = max(0, settings.queueLimit - queue.count)
        queue.append(contentsOf: records.prefix(room))
        counters.dropped += Int64(max(0, records.count - room))
    }

    /// Waits until everything queued before the call is committed (or the store closed).
    public func flush() {
        condition.lock()
        defer { condition.unlock() }
        flushRequested += 1
        let ticket = flushRequested
        condition.broadcast()
        while flushed < ticket && !finished { condition.wait() }
    }

    /// Commits what is queued, stops the writer and closes the database; later records are dropped and counted.
    public func close() {
        condition.lock()
        closing = true
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
        reader.withLock { $0.close() }
    }

    /// The counters.
    public var statistics: Statistics {
        condition.lock()
        defer { condition.unlock() }
        return counters
    }

    /// Runs retention and the size cap now (on the writer thread), then waits for it.
    public func housekeepNow() {
        condition.lock()
        lastHousekeeping = -Double.infinity
        condition.unlock()
        flush()
    }

    // MARK: The writer thread

    private func runWriter() {
        var housekeepingDue = true
        while true {
            condition.lock()
            let deadline = Date(timeIntervalSinceNow: settings.commitIntervalSeconds)
            while !closing && flushRequested == flushed && Date() < deadline {
                condition.wait(untilSecondsSince1970: deadline.timeIntervalSince1970)
            }
            let batch = queue
            queue.removeAll(keepingCapacity: true)
            let ticket = flushRequested
            let stop = closing
            let last = lastHousekeeping
            condition.unlock()

            if !batch.isEmpty { commit(batch) }
            let now = ProcessInfo.processInfo.systemUptime
            if housekeepingDue || now - last >= settings.housekeepingIntervalSeconds {
                housekeep()
                condition.lock()
                lastHousekeeping = now
                condition.unlock()
                housekeepingDue = false
            }

            condition.lock()
            flushed = ticket
            if stop {
                finished = true
                condition.broadcast()
                condition.unlock()
                break
            }
            condition.broadcast()
            condition.unlock()
        }
        writer.close()
    }

    private func commit(_ batch: [Record]) {
        let started = ProcessInfo.processInfo.systemUptime
        var fixes: Int64 = 0, changes: Int64 = 0
        do {
            try writer.execute("BEGIN")
            let insertFix = try writer.prepare("""
                INSERT INTO fixes (target, t, x, y, z, floor, accuracy, vertical_accuracy, speed, course, last_known,
                                   anchors, lat, lon, room, room_probability, presence, silent_for, site)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)
                """)
            let insertChange = try writer.prepare(
                "INSERT INTO room_changes (target, t, from_room, to_room) VALUES (?1, ?2, ?3, ?4)")
            for record in batch {
                switch record {
                case .fix(let l):
                    insertFix.bind(1, try targetID(l.targetID))
                    insertFix.bind(2, l.timestamp)
                    insertFix.bind(3, l.x)
                    insertFix.bind(4, l.y)
                    insertFix.bind(5, l.z)
                    insertFix.bind(6, l.floor.map(Int64.init))
                    insertFix.bind(7, l.horizontalAccuracyMeters)
                    insertFix.bind(8, l.verticalAccuracyMeters)
                    insertFix.bind(9, l.speedMetersPerSecond)
                    insertFix.bind(10, l.courseDegrees)
                    insertFix.bind(11, Int64(l.lastKnown ? 1 : 0))
                    insertFix.bind(12, Int64(l.anchorCount))
                    insertFix.bind(13, l.latitude)
                    insertFix.bind(14, l.longitude)
                    insertFix.bind(15, l.room)
                    insertFix.bind(16, l.roomProbability)
                    insertFix.bind(17, l.presence?.rawValue)
                    insertFix.bind(18, l.silentForSeconds)
                    insertFix.bind(19, l.site)
                    try insertFix.run()
                    fixes += 1
                case .change(let c):
                    insertChange.bind(1, try targetID(c.targetID))
                    insertChange.bind(2, c.timestamp)
                    insertChange.bind(3, c.from)
                    insertChange.bind(4, c.to)
                    try insertChange.run()
                    changes += 1
                }
            }
            try writer.execute("COMMIT")
        } catch {
            try? writer.execute("ROLLBACK")
            targetIDs.removeAll()  // ids made in the rolled-back transaction are gone
            logger.error("history: a commit failed; its records are dropped", metadata: [
                "error": "\(error)", "records": "\(batch.count)",
            ])
            condition.lock()
            counters.dropped += Int64(batch.count)
            condition.unlock()
            return
        }
        let seconds = ProcessInfo.processInfo.systemUptime - started
        condition.lock()
        counters.fixesWritten += fixes
        counters.roomChangesWritten += changes
        counters.commits += 1
        counters.lastCommitSeconds = seconds
        condition.unlock()
    }

    /// The row id of a target's name, made on first use.
    private func targetID(_ name: String) throws(HistoryError) -> Int64 {
        if let id = targetIDs[name] { return id }
        let insert = try writer.prepare("INSERT OR IGNORE INTO targets (name) VALUES (?1)")
        insert.bind(1, name)
        try insert.run()
        let select = try writer.prepare("SELECT id FROM targets WHERE name = ?1")
        select.bind(1, name)
        guard try select.step(), let id = select.int64(0) else {
            throw HistoryError(path: path, message: "target \(name) has no row after its insert")
        }
        targetIDs[name] = id
        return id
    }

    /// Retention, then the size cap, then the free pages back to the file system.
    private func housekeep() {
        do {
            let cutoff = clock.now() - settings.retentionSeconds
            let expire = try writer.prepare("DELETE FROM fixes WHERE t < ?1")
            expire.bind(1, cutoff)
            try expire.run()
            let expired = Int64(sqlite3_changes(writer.handle))
            let expireChanges = try writer.prepare("DELETE FROM room_changes WHERE t < ?1")
            expireChanges.bind(1, cutoff)
            try expireChanges.run()
            var trimmed: Int64 = 0
            var bytes = try usedBytes()
            while bytes > settings.maxBytes {
                // The oldest twentieth of the fixes (at least 1,000) at a time, and their room changes' era.
                let count = try writer.integer("SELECT count(*) FROM fixes")
                guard count > 0 else { break }
                let step = max(1000, count / 20)
                let oldest = try writer.prepare("SELECT t FROM fixes ORDER BY t LIMIT 1 OFFSET ?1")
                oldest.bind(1, min(step, count) - 1)
                guard try oldest.step(), let until = oldest.double(0) else { break }
                let trim = try writer.prepare("DELETE FROM fixes WHERE t <= ?1")
                trim.bind(1, until)
                try trim.run()
                trimmed += Int64(sqlite3_changes(writer.handle))
                let trimChanges = try writer.prepare("DELETE FROM room_changes WHERE t <= ?1")
                trimChanges.bind(1, until)
                try trimChanges.run()
                try writer.execute("PRAGMA incremental_vacuum")
                bytes = try usedBytes()
            }
            try writer.execute("PRAGMA incremental_vacuum")
            // Move the WAL into the file and truncate both, so that the freed space really goes back.
            if path != ":memory:" { try writer.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
            condition.lock()
            counters.expired += expired
            counters.trimmed += trimmed
            counters.bytes = bytes
            condition.unlock()
            if trimmed > 0 {
                logger.notice("history: the oldest fixes were deleted to keep under the size cap", metadata: [
                    "deleted": "\(trimmed)", "maxBytes": "\(settings.maxBytes)",
                ])
            }
        } catch {
            logger.error("history: housekeeping failed", metadata: ["error": "\(error)"])
        }
    }

    /// Pages in use (not on the free list) times the page size.
    private func usedBytes() throws(HistoryError) -> Int64 {
        let pages = try writer.integer("PRAGMA page_count") - writer.integer("PRAGMA freelist_count")
        return pages * (try writer.integer("PRAGMA page_size"))
    }
}
