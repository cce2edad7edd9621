import Positioning

/// A venue made by an importer (`IMDFImport`, `GeoJSONImport`, `ESPresenseConfigImport`), with one line for each
/// thing the import left out or placed with a caveat (`unit.geojson: 13 units of category structure left out`).
public struct ImportedVenue: Sendable, Hashable {
    /// The venue.
    public var venue: Venue
    /// What was left out or bent, for the user to read.
    public var notes: [String]

    /// Creates an imported venue.
    public init(venue: Venue, notes: [String] = []) {
        self.venue = venue
        self.notes = notes
    }
}
