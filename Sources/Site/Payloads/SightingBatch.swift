import BlueDotCore
import Formats
import JSON
import Positioning

/// What one receiver heard in a short while, as it publishes it to `bluedot/<site>/sightings/<receiver>`
/// (`docs/formats.md`, "Sighting batches"), version 1:
///
/// ```json
/// {"v": 1, "receiver": "rx-1", "seq": 42, "clock": 1732400000.125,
///  "sightings": [{"t": 1732400000.031, "id": "ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:7", "rssi": -71,
///                 "txPower": -59}]}
/// ```
/// `clock` is the receiver's clock when it sent the batch, `t` its clock when it heard each report; the solver
/// compares `clock` with its own arrival time to learn the receiver's clock offset. `seq` counts batches from 0
/// since the receiver started, so a solver sees gaps. Sightings are in the order heard.
///
/// In memory each sighting is the spine's one measurement, an `Observation`: the receiver is its anchor, the
/// beacon (`id` on the wire) its target, `t` on the receiver's clock. This type is the one place where that wire
/// form and the observation meet, both ways.
public struct SightingBatch: Sendable, Hashable {
    /// The format version this code writes and reads.
    public static let version = 1
    /// Most sightings in one batch a receiver sends (and a solver accepts).
    public static let maximumSightings = 500

    /// The receiver's id (its anchor id in the venue).
    public var receiver: String
    /// Batch number since the receiver started.
    public var sequence: Int
    /// The receiver's clock when it sent the batch, Unix seconds.
    public var clock: Double
    /// The sightings as observations: anchor the receiver, target the beacon, `t` on the receiver's clock.
    public private(set) var sightings: [Observation]

    /// Creates a batch of what `receiver` heard (each observation's anchor becomes the receiver).
    public init(receiver: String, sequence: Int, clock: Double, sightings: [Observation]) {
        self.receiver = receiver
        self.sequence = sequence
        self.clock = clock
        self.sightings = sightings
        for i in self.sightings.indices where self.sightings[i].anchor != receiver {
            self.sightings[i].anchor = receiver
        }
    }

    /// The batch as compact JSON bytes. Times to the millisecond, RSSI and TX power as integers when whole.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + sightings.count * 90)
        JSONText.append(to: &out, estimatedBytes: 64 + receiver.utf8.count + sightings.count * 96) { w in
            w.literal(#"{"v":1,"receiver":"#)
            w.quoted(receiver)
            w.literal(#","seq":"#)
            w.integer(sequence)
            w.literal(#","clock":"#)
            w.fixed(clock, decimals: 3)
            w.literal(#","sightings":["#)
            for (i, s) in sightings.enumerated() {
                if i > 0 { w.byte(UInt8(ascii: ",")) }
                w.literal(#"{"t":"#)
                w.fixed(s.t, decimals: 3)
                w.literal(#","id":"#)
                w.quoted(s.target)
                w.literal(#","rssi":"#)
                w.compact(s.rssiDBm)
                if let tx = s.txPowerDBm {
                    w.literal(#","txPower":"#)
                    w.compact(tx)
                }
                w.byte(UInt8(ascii: "}"))
            }
            w.literal("]}")
        }
        return out
    }

    /// Reads a batch; `maximumBytes` bounds what is parsed at all. Errors name the field
    /// (`sightings[3].rssi: expected a number`); unknown keys are skipped, a newer version is refused.
    public static func decode(_ bytes: [UInt8], maximumBytes: Int = 256 * 1024) throws(SightingBatchError)
        -> SightingBatch
    {
        var none = StringTable(slotCount: 0)
        return try decode(bytes, maximumBytes: maximumBytes, table: &none)
    }

    /// Reads a batch like `decode(_:maximumBytes:)`, taking the receiver and the beacon ids from `table` (a solver
    /// reads the same ids in every batch).
    public static func decode(_ bytes: [UInt8], maximumBytes: Int = 256 * 1024, table: inout StringTable)
        throws(SightingBatchError) -> SightingBatch
    {
        guard bytes.count <= maximumBytes else { throw .tooLarge(bytes.count, maximum: maximumBytes) }
        do {
            return try bytes.withUnsafeBufferPointer { buffer throws(JSONSyntaxError) in try parse(buffer, &table) }
        } catch {
            throw .malformed(error.located)
        }
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>, _ table: inout StringTable)
        throws(JSONSyntaxError) -> SightingBatch
    {
        var s = JSONScanner(bytes)
        try s.beginObject()
        var version: Double?, receiver: String?, sequence: Double?, clock: Double?, sightings: [Observation]?
        var first = true
        while let key = try s.nextKeyBytes(first: &first) {
            switch key {
            case "v": version = try s.number("v")
            case "receiver": receiver = try s.string("receiver", interning: &table)
            case "seq": sequence = try s.number("seq")
            case "clock": clock = try s.number("clock")
            case "sightings": sightings = try parseSightings(&s, &table)
            default: try s.skipValue()
            }
        }
        guard s.atEnd() else { throw s.error("unexpected text after the object") }
        guard let version else { throw JSONSyntaxError(offset: nil, message: "v: missing") }
        guard version == Double(Self.version) else {
            throw JSONSyntaxError(offset: nil, message: "v: version \(JSONText.shortest(version)) is not 1")
        }
        guard let receiver, !receiver.isEmpty else { throw JSONSyntaxError(offset: nil, message: "receiver: missing") }
        guard let clock, clock.isFinite else { throw JSONSyntaxError(offset: nil, message: "clock: missing") }
        guard var sightings else { throw JSONSyntaxError(offset: nil, message: "sightings: missing") }
        // The receiver may come after the sightings in the object: each sighting gets it once all is read.
        for i in sightings.indices { sightings[i].anchor = receiver }
        let seq = sequence.flatMap { $0.isFinite && $0 >= 0 && $0 < 9e15 ? Int($0) : nil } ?? 0
        return SightingBatch(receiver: receiver, sequence: seq, clock: clock, sightings: sightings)
    }

    private static func parseSightings(_ s: inout JSONScanner, _ table: inout StringTable) throws(JSONSyntaxError)
        -> [Observation]
    {
        try s.beginArray("sightings")
        var out: [Observation] = []
        out.reserveCapacity(64)
        var first = true
        while try s.nextElement(first: &first) {
            let i = out.count
            guard i < maximumSightings else { throw s.error("sightings: more than \(maximumSightings)") }
            try s.beginObject("sightings[\(i)]")
            var t: Double?, id: String?, rssi: Double?, tx: Double?
            var firstKey = true
            while let key = try s.nextKeyBytes(first: &firstKey) {
                switch key {
                case "t": t = try s.number("sightings[\(i)].t")
                case "id": id = try s.string("sightings[\(i)].id", interning: &table)
                case "rssi": rssi = try s.number("sightings[\(i)].rssi")
                case "txPower": tx = s.null() ? nil : try s.number("sightings[\(i)].txPower")
                default: try s.skipValue()
                }
            }
            guard let t, t.isFinite else { throw JSONSyntaxError(offset: nil, message: "sightings[\(i)].t: missing") }
            guard let id, !id.isEmpty else {
                throw JSONSyntaxError(offset: nil, message: "sightings[\(i)].id: missing")
            }
            guard let rssi, rssi.isFinite else {
                throw JSONSyntaxError(offset: nil, message: "sightings[\(i)].rssi: missing")
            }
            out.append(Observation(t: t, anchor: "", target: id, rssiDBm: rssi,
                                   txPowerDBm: tx.flatMap { $0.isFinite ? $0 : nil }))
        }
        return out
    }
}

/// Why a sighting batch was refused.
public enum SightingBatchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Larger than the limit: its size and the limit, bytes.
    case tooLarge(Int, maximum: Int)
    /// Not a version-1 batch: what is wrong, with the field and column.
    case malformed(String)

    /// A short name of the kind, for counting and logging once per kind.
    public var kind: String {
        switch self {
        case .tooLarge: "oversized"
        case .malformed: "malformed"
        }
    }

    public var description: String {
        switch self {
        case .tooLarge(let n, let maximum): "sighting batch of \(n) bytes is larger than \(maximum)"
        case .malformed(let why): "sighting batch: \(why)"
        }
    }
}
