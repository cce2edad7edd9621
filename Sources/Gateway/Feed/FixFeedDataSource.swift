import LocationDisplay

/// The data source behind each target's `LocationDisplay` in the hub: the gateway's pipeline. It has nothing
/// to open (the pipeline runs as its own service), so starting succeeds at once; the hub hands fixes to the
/// display with `LocationDisplay.receive(_:)` as they are published.
final class FixFeedDataSource: LocationDataSource, @unchecked Sendable {
    override func doStart() async {
        didStartOrFailWithError(nil)
    }

    override func doStop() async {
        didStop()
    }
}
