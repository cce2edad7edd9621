/// The life-cycle state of a `LocationDataSource`, named after ArcGIS Runtime's `LocationDataSource.Status`.
public enum LocationDataSourceStatus: Sendable, Hashable, CustomStringConvertible {
    /// Not running; `start()` may be called.
    case stopped
    /// `start()` was called and the subclass has not yet reported success or failure.
    case starting
    /// Running: updates are delivered.
    case started
    /// The last start failed; `error` says why, and `start()` may be tried again.
    case failedToStart
    /// `stop()` was called and the subclass has not yet reported that it stopped.
    case stopping

    /// A lower-case name for logs.
    public var description: String {
        switch self {
        case .stopped: "stopped"
        case .starting: "starting"
        case .started: "started"
        case .failedToStart: "failedToStart"
        case .stopping: "stopping"
        }
    }
}
