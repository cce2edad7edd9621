import BlueDotCore
import LocationDisplay

/// The edge between the bus and the display engine: one target of a `LocationProducer` as a `LocationDataSource`,
/// for a `LocationDisplay` and for code written against ArcGIS Runtime's data-source API. Nothing in the pipeline
/// goes through it.
///
/// Each start makes a producer afresh (a stopped input stays stopped), observes it and runs it. Start succeeds when
/// the producer first becomes `available` (or at once with `startsAtOnce`, for a daemon whose inputs retry) and
/// fails when it fails first; when its inputs end the source stops without an error, and when it fails later the
/// source stops with the reason in `error`. The target's locations go to `didUpdate`, and their headings to
/// `didUpdateHeading`.
open class LocationSourceDataSource: LocationDataSource, @unchecked Sendable {
    // @unchecked: the lets are Sendable; the run state is behind `run`.
    private struct Run {
        var producer: (any LocationProducer)?
        var follower: Follower?
        var task: Task<Void, Never>?
    }

    /// The target shown.
    public let targetID: String
    /// Whether start succeeds before the producer delivers.
    public let startsAtOnce: Bool
    private let makeProducer: @Sendable () -> any LocationProducer
    private let run = LockedValue(Run())

    /// A data source showing `targetID` of the producers `makeProducer` makes, one per start.
    public init(targetID: String, startsAtOnce: Bool = false,
                producer makeProducer: @escaping @Sendable () -> any LocationProducer) {
        self.targetID = targetID
        self.startsAtOnce = startsAtOnce
        self.makeProducer = makeProducer
        super.init()
    }

    /// The producer of the current (or last) run; nil before the first start.
    public final var producer: (any LocationProducer)? { run.withLock { $0.producer } }

    /// Makes a producer, follows it and runs it.
    override open func doStart() async {
        let producer = makeProducer()
        let follower = Follower(source: self)
        producer.addObserver(follower)
        let task = Task {
            do {
                try await producer.run()
                didStartOrFailWithError(nil)  // the inputs ended before delivering: started, then stopped
                didStop()
            } catch {
                didStartOrFailWithError(error)  // ignored unless still starting
                didStop(error: error)           // ignored unless started
            }
            producer.removeObserver(follower)
        }
        run.withLock { $0 = Run(producer: producer, follower: follower, task: task) }
        if startsAtOnce { didStartOrFailWithError(nil) }
    }

    /// Stops the producer, waits for its run, and reports stopped.
    override open func doStop() async {
        let (producer, task) = run.withLock { ($0.producer, $0.task) }
        await producer?.stop()
        await task?.value
        didStop()
    }

    /// Relays the producer's target to the data source; called in place, on the producer's thread.
    private final class Follower: LocationSourceObserver, @unchecked Sendable {
        // @unchecked: `source` is weak and only read.
        weak var source: LocationSourceDataSource?

        init(source: LocationSourceDataSource) {
            self.source = source
        }

        func onLocationsUpdated(_ locations: [Location], source _: LocationSource) {
            guard let source else { return }
            for location in locations where location.targetID == source.targetID {
                source.didUpdate(location)
                if let heading = location.headingDegrees { source.didUpdateHeading(heading) }
            }
        }

        func onLocationsDeleted(_ targetIDs: [String], source _: LocationSource) {}

        func onStatusChanged(_ status: LocationSourceStatus, source _: LocationSource) {
            if status == .available { source?.didStartOrFailWithError(nil) }
        }
    }
}
