import BlueDotCore
import LocationDisplay


/// A many-target `LocationSource` fed by one `LocationDataSource`: the relaying-source pattern that lets a
/// single blue dot (the gateway's self mode, `BeaconLocationDataSource`) reach the same observers as a tag site.
///
/// Every location the data source delivers updates its target here; the status follows the data source
/// (`started` → available, `starting` → initialising, failed or stopped with an error → unavailable, stopped →
/// inactive).
public final class LocationDataSourceRelay: LocationSource, @unchecked Sendable {
    // @unchecked: the lets are Sendable; LocationSource guards its state.
    /// The data source relayed.
    public let dataSource: LocationDataSource

    /// Creates a relay of `dataSource`; call `run()` to follow it.
    public init(id: String, dataSource: LocationDataSource, deleteAfterSeconds: Double = 60,
                clock: any BlueDotClock = SystemClock()) {
        self.dataSource = dataSource
        super.init(id: id, deleteAfterSeconds: deleteAfterSeconds, clock: clock)
    }

    /// Follows the data source's locations and status until the task is cancelled (the data source is started and
    /// stopped by its owner).
    public func run() async {
        let locations = dataSource.locations
        let statuses = dataSource.statusChanges
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [weak self] in
                for await location in locations { self?.update([location]) }
            }
            group.addTask { [weak self] in
                for await status in statuses {
                    guard let self else { return }
                    switch status {
                    case .started: setStatus(.available)
                    case .starting: setStatus(.initialising)
                    case .failedToStart: setStatus(.unavailable)
                    case .stopping: break
                    case .stopped: setStatus(dataSource.error == nil ? .inactive : .unavailable)
                    }
                }
            }
            await group.waitForAll()
        }
    }
}
