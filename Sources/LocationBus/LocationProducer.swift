import BlueDotCore

/// A `LocationSource` that makes its own locations: the beacons' pipeline, gpsd, the indoor/outdoor hand-over.
/// Whoever owns it (the gateway's spine, a `LocationSourceDataSource`) runs it and stops it; everyone else only
/// observes it.
///
/// Status: `initialising` until it delivers, `available` while it does, `unavailable` when it cannot (an input
/// failed, gpsd went away), `inactive` once stopped or when its inputs ended.
public protocol LocationProducer: LocationSource {
    /// Makes locations until `stop()` or until its inputs end. Throws when it fails for good (an input without
    /// restarts, a venue with nothing to locate against), after setting its status `unavailable`.
    func run() async throws
    /// Asks `run` to return, and returns once the inputs are stopped (a scan disabled, links and files closed).
    func stop() async
}
