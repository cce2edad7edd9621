import BeaconLocation
import BlueDotCore
import LocationBus

/// Where a page of a history query ends: the time and row of its last record. Its text form (`t,row`) is what
/// clients pass back to get the next page; rows inserted meanwhile never shift a page (keyset paging).
public struct HistoryCursor: Sendable, Hashable, CustomStringConvertible {
    /// The last record's time.
    public var t: Double
    /// The last record's row id.
    public var row: Int64

    /// Creates a cursor.
    public init(t: Double, row: Int64) {
        self.t = t
        self.row = row
    }

    /// Reads a cursor's text form; nil when it is not one.
    public init?(_ text: String) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let t = Double(parts[0]), t.isFinite, let row = Int64(parts[1]) else { return nil }
        self.init(t: t, row: row)
    }

    public var description: String { "\(t),\(row)" }
}

/// What to read from the history: one target or all, a time range, a page size, where the previous page ended, and
/// the order.
public struct HistoryQuery: Sendable, Hashable {
    /// One target, or nil for every target.
    public var target: String?
    /// Earliest time, inclusive.
    public var from: Double?
    /// Latest time, inclusive.
    public var to: Double?
    /// Records per page.
    public var limit: Int
    /// Where the previous page ended.
    public var cursor: HistoryCursor?
    /// Newest first (the default), or oldest first.
    public var newestFirst: Bool

    /// Creates a query.
    public init(target: String? = nil, from: Double? = nil, to: Double? = nil, limit: Int = 1000,
                cursor: HistoryCursor? = nil, newestFirst: Bool = true) {
        self.target = target
        self.from = from
        self.to = to
        self.limit = limit
        self.cursor = cursor
        self.newestFirst = newestFirst
    }
}

/// One page of a query's records and the cursor of the next page (nil on the last).
public struct HistoryPage<Record: Sendable>: Sendable {
    /// The records, in the query's order.
    public var records: [Record]
    /// Pass it back (`HistoryQuery.cursor`) for the next page; nil when there is none.
    public var next: HistoryCursor?
}

/// A target the history knows: how many fixes and over what time.
public struct HistoryTarget: Sendable, Hashable {
    /// The target's id.
    public var id: String
    /// Its fixes in the history.
    public var fixes: Int
    /// Time of its first and last fix.
    public var first: Double, last: Double
}

extension HistoryStore {
    /// A page of fixes.
    public func fixes(_ query: HistoryQuery) throws(HistoryError) -> HistoryPage<Location> {
        try page(query, table: "fixes", columns: """
            r.x, r.y, r.z, r.floor, r.accuracy, r.vertical_accuracy, r.speed, r.course, r.last_known, r.anchors,
            r.lat, r.lon, r.room, r.room_probability, r.presence, r.silent_for, r.site
            """) { s, target, t in
            Location(timestamp: t, targetID: target, x: s.double(3) ?? 0, y: s.double(4) ?? 0, z: s.double(5),
                floor: s.int64(6).map { Int($0) }, horizontalAccuracyMeters: s.double(7) ?? 0,
                verticalAccuracyMeters: s.double(8), speedMetersPerSecond: s.double(9), courseDegrees: s.double(10),
                lastKnown: s.int64(11) == 1, anchorCount: s.int64(12).map { Int($0) } ?? 0, latitude: s.double(13),
                longitude: s.double(14), room: s.string(15), roomProbability: s.double(16),
                presence: s.string(17).flatMap(Presence.init(rawValue:)), silentForSeconds: s.double(18),
                site: s.string(19))
        }
    }

    /// A page of room changes.
    public func roomChanges(_ query: HistoryQuery) throws(HistoryError) -> HistoryPage<RoomChange> {
        try page(query, table: "room_changes", columns: "r.from_room, r.to_room") { s, target, t in
            RoomChange(targetID: target, from: s.string(3), to: s.string(4), timestamp: t)
        }
    }

    /// Every target with fixes, by id.
    public func targets() throws(HistoryError) -> [HistoryTarget] {
        try read { (db) throws(HistoryError) -> [HistoryTarget] in
            let s = try db.prepare("""
                SELECT n.name, count(*), min(r.t), max(r.t) FROM fixes r JOIN targets n ON n.id = r.target
                GROUP BY r.target ORDER BY n.name
                """)
            var result: [HistoryTarget] = []
            while try s.step() {
                result.append(HistoryTarget(id: s.string(0) ?? "", fixes: Int(s.int64(1) ?? 0), first: s.double(2) ?? 0,
                                            last: s.double(3) ?? 0))
            }
            return result
        }
    }

    /// Runs `body` on the queries' connection, under its lock.
    private func read<T>(_ body: (SQLiteConnection) throws(HistoryError) -> T) throws(HistoryError) -> T {
        try reader.withLock { db in Result { () throws(HistoryError) -> T in try body(db) } }.get()
    }

    /// Keyset paging over `table` (by time, then row), the record made by `make` from columns 3... of a row whose
    /// first three are the row id, the target's name and the time.
    private func page<Record: Sendable>(
        _ q: HistoryQuery, table: String, columns: String,
        make: (SQLiteStatement, String, Double) -> Record
    ) throws(HistoryError) -> HistoryPage<Record> {
        let limit = max(1, min(q.limit, 100_000))
        let (less, order) = q.newestFirst ? ("<", "DESC") : (">", "ASC")
        var conditions = ["r.t >= ?2", "r.t <= ?3"]
        if q.target != nil { conditions.append("n.name = ?1") }
        if q.cursor != nil { conditions.append("(r.t \(less) ?4 OR (r.t = ?4 AND r.id \(less) ?5))") }
        let sql = """
            SELECT r.id, n.name, r.t, \(columns) FROM \(table) r JOIN targets n ON n.id = r.target
            WHERE \(conditions.joined(separator: " AND ")) ORDER BY r.t \(order), r.id \(order) LIMIT ?6
            """
        return try read { (db) throws(HistoryError) -> HistoryPage<Record> in
            let s = try db.prepare(sql)
            s.bind(1, q.target)
            s.bind(2, q.from ?? -Double.greatestFiniteMagnitude)
            s.bind(3, q.to ?? Double.greatestFiniteMagnitude)
            s.bind(4, q.cursor?.t)
            s.bind(5, q.cursor?.row)
            s.bind(6, Int64(limit + 1))
            var records: [Record] = []
            var last: HistoryCursor?
            var more = false
            while try s.step() {
                guard records.count < limit else {
                    more = true
                    break
                }
                let t = s.double(2) ?? 0
                records.append(make(s, s.string(1) ?? "", t))
                last = HistoryCursor(t: t, row: s.int64(0) ?? 0)
            }
            return HistoryPage(records: records, next: more ? last : nil)
        }
    }
}
