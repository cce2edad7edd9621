import BlueDotCore
import Formats
import LocationDisplay
import Positioning

/// A feed event with its number: what `LocationHub.subscribe()` yields. The number orders events across
/// subscribers and becomes the SSE `id`.
public struct FeedMessage: Sendable, Hashable {
    /// The event's number, from 1, in the order the hub sent events.
    public var id: UInt64
    /// The event.
    public var event: FeedEvent

    /// Creates a message.
    public init(id: UInt64, event: FeedEvent) {
        self.id = id
        self.event = event
    }

    /// The complete SSE frame (`GET /api/feed`).
    public var frame: String { event.frame(id: id) }

    /// The SSE frame as UTF-8.
    public var frameBytes: [UInt8] { event.frameBytes(id: id) }
}

/// One event of the push feed (`GET /api/feed`, server-sent events).
///
/// `fix`: a target's new fix (location format of `docs/formats.md`) with its drawing state (the display engine's:
/// `DotDrawing`) and the time of the newest advertising report behind it; `display`: a target's drawing state
/// changed without a new fix (it went stale); `removed`: a target was not heard for the removal timeout;
/// `status`: the location source's status changed.
public enum FeedEvent: Sendable, Hashable {
    /// A new fix.
    case fix(LocationFix, DotDrawing, reportedAt: Double?)
    /// The drawing state of an existing fix changed.
    case display(target: String, DotDrawing)
    /// A target is gone.
    case removed(target: String)
    /// A target entered a room, at fix time `t`.
    case enter(target: String, room: String, t: Double)
    /// A target left a room, at fix time `t`.
    case leave(target: String, room: String, t: Double)
    /// The location source's status changed.
    case status(LocationSourceStatus)

    /// The SSE event name.
    public var name: String {
        switch self {
        case .fix: "fix"
        case .display: "display"
        case .removed: "removed"
        case .enter: "enter"
        case .leave: "leave"
        case .status: "status"
        }
    }

    /// The event's JSON object (one line).
    public var json: String {
        var out: [UInt8] = []
        out.reserveCapacity(384)
        appendJSON(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the event's JSON object as UTF-8.
    public func appendJSON(to out: inout [UInt8]) {
        switch self {
        case .fix(let fix, let drawing, let reportedAt):
            JSONText.append("{\"fix\":", to: &out)
            LocationWriter.append(fix, to: &out)
            JSONText.append(",\"display\":", to: &out)
            Self.append(drawing, to: &out)
            if let reportedAt {
                JSONText.append(",\"reportedAt\":", to: &out)
                Self.appendNumber(reportedAt, decimals: 6, to: &out)
            }
        case .display(let target, let drawing):
            JSONText.append("{\"target\":", to: &out)
            JSONText.appendQuoted(target, to: &out)
            JSONText.append(",\"display\":", to: &out)
            Self.append(drawing, to: &out)
        case .removed(let target):
            JSONText.append("{\"target\":", to: &out)
            JSONText.appendQuoted(target, to: &out)
        case .enter(let target, let room, let t), .leave(let target, let room, let t):
            JSONText.append("{\"target\":", to: &out)
            JSONText.appendQuoted(target, to: &out)
            JSONText.append(",\"room\":", to: &out)
            JSONText.appendQuoted(room, to: &out)
            JSONText.append(",\"t\":", to: &out)
            Self.appendNumber(t, decimals: 3, to: &out)
        case .status(let status):
            JSONText.append("{\"status\":", to: &out)
            JSONText.appendQuoted(status.description, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// The complete SSE frame: `id`, `event` and `data` lines and the blank line ending it.
    public func frame(id: UInt64) -> String {
        String(decoding: frameBytes(id: id), as: UTF8.self)
    }

    /// The SSE frame as UTF-8, what the feed's connections write.
    public func frameBytes(id: UInt64) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(448)
        JSONText.append("id: ", to: &out)
        JSONText.appendInteger(Int(truncatingIfNeeded: id), to: &out)
        JSONText.append("\nevent: ", to: &out)
        out.append(contentsOf: name.utf8)
        JSONText.append("\ndata: ", to: &out)
        appendJSON(to: &out)
        JSONText.append("\n\n", to: &out)
        return out
    }

    /// A drawing state as a JSON object.
    static func json(_ d: DotDrawing) -> String {
        var out: [UInt8] = []
        append(d, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends a drawing state as a JSON object.
    static func append(_ d: DotDrawing, to out: inout [UInt8]) {
        JSONText.append("{\"symbol\":", to: &out)
        JSONText.appendQuoted(d.symbol, to: &out)
        JSONText.append(",\"accuracy\":", to: &out)
        appendNumber(d.accuracyMeters, decimals: 2, to: &out)
        if let rotation = d.rotationDegrees {
            JSONText.append(",\"rotation\":", to: &out)
            appendNumber(rotation, decimals: 1, to: &out)
        }
        JSONText.append(",\"navigationRotation\":", to: &out)
        appendNumber(d.navigationRotationDegrees, decimals: 1, to: &out)
        JSONText.append(d.ping ? ",\"ping\":true" : ",\"ping\":false", to: &out)
        JSONText.append(",\"pingSequence\":", to: &out)
        JSONText.appendInteger(d.pingSequence, to: &out)
        out.append(UInt8(ascii: "}"))
    }

    /// A finite number with at most `decimals` decimals, trailing zeros dropped.
    static func number(_ x: Double, decimals: Int) -> String {
        var out: [UInt8] = []
        appendNumber(x, decimals: decimals, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `number(x, decimals:)`: `JSONText`'s fixed form without its trailing zeros (and point).
    static func appendNumber(_ x: Double, decimals: Int, to out: inout [UInt8]) {
        let start = out.count
        JSONText.appendFixed(x, decimals: decimals, to: &out)
        guard decimals > 0, x.isFinite, out[start...].contains(UInt8(ascii: ".")) else { return }
        while out.last == UInt8(ascii: "0") { out.removeLast() }
        if out.last == UInt8(ascii: ".") { out.removeLast() }
    }
}

extension FeedEvent {
    /// The feed's events for a room change: leaving the old room, then entering the new one.
    static func events(for change: RoomChange) -> [FeedEvent] {
        var events: [FeedEvent] = []
        if let from = change.from { events.append(.leave(target: change.targetID, room: from, t: change.timestamp)) }
        if let to = change.to { events.append(.enter(target: change.targetID, room: to, t: change.timestamp)) }
        return events
    }
}
