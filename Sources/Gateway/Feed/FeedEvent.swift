import BeaconLocation
import BlueDotCore
import Formats
import JSON
import LocationBus
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
/// `status`: the location source's status changed; `venue`: the venue or the registry was saved or reloaded (the page
/// draws the venue and the names again from `GET /api/venue` and `/api/display`).
public enum FeedEvent: Sendable, Hashable {
    /// A new fix.
    indirect case fix(Location, DotDrawing)
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
    /// The venue or the registry changed (`SiteFiles.revision`).
    case venue(revision: Int)

    /// The SSE event name.
    public var name: String { nameText.description }

    /// The SSE event name as static text (what the frame writer copies).
    var nameText: StaticString {
        switch self {
        case .fix: "fix"
        case .display: "display"
        case .removed: "removed"
        case .enter: "enter"
        case .leave: "leave"
        case .status: "status"
        case .venue: "venue"
        }
    }

    /// The event's JSON object (one line).
    public var json: String {
        JSONText.text(estimatedBytes: 448) { write(to: &$0) }
    }

    /// Writes the event's JSON object.
    public func write(to w: inout JSONWriter) {
        switch self {
        case .fix(let fix, let drawing):
            w.literal("{\"fix\":")
            LocationWriter.write(fix, to: &w)
            w.literal(",\"display\":")
            Self.write(drawing, to: &w)
            if let reportedAt = fix.reportedAt {
                w.literal(",\"reportedAt\":")
                w.trimmedFixed(reportedAt, decimals: 6)
            }
        case .display(let target, let drawing):
            w.literal("{\"target\":")
            w.quoted(target)
            w.literal(",\"display\":")
            Self.write(drawing, to: &w)
        case .removed(let target):
            w.literal("{\"target\":")
            w.quoted(target)
        case .enter(let target, let room, let t), .leave(let target, let room, let t):
            w.literal("{\"target\":")
            w.quoted(target)
            w.literal(",\"room\":")
            w.quoted(room)
            w.literal(",\"t\":")
            w.trimmedFixed(t, decimals: 3)
        case .status(let status):
            w.literal("{\"status\":")
            w.quoted(status.description)
        case .venue(let revision):
            w.literal("{\"revision\":")
            w.integer(revision)
        }
        w.byte(UInt8(ascii: "}"))
    }

    /// The complete SSE frame: `id`, `event` and `data` lines and the blank line ending it.
    public func frame(id: UInt64) -> String {
        String(decoding: frameBytes(id: id), as: UTF8.self)
    }

    /// The SSE frame as UTF-8.
    public func frameBytes(id: UInt64) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(Self.frameBytesEstimate)
        appendFrame(id: id, to: &out)
        return out
    }

    /// Appends the SSE frame to UTF-8 bytes.
    public func appendFrame(id: UInt64, to out: inout [UInt8]) {
        JSONText.append(to: &out, estimatedBytes: Self.frameBytesEstimate) { writeFrame(id: id, to: &$0) }
    }

    /// Writes the SSE frame: what the feed's connections send (`GatewayRouter.feedFrame`).
    public func writeFrame(id: UInt64, to w: inout JSONWriter) {
        w.literal("id: ")
        w.digits(id)
        w.literal("\nevent: ")
        w.literal(nameText)
        w.literal("\ndata: ")
        write(to: &w)
        w.literal("\n\n")
    }

    /// Room for a fix's frame with a long target id and a room.
    static var frameBytesEstimate: Int { 640 }

    /// A drawing state as a JSON object.
    static func json(_ d: DotDrawing) -> String {
        JSONText.text(estimatedBytes: 160) { write(d, to: &$0) }
    }

    /// Writes a drawing state as a JSON object.
    static func write(_ d: DotDrawing, to w: inout JSONWriter) {
        w.literal("{\"symbol\":")
        w.quoted(d.symbol)
        w.literal(",\"accuracy\":")
        w.trimmedFixed(d.accuracyMeters, decimals: 2)
        if let rotation = d.rotationDegrees {
            w.literal(",\"rotation\":")
            w.trimmedFixed(rotation, decimals: 1)
        }
        w.literal(",\"navigationRotation\":")
        w.trimmedFixed(d.navigationRotationDegrees, decimals: 1)
        if let heading = d.headingDegrees {
            w.literal(",\"heading\":")
            w.trimmedFixed(heading, decimals: 1)
        }
        w.literal(d.ping ? ",\"ping\":true" : ",\"ping\":false")
        w.literal(",\"pingSequence\":")
        w.integer(d.pingSequence)
        w.byte(UInt8(ascii: "}"))
    }

    /// A finite number with at most `decimals` decimals, trailing zeros dropped.
    static func number(_ x: Double, decimals: Int) -> String {
        JSONText.text(estimatedBytes: 32) { $0.trimmedFixed(x, decimals: decimals) }
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
