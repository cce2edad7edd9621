/// Counts of a `GPSDLocationSource` since it was created.
public struct GPSDStatistics: Sendable, Hashable {
    /// Lines read from gpsd.
    public var lines = 0
    /// TPV reports with a 2D or 3D fix, turned into locations.
    public var fixes = 0
    /// TPV reports without a fix (mode 0 or 1): the dot goes grey.
    public var noFix = 0
    /// ATT reports with a heading, delivered as headings.
    public var headings = 0
    /// Lines that were not a report gpsd documents (bad JSON, a field of the wrong type): counted and skipped.
    public var malformed = 0
    /// The last malformed line's error, naming the field (`TPV.lat: expected a number (column 40)`).
    public var lastMalformed: String?
    /// Connections made (the first and every reconnect).
    public var connections = 0
    /// Links lost or refused after which the source tried again.
    public var reconnects = 0

    /// All zero.
    public init() {}
}
