import LocationDisplay
import Positioning
import Synchronization
import BlueDotCore

/// The gateway's current picture: for every target its latest fix and a `LocationDisplay` (the display engine)
/// that decides what to draw; and the push feed carrying fixes with that drawing state.
///
/// The pipeline publishes fixes; each goes to its target's display (`receive`), whose `drawState` becomes the
/// event's `DotDrawing`. The displays' map is the venue plan in local metres, so radii and arrow directions are
/// plan values; panning is each browser's own (the page mirrors the display's settings, `settings`). Each target
/// also has a second display in navigation auto-pan, whose viewport rotation (the map turned to the course while
/// moving) goes in the drawing as `navigationRotationDegrees`: pages turn their maps by it. The API
/// reads `current`; web clients `subscribe()` to SSE frames: every current target first, then live events. A
/// slow subscriber loses its oldest frames (bounded buffer) rather than holding the pipeline up. `close()` ends
/// every subscription (shutdown).
public final class LocationHub: Sendable {
    private struct Entry: Sendable {
        var fix: LocationFix
        var display: LocationDisplay
        var navigator: LocationDisplay
        var drawing: DotDrawing
        var reportedAt: Double?
    }

    private struct State: Sendable {
        var entries: [String: Entry] = [:]
        var subscribers: [UInt64: AsyncStream<String>.Continuation] = [:]
        var nextSubscriber: UInt64 = 0
        var nextEventID: UInt64 = 0
        var closed = false
    }

    private let state = Mutex(State())
    /// The display engine's settings for every target (symbols, ping, staleness, auto-pan factors).
    public let settings: LocationDisplaySettings
    /// Where displays and removal read the time.
    public let clock: any BlueDotClock
    /// Degrees to turn published courses back onto the plan (the venue origin's bearing: fixes with an origin
    /// carry courses from north).
    public let planBearingDegrees: Double
    /// A target not heard for this many seconds is removed.
    public let removeAfterSeconds: Double
    /// Frames buffered per subscriber before the oldest are dropped.
    public let bufferLimit: Int

    /// The gateway's defaults: course arrow on movement, ping on every update, grey after 5 s, 1:250 when
    /// following starts.
    public static var defaultSettings: LocationDisplaySettings {
        LocationDisplaySettings(
            initialZoomScale: 250, useCourseSymbolOnMovement: true, showPingAnimation: true, staleAfterSeconds: 5)
    }

    /// Creates an empty hub.
    public init(
        settings: LocationDisplaySettings = LocationHub.defaultSettings, clock: any BlueDotClock = SystemClock(),
        planBearingDegrees: Double = 0, removeAfterSeconds: Double = 60, bufferLimit: Int = 4096
    ) {
        self.settings = settings
        self.clock = clock
        self.planBearingDegrees = planBearingDegrees
        self.removeAfterSeconds = removeAfterSeconds
        self.bufferLimit = bufferLimit
    }

    /// Shows a fix on its target's display and sends it with the drawing state; `reportedAt` is the wall time of
    /// the newest report behind it.
    public func publish(_ fix: LocationFix, reportedAt: Double? = nil) {
        let location = planLocation(fix)
        broadcast { s in
            let display = s.entries[fix.target]?.display ?? makeDisplay(autoPan: .off)
            let navigator = s.entries[fix.target]?.navigator ?? makeDisplay(autoPan: .navigation)
            display.receive(location)
            navigator.receive(location)
            guard let drawState = display.drawState else { return [] }
            let drawing = DotDrawing(
                drawState, fresh: true, navigationRotationDegrees: navigator.viewport.rotationDegrees)
            s.entries[fix.target] = Entry(
                fix: fix, display: display, navigator: navigator, drawing: drawing, reportedAt: reportedAt)
            return [.fix(fix, drawing, reportedAt: reportedAt)]
        }
    }

    /// Re-reads every display now: targets whose drawing changed (went stale: grey) get a `display` event,
    /// targets not updated for `removeAfterSeconds` a `removed` event.
    public func sweep() {
        let now = clock.now()
        broadcast { s in
            var events: [FeedEvent] = []
            for (target, entry) in s.entries.sorted(by: { $0.key < $1.key }) {
                if now - entry.fix.t > removeAfterSeconds {
                    s.entries[target] = nil
                    events.append(.removed(target: target))
                    continue
                }
                guard let drawState = entry.display.drawState else { continue }
                let drawing = DotDrawing(
                    drawState, fresh: false, navigationRotationDegrees: entry.drawing.navigationRotationDegrees)
                if drawing != entry.drawing.quiet {
                    s.entries[target]?.drawing = drawing
                    events.append(.display(target: target, drawing))
                }
            }
            return events
        }
    }

    /// The current fixes, sorted by target.
    public var current: [LocationFix] {
        state.withLock { s in s.entries.values.map(\.fix).sorted { $0.target < $1.target } }
    }

    /// The current drawing state of `target`.
    public func drawing(of target: String) -> DotDrawing? { state.withLock { $0.entries[target]?.drawing } }

    /// Number of targets with a current fix.
    public var targetCount: Int { state.withLock { $0.entries.count } }

    /// Number of open subscriptions.
    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// A stream of SSE frames: the current state first, then live events, until `close()` or cancellation (after
    /// `close()`, only the current state).
    public func subscribe() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(bufferLimit))
        let id: UInt64? = state.withLock { s in
            for entry in s.entries.values.sorted(by: { $0.fix.target < $1.fix.target }) {
                s.nextEventID += 1
                let event = FeedEvent.fix(entry.fix, entry.drawing.quiet, reportedAt: entry.reportedAt)
                continuation.yield(event.frame(id: s.nextEventID))
            }
            guard !s.closed else { return nil }
            s.nextSubscriber += 1
            s.subscribers[s.nextSubscriber] = continuation
            return s.nextSubscriber
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Ends every subscription; later subscriptions end after the current state.
    public func close() {
        let continuations = state.withLock { s in
            s.closed = true
            defer { s.subscribers.removeAll() }
            return Array(s.subscribers.values)
        }
        for continuation in continuations { continuation.finish() }
    }

    /// A display on the plan (local metres, unrotated at first). With auto-pan off it decides the drawing
    /// (browsers pan their own maps); in navigation it turns its viewport to the course, which pages mirror.
    private func makeDisplay(autoPan: AutoPanMode) -> LocationDisplay {
        let viewport = MapViewport(center: MapPoint(x: 0, y: 0), unitsPerPixel: 0.05, widthPixels: 1280, heightPixels: 800)
        let display = LocationDisplay(
            dataSource: FixFeedDataSource(), viewport: viewport, settings: settings, clock: clock)
        display.autoPanMode = autoPan
        return display
    }

    /// The fix as a display location on the plan: local metres (no latitude/longitude, so the display does not
    /// switch to Web Mercator), course from the plan's +y.
    private func planLocation(_ fix: LocationFix) -> Location {
        var course = fix.course
        if let c = course, fix.latitude != nil, planBearingDegrees != 0 {
            let turned = (c - planBearingDegrees).truncatingRemainder(dividingBy: 360)
            course = turned < 0 ? turned + 360 : turned
        }
        return Location(
            x: fix.x, y: fix.y, z: fix.z, floor: fix.floor, timestamp: fix.t,
            horizontalAccuracyMeters: fix.horizontalAccuracy, verticalAccuracyMeters: fix.verticalAccuracy,
            speedMetersPerSecond: fix.speed, courseDegrees: course, lastKnown: fix.lastKnown, targetID: fix.target,
            anchorCount: fix.anchors)
    }

    /// Applies a change under the lock and sends the events it returns to every subscriber.
    private func broadcast(_ change: (inout State) -> [FeedEvent]) {
        state.withLock { s in
            let events = change(&s)
            for event in events {
                s.nextEventID += 1
                let frame = event.frame(id: s.nextEventID)
                for continuation in s.subscribers.values { continuation.yield(frame) }
            }
        }
    }
}
