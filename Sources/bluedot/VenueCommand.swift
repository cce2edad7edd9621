import ArgumentParser
import Formats
import FoundationEssentials
import Positioning

/// `bluedot venue`: venue files from other tools' site descriptions.
struct VenueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "venue",
        abstract: "Make venue files from other tools' site descriptions.",
        subcommands: [VenueImportCommand.self]
    )
}

/// `bluedot venue import (--espresense config.yaml | --imdf DIR_OR_ZIP | --geojson FILE) -o V.json`: another
/// tool's site description as a venue, or its rooms merged into an existing venue.
struct VenueImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import a venue (anchors, floors, rooms, openings) from another tool's site description.",
        discussion: """
            --espresense: an ESPresense-companion config.yaml. Its nodes become anchors named as the nodes \
            publish (espresense/devices/<device>/<node>), its floors floors numbered in file order, its rooms \
            rooms. Nodes that are disabled, not stationary or without a point are left out and listed.

            --imdf: an IMDF archive (Apple's Indoor Mapping Data Format, OGC 20-094), a folder or a .zip. Levels \
            become floors by ordinal, units rooms, openings openings (doors in walls), projected from WGS84 to \
            metres about the venue's display point, which becomes the venue's origin.

            --geojson: a FeatureCollection of Polygon/MultiPolygon rooms with a name and a level (properties \
            level, level_id, floor or ordinal; else --floor). Coordinates are WGS84 longitude/latitude, or venue \
            metres with --crs local.

            --venue EXISTING.json merges the imported floors, rooms and openings into that venue (its anchors, \
            model and origin kept; rooms and openings of the same id replaced); WGS84 sources are then projected \
            about its origin. See docs/formats.md, "ESPresense" and "Importing IMDF and GeoJSON". Exit code 2 \
            when the input cannot be imported.
            """
    )

    @Option(name: .customLong("espresense"), help: ArgumentHelp("ESPresense-companion configuration (YAML).",
                                                                valueName: "config.yaml"))
    var espresense: String?

    @Option(name: .customLong("imdf"), help: ArgumentHelp("IMDF archive: a folder or a .zip.",
                                                          valueName: "dir-or-zip"))
    var imdf: String?

    @Option(name: .customLong("geojson"), help: ArgumentHelp("GeoJSON FeatureCollection of room polygons.",
                                                             valueName: "file"))
    var geojson: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("Venue JSON file to write.", valueName: "venue.json"))
    var output: String

    @Option(help: "Venue name (default: the source's venue name or file name; with --venue, that venue's).")
    var name: String?

    @Option(name: .customLong("venue"), help: ArgumentHelp(
        "Merge the imported floors, rooms and openings into this venue (--imdf, --geojson).",
        valueName: "existing.json"))
    var existing: String?

    @Option(help: ArgumentHelp("GeoJSON coordinates: wgs84 (longitude/latitude, the default) or local (metres).",
                               valueName: "wgs84|local"))
    var crs: String?

    @Option(help: "GeoJSON: the floor of rooms without a level property (default 0).")
    var floor: Int?

    func validate() throws {
        let sources = [espresense, imdf, geojson].compactMap { $0 }
        guard sources.count == 1 else {
            throw ValidationError("give one source to import: --espresense FILE, --imdf DIR_OR_ZIP or --geojson FILE")
        }
        if espresense != nil, existing != nil { throw ValidationError("--venue merges --imdf or --geojson imports") }
        if geojson == nil, crs != nil || floor != nil { throw ValidationError("--crs and --floor go with --geojson") }
        if let crs, GeoJSONImport.CoordinateSystem(rawValue: crs) == nil {
            throw ValidationError("--crs: expected wgs84 or local, got \"\(crs)\"")
        }
    }

    func run() throws {
        let source = espresense ?? imdf ?? geojson ?? ""
        var imported = try importVenue()
        if let name { imported.venue.name = name }
        let directory = URL(fileURLWithPath: output).deletingLastPathComponent().path
        let text = VenueWriter.json(imported.venue, relativeTo: directory)
        do {
            // What is written must load: a last check that the import made a valid venue.
            _ = try VenueLoader.parse(Array(text.utf8), file: URL(fileURLWithPath: output).lastPathComponent,
                                      baseDirectory: directory)
        } catch {
            StandardError.write("bluedot venue import: the venue made does not load, not written: \(error)")
            throw ExitCode.failure
        }
        do {
            try text.write(toFile: output, atomically: true, encoding: .utf8)
        } catch {
            StandardError.write("bluedot venue import: cannot write \(output): \(error)")
            throw ExitCode.failure
        }
        for note in imported.notes { StandardError.write("bluedot venue import: \(note)") }
        let v = imported.venue
        StandardError.write("\(output): \(v.anchors.count) anchors, \(v.floors.count) floors, \(v.rooms.count) rooms"
                            + (v.openings.isEmpty ? "" : ", \(v.openings.count) openings") + " from \(source)")
    }

    /// The source read and converted (and merged into `--venue`); a failure is printed and exits with code 2.
    private func importVenue() throws -> ImportedVenue {
        do {
            if let espresense { return try ESPresenseConfigImport.load(path: espresense, venueName: name) }
            let coordinates = GeoJSONImport.CoordinateSystem(rawValue: crs ?? "wgs84") ?? .wgs84
            let base = try existing.map { (path) throws(VenueError) in try VenueLoader.load(path: path) }
            if let base, base.origin == nil, imdf != nil || coordinates == .wgs84 {
                throw VenueImportError(file: URL(fileURLWithPath: existing ?? "").lastPathComponent, path: "origin",
                                       message: "missing: rooms in latitude/longitude cannot be placed in a venue "
                                           + "without an origin (give it one, or import metres with --crs local)")
            }
            let imported = if let imdf {
                try IMDFImport.load(path: imdf, venueName: name, origin: base?.origin)
            } else {
                try GeoJSONImport.load(path: geojson ?? "", venueName: name, coordinates: coordinates,
                                       defaultFloor: floor ?? 0, origin: base?.origin)
            }
            return base.map { imported.merged(into: $0) } ?? imported
        } catch {
            StandardError.write("bluedot venue import: \(error)")
            throw ExitCode(2)
        }
    }
}
