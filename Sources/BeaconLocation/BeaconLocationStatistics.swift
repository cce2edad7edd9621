/// What a `BeaconLocationSource` has processed since it was made (its data source adapter: since its last start).
public struct BeaconLocationStatistics: Sendable, Hashable {
    /// Advertising report entries decoded into sightings.
    public var sightings = 0
    /// Sightings without an RSSI (the controller sent 127), skipped.
    public var sightingsWithoutRSSI = 0
    /// Observations fed to the positioning engine.
    public var observations = 0
    /// Locations pushed to listeners.
    public var locations = 0
    /// Observations of beacons the venue does not have (counted by the engine, skipped).
    public var unknownAnchors = 0
    /// Observations the engine dropped as late or rejected as outliers.
    public var lateOrOutliers = 0

    /// Zero counts.
    public init() {}
}
