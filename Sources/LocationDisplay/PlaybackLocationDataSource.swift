import BlueDotCore


/// A source that plays a list of locations paced by their timestamps on an injected clock: the base of the
/// simulated, GPX and replay sources.
///
/// Subclasses override `loadLocations()`, which runs inside `doStart()`: an error thrown there becomes the start
/// failure. Location i is delivered at `start + (tᵢ - t₀) / timeScale` on the clock; with `restampsToClock` its
/// timestamp is replaced by that delivery time. With `loops`, playback starts over one `loopGapSeconds` after
/// the last location; otherwise the source stays started and silent after the last one.
open class PlaybackLocationDataSource: LocationDataSource, @unchecked Sendable {
    // @unchecked: the stored lets are Sendable and `task` is guarded by a LockedValue.
    /// Where time comes from.
    public let clock: any BlueDotClock
    /// Start over after the last location.
    public let loops: Bool
    /// Playback speed-up: 2 plays twice as fast as the timestamps say.
    public let timeScale: Double
    /// Replace each timestamp by its delivery time on the clock.
    public let restampsToClock: Bool
    /// Pause between the last location and the first of the next loop, seconds of timestamp time.
    public let loopGapSeconds: Double
    private let task = LockedValue<Task<Void, Never>?>(nil)
    private let delivered = LockedValue(0)

    /// Creates a playback source.
    public init(clock: any BlueDotClock, loops: Bool = false, timeScale: Double = 1, restampsToClock: Bool = true,
                loopGapSeconds: Double = 1, bufferLimit: Int = 256) {
        self.clock = clock
        self.loops = loops
        self.timeScale = timeScale
        self.restampsToClock = restampsToClock
        self.loopGapSeconds = loopGapSeconds
        super.init(bufferLimit: bufferLimit)
    }

    /// How many locations playback has delivered since the source was created.
    public final var deliveredCount: Int { delivered.withLock { $0 } }

    /// The locations to play, in time order; throw to fail the start. Called on every start.
    open func loadLocations() async throws -> [Location] {
        []
    }

    /// Loads the locations and, when that works, reports started and plays them in a task.
    override open func doStart() async {
        let locations: [Location]
        do {
            locations = try await loadLocations()
        } catch {
            didStartOrFailWithError(error)
            return
        }
        didStartOrFailWithError(nil)
        let playing = Task { [clock, loops, timeScale, restampsToClock, loopGapSeconds] in
            guard let first = locations.first, let last = locations.last else { return }
            var cycleStart = clock.now()
            repeat {
                for location in locations {
                    let due = cycleStart + (location.timestamp - first.timestamp) / timeScale
                    do { try await clock.sleep(until: due) } catch { return }
                    var played = location
                    if restampsToClock { played.timestamp = due }
                    delivered.withLock { $0 += 1 }
                    didUpdate(played)
                }
                cycleStart += (last.timestamp - first.timestamp + loopGapSeconds) / timeScale
            } while loops && !Task.isCancelled
        }
        task.withLock { $0 = playing }
    }

    /// Cancels playback, waits for it to end (so nothing is delivered after `stop()` returns) and reports stopped.
    override open func doStop() async {
        let playing = task.withLock { t in
            defer { t = nil }
            return t
        }
        playing?.cancel()
        await playing?.value
        didStop()
    }
}
