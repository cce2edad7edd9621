import BlueDotCore


/// Where locations come from: the base class of every source, following ArcGIS Runtime's `LocationDataSource`.
///
/// Callers use `start()`, `stop()` and the `locations`, `headings` and `statusChanges` streams. Subclasses
/// override `doStart()` and `doStop()` and report back with `didStartOrFailWithError(_:)`, `didStop()`,
/// `didUpdate(_:)` and `didUpdateHeading(_:)`, from any task or thread.
///
/// Contract: a failed start leaves status `failedToStart` with `error` set, and `start()` may be called again;
/// updates before start or after stop are ignored and counted in `ignoredUpdateCount`; every listener gets
/// updates in the order the `did` calls were made; concurrent `start()`/`stop()` calls are serialised (a
/// `start()` while starting waits for the same outcome, a `stop()` while starting waits for the start to settle
/// first); a started source may stop itself with `didStop(error:)`.
///
/// Buffering: each listener keeps at most `bufferLimit` undelivered locations and headings, dropping the oldest
/// (a slow map wants the newest position); status changes are never dropped.
open class LocationDataSource: @unchecked Sendable {
    // @unchecked: every stored property is immutable or guarded by `state`.
    private struct State {
        var status: LocationDataSourceStatus = .stopped
        var error: (any Error)?
        var ignoredUpdates = 0
        var lastLocation: Location?
        var startWaiters: [@Sendable (Result<Void, any Error>) -> Void] = []
        var stopWaiters: [@Sendable () -> Void] = []
    }

    private let state = LockedValue(State())
    private let locationBroadcast: Broadcast<Location>
    private let headingBroadcast: Broadcast<Double>
    private let statusBroadcast = Broadcast<LocationDataSourceStatus>()

    /// Creates a stopped source whose listeners each buffer at most `bufferLimit` locations and headings.
    public init(bufferLimit: Int = 256) {
        locationBroadcast = Broadcast(bufferLimit: bufferLimit)
        headingBroadcast = Broadcast(bufferLimit: bufferLimit)
    }

    deinit {
        locationBroadcast.finish()
        headingBroadcast.finish()
        statusBroadcast.finish()
    }

    /// The current life-cycle state.
    public final var status: LocationDataSourceStatus { state.withLock { $0.status } }

    /// Why the last start failed or the source stopped itself; cleared by the next `start()`.
    public final var error: (any Error)? { state.withLock { $0.error } }

    /// How many `didUpdate`/`didUpdateHeading` calls arrived while the source was not started.
    public final var ignoredUpdateCount: Int { state.withLock { $0.ignoredUpdates } }

    /// The last location delivered, if any.
    public final var lastLocation: Location? { state.withLock { $0.lastLocation } }

    /// A new stream of every location delivered from now on.
    public final var locations: AsyncStream<Location> { locationBroadcast.subscribe() }

    /// A new stream of every heading (degrees clockwise from +y or north) delivered from now on.
    public final var headings: AsyncStream<Double> { headingBroadcast.subscribe() }

    /// A new stream of status changes; its first element is the status at the time of the call.
    public final var statusChanges: AsyncStream<LocationDataSourceStatus> {
        state.withLock { statusBroadcast.subscribe(initial: [$0.status]) }
    }

    /// Starts the source and returns once it runs; throws the subclass's error when it fails to start.
    public final func start() async throws {
        var retry = true
        while retry {
            retry = try await withCheckedThrowingContinuation { (c: CheckedContinuation<Bool, any Error>) in
                enum Action { case resume, none, begin }
                let action = state.withLock { s -> Action in
                    switch s.status {
                    case .started:
                        return .resume
                    case .starting:
                        s.startWaiters.append { result in c.resume(with: result.map { false }) }
                        return .none
                    case .stopping:
                        s.stopWaiters.append { c.resume(returning: true) }
                        return .none
                    case .stopped, .failedToStart:
                        s.error = nil
                        setStatus(.starting, in: &s)
                        s.startWaiters.append { result in c.resume(with: result.map { false }) }
                        return .begin
                    }
                }
                switch action {
                case .resume: c.resume(returning: false)
                case .none: break
                case .begin: Task { await self.doStart() }
                }
            }
        }
    }

    /// Stops the source and returns once the subclass reports it stopped. Does nothing when not running; while
    /// starting, waits for the start to settle first.
    public final func stop() async {
        var retry = true
        while retry {
            retry = await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
                enum Action { case resume, none, begin }
                let action = state.withLock { s -> Action in
                    switch s.status {
                    case .stopped, .failedToStart:
                        return .resume
                    case .starting:
                        s.startWaiters.append { _ in c.resume(returning: true) }
                        return .none
                    case .stopping:
                        s.stopWaiters.append { c.resume(returning: false) }
                        return .none
                    case .started:
                        setStatus(.stopping, in: &s)
                        s.stopWaiters.append { c.resume(returning: false) }
                        return .begin
                    }
                }
                switch action {
                case .resume: c.resume(returning: false)
                case .none: break
                case .begin: Task { await self.doStop() }
                }
            }
        }
    }

    /// Subclasses start producing here and call `didStartOrFailWithError(_:)` (now or later). The default
    /// reports success at once.
    open func doStart() async {
        didStartOrFailWithError(nil)
    }

    /// Subclasses stop producing here and call `didStop()` (now or later). The default reports at once.
    open func doStop() async {
        didStop()
    }

    /// Reports the outcome of `doStart()`: `nil` for success, or the reason it failed. Ignored unless starting.
    public final func didStartOrFailWithError(_ error: (any Error)?) {
        let waiters = state.withLock { s -> [@Sendable (Result<Void, any Error>) -> Void] in
            guard s.status == .starting else { return [] }
            s.error = error
            setStatus(error == nil ? .started : .failedToStart, in: &s)
            defer { s.startWaiters.removeAll() }
            return s.startWaiters
        }
        let result: Result<Void, any Error> = error.map { .failure($0) } ?? .success(())
        for waiter in waiters { waiter(result) }
    }

    /// Reports that the source stopped: after `doStop()`, or on its own (with the reason in `error`) while started.
    public final func didStop(error: (any Error)? = nil) {
        let waiters = state.withLock { s -> [@Sendable () -> Void] in
            guard s.status == .stopping || s.status == .started else { return [] }
            if let error { s.error = error }
            setStatus(.stopped, in: &s)
            defer { s.stopWaiters.removeAll() }
            return s.stopWaiters
        }
        waiters.forEach { $0() }
    }

    /// Delivers a location to every listener; ignored (and counted) unless the source is started.
    public final func didUpdate(_ location: Location) {
        state.withLock { s in
            guard s.status == .started else {
                s.ignoredUpdates += 1
                return
            }
            s.lastLocation = location
            locationBroadcast.yield(location)
        }
    }

    /// Delivers a heading in degrees to every listener; ignored (and counted) unless the source is started.
    public final func didUpdateHeading(_ headingDegrees: Double) {
        state.withLock { s in
            guard s.status == .started else {
                s.ignoredUpdates += 1
                return
            }
            headingBroadcast.yield(headingDegrees)
        }
    }

    /// Changes status and announces it while the lock is held, so listeners see transitions in order.
    private func setStatus(_ status: LocationDataSourceStatus, in s: inout State) {
        guard s.status != status else { return }
        s.status = status
        statusBroadcast.yield(status)
    }
}
