import Formats
import Foundation
import Gateway
import JSON
import LocationDisplay
import Positioning

/// The files a user hands BlueDot: observation recordings, venues and what they are imported from, the
/// daemon's configuration.
enum FileTargets {
    /// Reads the bytes as an observation JSONL file with the default 64 KiB chunks and with chunks of 1-64 bytes:
    /// the same lines accepted and the same report, never going back in time.
    static func observations(_ bytes: [UInt8]) {
        let whole = read(bytes, chunkSize: 1 << 16)
        let small = read(bytes, chunkSize: chunkSize(bytes))
        check(whole.lines == small.lines, "chunking changed the lines")
        check(whole.report == small.report, "chunking changed the report")
        for (a, b) in zip(whole.lines, whole.lines.dropFirst()) {
            check(a.observation.t <= b.observation.t, "the reader went back in time")
        }
    }

    private static func read(_ bytes: [UInt8], chunkSize: Int) -> (lines: [ObservationLine], report: ReadReport) {
        var reader = ObservationReader(source: MemoryChunkSource(bytes), name: "fuzz.observations.jsonl",
                                       options: .init(chunkSize: chunkSize))
        do {
            let lines = try reader.readAll()
            return (lines, reader.report)
        } catch {
            fatalError("a lenient reader threw: \(error)")
        }
    }

    /// Loads the bytes as a venue; a venue that loads must write and load again to the same venue.
    static func venue(_ bytes: [UInt8]) {
        guard let venue = try? VenueLoader.parse(bytes, file: "fuzz.venue.json") else { return }
        rewrites(venue)
    }

    /// Reads the bytes as a learned-calibration file: one that parses must write and parse again to the same, and
    /// an engine on a ring of anchors either takes it up, with finite models, or refuses it whole.
    static func learnedCalibration(_ bytes: [UInt8]) {
        guard let (learned, venue) = try? LearnedCalibrationFile.parse(bytes, file: "fuzz.json") else { return }
        let again = try? LearnedCalibrationFile.parse(Array(LearnedCalibrationFile.json(learned, venue: venue).utf8),
                                                      file: "fuzz.json")
        check(again?.learned == learned && again?.venue == venue, "a learned calibration did not round-trip")
        var configuration = EngineConfiguration.moving
        configuration.selfCalibration = SelfCalibration.Settings()
        var engine = PositioningEngine(venue: ringVenue, configuration: configuration)
        guard (try? engine.restoreLearnedCalibration(learned)) != nil else { return }
        for e in engine.learnedCalibration?.anchors ?? [] {
            check(e.measuredPowerDBm.isFinite && e.pathLossExponent.isFinite, "a learned model is not finite")
        }
    }

    /// Four anchors named as the seeds name them.
    private static let ringVenue = Venue(
        name: "ring", anchors: [
            Anchor(id: "a0", x: 0, y: 0), Anchor(id: "a1", x: 10, y: 0), Anchor(id: "a2", x: 10, y: 10),
            Anchor(id: "a3", x: 0, y: 10),
        ], bounds: Venue.Bounds(minX: 0, minY: 0, maxX: 10, maxY: 10))

    /// Splits the bytes at NUL into the archive's files, in the order of `IMDFArchive.fileNames` (an empty part
    /// leaves that file out), and converts them.
    static func imdf(_ bytes: [UInt8]) {
        var files: [String: [UInt8]] = [:]
        for (name, part) in zip(IMDFArchive.fileNames, bytes.split(separator: 0, omittingEmptySubsequences: false))
        where !part.isEmpty {
            files[name] = Array(part)
        }
        convert(IMDFArchive(name: "fuzz-imdf", files: files))
    }

    /// Opens the bytes as a zipped IMDF archive (as `bluedot venue import --imdf` does once it has read the file)
    /// and converts it.
    static func imdfZip(_ bytes: [UInt8]) {
        guard let archive = try? IMDFArchive.zip(bytes: bytes, name: "fuzz.imdf.zip") else { return }
        convert(archive)
    }

    private static func convert(_ archive: IMDFArchive) {
        guard let imported = try? IMDFImport.convert(archive) else { return }
        rewrites(imported.venue)
    }

    /// Converts the bytes after the first as a GeoJSON floor plan, in WGS84 (first byte even) or local metres.
    static func geojson(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        let coordinates: GeoJSONImport.CoordinateSystem = first % 2 == 0 ? .wgs84 : .local
        guard let imported = try? GeoJSONImport.convert(Array(bytes.dropFirst()), file: "fuzz.geojson",
                                                         coordinates: coordinates)
        else { return }
        rewrites(imported.venue)
    }

    /// Parses the bytes as an ESPresense-companion YAML configuration (libyaml, then the import).
    static func espresenseConfig(_ bytes: [UInt8]) {
        guard let imported = try? ESPresenseConfigImport.parse(bytes, file: "fuzz.yaml")
        else { return }
        rewrites(imported.venue)
    }

    /// Parses the bytes as a `bluedot run` configuration file, then validates it as the daemon does.
    static func config(_ bytes: [UInt8]) {
        guard let configuration = try? ConfigurationFile.parse(String(decoding: bytes, as: UTF8.self),
                                                               file: "fuzz.conf")
        else { return }
        _ = try? configuration.validate(location: "fuzz.conf")
    }

    /// Reads the bytes as a GPX file (expat, then the GPX builder); the points of a file that reads are on the globe, at finite times, on a line
    /// of the file, and the path the GPX source would play is made without trapping.
    static func gpx(_ bytes: [UInt8]) {
        guard let document = try? GPXParser.parse(bytes, file: "fuzz.gpx") else { return }
        let points = document.tracks.flatMap { $0.segments.joined() } + document.routes.flatMap(\.points)
        for point in points {
            check(abs(point.latitude) <= 90 && abs(point.longitude) <= 180, "a point off the globe: \(point)")
            check(point.time?.isFinite ?? true, "a time that is not finite: \(point)")
            check((1...bytes.count + 1).contains(point.line), "a point on no line of the file: \(point)")
        }
        _ = document.firstPath()
    }

    /// What `bluedot venue import` does with a venue: write it, and it must load back unchanged.
    private static func rewrites(_ venue: Venue) {
        let text = VenueWriter.json(venue)
        do {
            let again = try VenueLoader.parse(Array(text.utf8), file: "fuzz-rewritten.venue.json")
            check(again == venue, "a written venue loads differently:\n\(text)")
        } catch {
            fatalError("a written venue does not load: \(error)\n\(text)")
        }
    }
}
