import BeaconLocation
import BlueDotCore
import LocationBus
import LocationDisplay
import Positioning

/// The web feed: an observer of the spine's `LocationSource` that keeps, for every target, its latest location
/// and a `LocationDisplay` (the display engine) deciding what to draw, and pushes typed `FeedEvent`s to
/// subscribers (the page's SSE stream, tests, any in-process consumer).
///
/// Each location goes to its target's display (`receive`), whose `drawState` becomes the event's `DotDrawing`.
/// The displays' map is the venue plan in local metres (`Location.onPlan`), so radii and arrow directions are plan
/// values; panning is each browser's own (the page mirrors the display's settings, `settings`). Each target also
/// has a second display in navigation auto-pan, whose viewport rotation (the map turned to the course while moving)
/// goes in the drawing as `navigationRotationDegrees`: pages turn their maps by it. The API reads `current`;
/// subscribers get every current target first, then live events, numbered. Room entries and exits are the
/// source's (`onRoomsChanged`): they follow the fixes that made them. A slow subscriber loses its oldest
/// messages (`Broadcast`'s bounded buffer) rather than holding the spine up. `close()` ends every subscription.
public final class LocationHub: LocationSourceObserver, Sendable {
    private struct Entry {
        var location: Location
        /// Clock time the location came.
        var receivedAt: Double
        var display: LocationDisplay
        var navigator: LocationDisplay
        var drawing: DotDrawing
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var status: LocationSourceStatus = .initialising
        var nextEventID: UInt64 = 0
        var planBearingDegrees: Double
    }

    private let state: LockedValue<State>
    private let broadcast: Broadcast<[FeedMessage]>
    /// The display engine's settings for every target (symbols, ping, staleness, auto-pan factors).
    public let settings: LocationDisplaySettings
    /// Where displays read the time.
    public let clock: any BlueDotClock
    /// Degrees to turn published courses back onto the plan (the venue origin's bearing: locations with
    /// coordinates carry courses from north); a reloaded venue sets it again.
    public var planBearingDegrees: Double {
        get { state.withLock { $0.planBearingDegrees } }
        set { state.withLock { $0.planBearingDegrees = newValue } }
    }

    /// The gateway's defaults: course arrow on movement, ping on every update, grey after 5 s, 1:250 when
    /// following starts.
    public static var defaultSettings: LocationDisplaySettings {
        LocationDisplaySettings(
            initialZoomScale: 250, useCourseSymbolOnMovement: true, showPingAnimation: true, staleAfterSeconds: 5)
    }

    /// Creates an empty hub; `bufferLimit` messages are kept per subscriber before the oldest are dropped.
    public init(
        settings: LocationDisplaySettings = LocationHub.defaultSettings, clock: any BlueDotClock = SystemClock(),
        planBearingDegrees: Double = 0, bufferLimit: Int = 4096
    ) {
        self.settings = settings
        self.clock = clock
        state = LockedValue(State(planBearingDegrees: planBearingDegrees))
        broadcast = Broadcast(bufferLimit: bufferLimit)
    }

    // MARK: The observer of the LocationSource

    /// New locations: shown and sent, in order, as one batch.
    public func onLocationsUpdated(_ locations: [Location], source: LocationSource) {
        publish(locations)
    }

    /// Targets the source removed (not heard for its timeout).
    public func onLocationsDeleted(_ targetIDs: [String], source: LocationSource) {
        remove(targetIDs)
    }

    /// Room entries and exits, sent as `enter` and `leave` events.
    public func onRoomsChanged(_ changes: [RoomChange], source: LocationSource) {
        send { _ in changes.flatMap(FeedEvent.events) }
    }

    /// The source's status, sent to subscribers.
    public func onStatusChanged(_ status: LocationSourceStatus, source: LocationSource) {
        send { s in
            guard s.status != status else { return [] }
            s.status = status
            return [.status(status)]
        }
    }

    /// The venue or the registry was saved or reloaded: subscribers draw the venue and the names again.
    public func venueChanged(revision: Int) {
        send { _ in [.venue(revision: revision)] }
    }

    // MARK: Changes

    /// Shows a location on its target's displays and sends it with the drawing state.
    public func publish(_ location: Location) {
        publish([location])
    }

    /// Shows locations on their targets' displays and sends them, in order, to subscribers as one batch.
    public func publish(_ locations: [Location]) {
        send { s in locations.flatMap { show($0, in: &s) } }
    }

    /// A location onto its target's displays: the event it makes (its fix).
    private func show(_ location: Location, in s: inout State) -> [FeedEvent] {
        let plan = location.onPlan(bearingDegrees: s.planBearingDegrees)
        let display = s.entries[location.targetID]?.display ?? makeDisplay(autoPan: .off)
        let navigator = s.entries[location.targetID]?.navigator ?? makeDisplay(autoPan: .navigation)
        if let heading = plan.headingDegrees {
            // A heading (a compass, gpsd's ATT): the navigator turns the map with it (compass navigation).
            navigator.autoPanMode = .compassNavigation
            navigator.receive(heading: heading)
        }
        display.receive(plan)
        navigator.receive(plan)
        guard let drawState = display.drawState else { return [] }
        let drawing = DotDrawing(drawState, fresh: true, navigationRotationDegrees: navigator.viewport.rotationDegrees,
                                 headingDegrees: plan.lastKnown ? nil : plan.headingDegrees)
        s.entries[location.targetID] = Entry(
            location: location, receivedAt: clock.now(), display: display, navigator: navigator, drawing: drawing)
        return [.fix(location, drawing)]
    }

    /// Forgets targets and sends a `removed` event for each one it had.
    public func remove(_ targetIDs: [String]) {
        send { s in
            targetIDs.filter { s.entries.removeValue(forKey: $0) != nil }.map { .removed(target: $0) }
        }
    }

    /// Re-reads every display now: targets whose drawing changed (went stale: grey) get a `display` event.
    public func sweep() {
        send { s in
            var events: [FeedEvent] = []
            for (target, entry) in s.entries.sorted(by: { $0.key < $1.key }) {
                guard let drawState = entry.display.drawState else { continue }
                let drawing = DotDrawing(
                    drawState, fresh: false, navigationRotationDegrees: entry.drawing.navigationRotationDegrees,
                    headingDegrees: drawState.symbol == .acquiring ? nil : entry.drawing.headingDegrees)
                if drawing != entry.drawing.quiet {
                    s.entries[target]?.drawing = drawing
                    events.append(.display(target: target, drawing))
                }
            }
            return events
        }
    }

    // MARK: Reading

    /// The current locations, sorted by target; a silent target's `silentFor` runs on to now.
    public var current: [Location] {
        let now = clock.now()
        return state.withLock { s in
            s.entries.values.map { entry in
                var location = entry.location
                if let silent = location.silentForSeconds {
                    location.silentForSeconds = silent + max(0, now - entry.receivedAt)
                }
                return location
            }.sorted { $0.targetID < $1.targetID }
        }
    }

    /// The current drawing state of `target`.
    public func drawing(of target: String) -> DotDrawing? { state.withLock { $0.entries[target]?.drawing } }

    /// Number of targets with a current location.
    public var targetCount: Int { state.withLock { $0.entries.count } }

    /// Number of open subscriptions.
    public var subscriberCount: Int { broadcast.listenerCount }

    /// A stream of numbered events: the current state first (without pings), then live events, until `close()`
    /// or cancellation (after `close()`, an empty stream). `subscribeInBatches()` gives the same events as the
    /// hub made them, together.
    public func subscribe() -> AsyncStream<FeedMessage> {
        let batches = FlattenedBatches(subscribeInBatches())
        return AsyncStream { await batches.next() }
    }

    /// The events of `subscribe()` in the batches the hub made them (the current state as one): what one change
    /// made goes to a connection in one write. A slow subscriber loses its oldest batches.
    public func subscribeInBatches() -> AsyncStream<[FeedMessage]> {
        state.withLock { s in
            var snapshot: [FeedMessage] = []
            for entry in s.entries.values.sorted(by: { $0.location.targetID < $1.location.targetID }) {
                s.nextEventID += 1
                let event = FeedEvent.fix(entry.location, entry.drawing.quiet)
                snapshot.append(FeedMessage(id: s.nextEventID, event: event))
            }
            return broadcast.subscribe(initial: snapshot.isEmpty ? [] : [snapshot])
        }
    }

    /// Ends every subscription; later subscriptions end at once.
    public func close() {
        broadcast.finish()
    }

    /// A display on the plan (local metres, unrotated at first). With auto-pan off it decides the drawing
    /// (browsers pan their own maps); in navigation it turns its viewport to the course, which pages mirror.
    private func makeDisplay(autoPan: AutoPanMode) -> LocationDisplay {
        let viewport = MapViewport(center: MapPoint(x: 0, y: 0), unitsPerPixel: 0.05, widthPixels: 1280, heightPixels: 800)
        let display = LocationDisplay(viewport: viewport, settings: settings, clock: clock)
        display.autoPanMode = autoPan
        return display
    }

    /// Applies a change under the lock and sends the events it returns, numbered, to every subscriber (in one
    /// order for all: the broadcast is fed under the same lock).
    private func send(_ change: (inout State) -> [FeedEvent]) {
        state.withLock { s in
            let events = change(&s)
            guard !events.isEmpty else { return }
            let messages = events.map { event in
                s.nextEventID += 1
                return FeedMessage(id: s.nextEventID, event: event)
            }
            broadcast.yield(messages)
        }
    }
}

/// One message at a time from a stream of batches, for `LocationHub.subscribe()`.
private final class FlattenedBatches: @unchecked Sendable {
    // @unchecked: only the one task iterating the stream made from it calls `next()`, one call at a time.
    private var batches: AsyncStream<[FeedMessage]>.AsyncIterator
    private var pending: [FeedMessage] = []
    private var index = 0

    init(_ stream: AsyncStream<[FeedMessage]>) {
        batches = stream.makeAsyncIterator()
    }

    func next() async -> FeedMessage? {
        while index == pending.count {
            guard let batch = await batches.next() else { return nil }
            (pending, index) = (batch, 0)
        }
        defer { index += 1 }
        return pending[index]
    }
}
