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
        switch self {
        case .fix(let fix, let drawing, let reportedAt):
            var text = "{\"fix\":\(LocationWriter.line(fix)),\"display\":\(Self.json(drawing))"
            if let reportedAt { text += ",\"reportedAt\":\(Self.number(reportedAt, decimals: 6))" }
            return text + "}"
        case .display(let target, let drawing):
            return "{\"target\":\(JSONText.quoted(target)),\"display\":\(Self.json(drawing))}"
        case .removed(let target):
            return "{\"target\":\(JSONText.quoted(target))}"
        case .enter(let target, let room, let t), .leave(let target, let room, let t):
            return "{\"target\":\(JSONText.quoted(target)),\"room\":\(JSONText.quoted(room)),\"t\":\(Self.number(t, decimals: 3))}"
        case .status(let status):
            return "{\"status\":\(JSONText.quoted(status.description))}"
        }
    }

    /// The complete SSE frame: `id`, `event` and `data` lines and the blank line ending it.
    public func frame(id: UInt64) -> String {
        "id: \(id)\nevent: \(name)\ndata: \(json)\n\n"
    }

    /// A drawing state as a JSON object.
    static func json(_ d: DotDrawing) -> String {
        var text = "{\"symbol\":\"\(d.symbol)\",\"accuracy\":\(number(d.accuracyMeters, decimals: 2))"
        if let rotation = d.rotationDegrees { text += ",\"rotation\":\(number(rotation, decimals: 1))" }
        text += ",\"navigationRotation\":\(number(d.navigationRotationDegrees, decimals: 1))"
        return text + ",\"ping\":\(d.ping),\"pingSequence\":\(d.pingSequence)}"
    }

    /// A finite number with at most `decimals` decimals, trailing zeros dropped.
    static func number(_ x: Double, decimals: Int) -> String {
        guard x.isFinite else { return "null" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let rounded = (x * scale).rounded() / scale
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int64(rounded)) }
        return "\(rounded)"
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
