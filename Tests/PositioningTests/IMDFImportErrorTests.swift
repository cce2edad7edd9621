import BlueDotCore
import Formats
import Foundation
import Testing
@testable import Positioning

/// `bluedot venue import --imdf` on broken and unusual archives: errors name the file, the feature and the field,
/// and nothing crashes.
@Suite struct IMDFImportErrorTests {
    /// A level at ordinal 0 around (43.35, -8.42), about 80 m by 110 m.
    static let level = """
        {"id": "L0", "type": "Feature", "feature_type": "level", "geometry": {"type": "Polygon", "coordinates":
        [[[-8.4205, 43.3495], [-8.4195, 43.3495], [-8.4195, 43.3505], [-8.4205, 43.3505], [-8.4205, 43.3495]]]},
        "properties": {"ordinal": 0, "name": {"fr": "Rez-de-chaussée", "en-GB": "Ground floor"}, "short_name": {"en": "G"}}}
        """

    /// A unit on level L0 with the given geometry and properties.
    static func unit(_ id: String, geometry: String, properties: String = #""level_id": "L0""#) -> String {
        #"{"id": "\#(id)", "type": "Feature", "feature_type": "unit", "geometry": \#(geometry), "properties": {\#(properties)}}"#
    }

    /// A 10 m square-ish unit polygon at (x0, y0) degrees offset.
    static let square = #"{"type": "Polygon", "coordinates": [[[-8.4200, 43.3500], [-8.4199, 43.3500], [-8.4199, 43.3501], [-8.4200, 43.3501], [-8.4200, 43.3500]]]}"#

    static func collection(_ features: [String]) -> [UInt8] {
        Array(#"{"type": "FeatureCollection", "features": [\#(features.joined(separator: ",\n"))]}"#.utf8)
    }

    /// An in-memory archive of level.geojson (one level) and the given other files.
    static func archive(levels: [String] = [level], units: [String] = [], openings: [String]? = nil,
                        extra: [String: String] = [:]) -> IMDFArchive {
        var files = ["level.geojson": collection(levels), "unit.geojson": collection(units)]
        if let openings { files["opening.geojson"] = collection(openings) }
        for (name, text) in extra { files[name] = Array(text.utf8) }
        return IMDFArchive(name: "site.zip", files: files)
    }

    /// The import error's description, or nil when the archive imports.
    func failure(_ archive: IMDFArchive) -> String? {
        do {
            _ = try IMDFImport.convert(archive)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func errorsNameFileFeatureAndField() {
        let badPoint = #"{"type": "Polygon", "coordinates": [[[-8.42, 43.35], [-8.4199, 43.35], [-8.4199, 43.3501], [43.3501], [-8.42, 43.35]]]}"#
        #expect(failure(Self.archive(units: [Self.unit("0a1b", geometry: badPoint)]))
            == "unit.geojson: feature 0a1b: geometry.coordinates[0][3]: expected [lon, lat]")
        let swapped = #"{"type": "Polygon", "coordinates": [[[43.35, -8.42], [43.35, -8.4199], [43.3501, -98.4199], [43.35, -8.42]]]}"#
        #expect(failure(Self.archive(units: [Self.unit("u2", geometry: swapped)]))
            == "unit.geojson: feature u2: geometry.coordinates[0][2]: expected [lon, lat] in degrees, got [43.3501, -98.4199]")
        #expect(failure(Self.archive(units: [Self.unit("u3", geometry: Self.square, properties: #""level_id": "L9""#)]))
            == "unit.geojson: feature u3: properties.level_id: no level \"L9\" in level.geojson")
        #expect(failure(Self.archive(units: [Self.unit("u4", geometry: Self.square, properties: #""name": "x""#)]))
            == "unit.geojson: feature u4: properties.level_id: missing")
        #expect(failure(Self.archive(units: [Self.unit("u5", geometry: #"{"type": "Point", "coordinates": [-8.42, 43.35]}"#)]))
            == "unit.geojson: feature u5: geometry.type: expected \"Polygon\" or \"MultiPolygon\", got \"Point\"")
        let twoCorners = #"{"type": "Polygon", "coordinates": [[[-8.42, 43.35], [-8.4199, 43.35], [-8.42, 43.35]]]}"#
        #expect(failure(Self.archive(units: [Self.unit("u6", geometry: twoCorners)]))
            == "unit.geojson: feature u6: geometry.coordinates[0]: expected at least 3 points, got 2")
        #expect(failure(Self.archive(units: [Self.unit("u7", geometry: Self.square, properties: #""level_id": "L0", "name": 7"#)]))
            == "unit.geojson: feature u7: properties.name: expected a string or a label object ({\"en\": \"...\"}), got a number")
        #expect(failure(Self.archive(units: [Self.unit("u8", geometry: Self.square), Self.unit("u8", geometry: Self.square)]))
            == "unit.geojson: feature u8: id: duplicate room id \"u8\" (first from feature u8)")
        let noOrdinal = Self.level.replacingOccurrences(of: #""ordinal": 0"#, with: #""ordinal": 0.5"#)
        #expect(failure(Self.archive(levels: [noOrdinal]))
            == "level.geojson: feature L0: properties.ordinal: expected an integer, got 0.5")
        let door = #"{"id": "d1", "type": "Feature", "feature_type": "opening", "geometry": {"type": "LineString", "coordinates": [[-8.42, 43.35]]}, "properties": {"category": "pedestrian", "level_id": "L0"}}"#
        #expect(failure(Self.archive(openings: [door]))
            == "opening.geojson: feature d1: geometry.coordinates: expected at least 2 points, got 1")
        let anonymous = #"{"type": "Feature", "geometry": null, "properties": {}}"#
        #expect(failure(Self.archive(units: [anonymous])) == "unit.geojson: features[0]: id: missing")
    }

    @Test func errorsOfWholeFiles() throws {
        #expect(failure(IMDFArchive(name: "site.zip", files: [:])) == "site.zip: no level.geojson in the archive")
        #expect(failure(IMDFArchive(name: "site", files: ["level.geojson": Array("{\"type\": \"FeatureCollection\",\n \"features\": [}".utf8)]))
            == "level.geojson: line 2, column 15: value: expected a number")
        #expect(failure(IMDFArchive(name: "site", files: ["level.geojson": Array(#"{"type": "Feature"}"#.utf8)]))
            == "level.geojson: type: expected \"FeatureCollection\", got \"Feature\"")
        #expect(failure(IMDFArchive(name: "site", files: ["level.geojson": Self.collection([])]))
            == "level.geojson: features: no level")
        #expect(failure(Self.archive(extra: ["manifest.json": #"{"language": 3}"#])) == "manifest.json: language: expected a string, got a number")

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imdf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let notZip = directory.appendingPathComponent("venue.zip")
        try Data("PK\u{3}\u{4} this is not a zip archive".utf8).write(to: notZip)
        #expect(throws: VenueImportError.self) { try IMDFImport.load(path: notZip.path) }
        do {
            _ = try IMDFImport.load(path: notZip.path)
        } catch {
            #expect(error.file == "venue.zip" && error.message.hasPrefix("not a readable zip archive"))
        }
        do {
            _ = try IMDFImport.load(path: directory.appendingPathComponent("absent").path)
        } catch {
            #expect(error.description.hasPrefix("absent: cannot read "))
        }
        // A folder without the archive's files.
        #expect((try? IMDFImport.load(path: directory.path)) == nil)
    }

    /// Random truncations and byte flips of the real archive's files: errors, never a crash.
    @Test func damagedFilesNeverCrash() throws {
        let names = ["venue.geojson", "level.geojson", "unit.geojson", "opening.geojson", "footprint.geojson"]
        var files: [String: [UInt8]] = [:]
        for name in names { files[name] = Fixtures.bytes("\(IMDFImportTests.folder)/\(name)") }
        var generator = SplitMix64(seed: 20_094)
        var failures = 0
        for trial in 0..<200 {
            var damaged = files
            let name = names[trial % names.count]
            var bytes = damaged[name] ?? []
            if trial % 2 == 0 {
                bytes = Array(bytes.prefix(Int(generator.next() % UInt64(bytes.count + 1))))
            } else {
                for _ in 0..<4 {
                    let i = Int(generator.next() % UInt64(max(bytes.count, 1)))
                    if i < bytes.count { bytes[i] = UInt8(truncatingIfNeeded: generator.next()) }
                }
            }
            damaged[name] = bytes
            do {
                let v = try IMDFImport.convert(IMDFArchive(name: "mall", files: damaged)).venue
                _ = try VenueLoader.parse(Array(VenueWriter.json(v).utf8), file: "v.json")
            } catch {
                failures += 1
            }
        }
        #expect(failures > 50)
    }

    @Test func labelsAndMultiPolygons() throws {
        // `en-GB` before French; a MultiPolygon unit is one room per polygon, all named alike; holes kept.
        let two = #"{"type": "MultiPolygon", "coordinates": [[[[-8.4200, 43.3500], [-8.4199, 43.3500], [-8.4199, 43.3501], [-8.4200, 43.3500]]], [[[-8.4202, 43.3500], [-8.4201, 43.3500], [-8.4201, 43.3501], [-8.4202, 43.3500]]]]}"#
        let named = Self.unit("shop", geometry: two, properties: #""level_id": "L0", "name": {"es": "Tienda", "gl": "Tenda"}"#)
        let manifest = #"{"version": "1.0.0", "language": "gl"}"#
        let v = try IMDFImport.convert(Self.archive(units: [named], extra: ["manifest.json": manifest])).venue
        #expect(v.floors == [Venue.Floor(floor: 0, name: "Ground floor")])
        #expect(v.rooms.map(\.id) == ["shop:1", "shop:2"])
        #expect(v.rooms.allSatisfy { $0.name == "Tenda" && $0.floor == 0 && $0.polygon.count == 4 })
        // Without a venue feature the origin is the centroid of the level, to 1e-7 degrees, and a note says so.
        let imported = try IMDFImport.convert(Self.archive(units: [named]))
        #expect(imported.venue.origin == Venue.Origin(latitude: 43.35, longitude: -8.42))
        #expect(imported.notes == ["origin: the centroid of the levels (the venue has no display_point)"])
        #expect(imported.venue.rooms[0].name == "Tienda")  // no manifest: alphabetically first
        #expect(imported.venue.name == "site")
        // Levels sharing an ordinal share a floor, named after the first, with a note.
        let annex = Self.level.replacingOccurrences(of: #""id": "L0""#, with: #""id": "A0""#)
            .replacingOccurrences(of: #""en-GB": "Ground floor""#, with: #""en": "Annex""#)
        let shared = try IMDFImport.convert(Self.archive(levels: [Self.level, annex]))
        #expect(shared.venue.floors == [Venue.Floor(floor: 0, name: "Ground floor")])
        #expect(shared.notes.contains("level.geojson: levels L0 and A0 share ordinal 0; floor 0 is named after the first (Ground floor)"))
    }

    /// `bluedot venue import --imdf` end to end, when the binary has been built beside the tests.
    @Test(.enabled(if: Self.bluedot != nil)) func commandLine() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imdf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("mall.venue.json").path
        let ok = try Self.run(["venue", "import", "--imdf", Fixtures.path(IMDFImportTests.zipFile), "-o", out])
        #expect(ok.status == 0)
        #expect(ok.stderr.contains("\(out): 0 anchors, 4 floors, 9 rooms, 4 openings from "))
        let v = try VenueLoader.load(path: out)
        #expect(v == (try IMDFImport.load(path: Fixtures.path(IMDFImportTests.zipFile))).venue)

        let broken = directory.appendingPathComponent("broken")
        try FileManager.default.createDirectory(at: broken, withIntermediateDirectories: true)
        try Data(Self.collection([Self.level]) + []).write(to: broken.appendingPathComponent("level.geojson"))
        try Data(Self.collection([Self.unit("u1", geometry: Self.square, properties: #""level_id": "L7""#)]))
            .write(to: broken.appendingPathComponent("unit.geojson"))
        let bad = try Self.run(["venue", "import", "--imdf", broken.path, "-o", out])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("unit.geojson: feature u1: properties.level_id: no level \"L7\" in level.geojson"))
        let both = try Self.run(["venue", "import", "--imdf", broken.path, "--geojson", out, "-o", out])
        #expect(both.status != 0 && both.stderr.contains("give one source to import"))
    }

    /// The `bluedot` binary beside the test bundle, when built.
    static let bluedot: String? = {
        let candidates = [Bundle.main.executableURL?.deletingLastPathComponent(),
                          Bundle.main.bundleURL.deletingLastPathComponent(), Bundle.main.bundleURL]
            .compactMap { $0?.appendingPathComponent("bluedot").path }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Runs `bluedot` with `arguments`; its exit status and standard error.
    static func run(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(bluedot))
        process.arguments = arguments
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
