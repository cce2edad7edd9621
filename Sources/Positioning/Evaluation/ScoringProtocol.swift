/// Which fix a truth point is scored against (`../shared/data/README.md` (docs/evaluation.md restates it), "How the sets score").
public enum ScoringProtocol: Sendable, Hashable {
    /// Moving targets: the latest fix of the target with `fix.t <= truth.t + toleranceSeconds` and
    /// `truth.t - fix.t <= maxAgeSeconds` (defaults 0.001 s and 5 s; both bounds inclusive).
    case moving(toleranceSeconds: Double = 0.001, maxAgeSeconds: Double = 5)
    /// Static scans: the first fix of the target with `fix.t >= truth.t`, else its latest earlier fix; no age limit.
    case stationary

    /// The protocol of the data README for moving targets.
    public static let movingDefault = ScoringProtocol.moving()

    /// `moving` or `static`.
    public var name: String {
        switch self {
        case .moving: "moving"
        case .stationary: "static"
        }
    }

    /// Slack added to every time comparison so that 3-decimal times that are equal on paper compare equal in
    /// binary (e.g. `10.0 + 0.001` against `10.001`). Far below the data's 1 ms resolution.
    public static let timeSlackSeconds = 1e-6
}
