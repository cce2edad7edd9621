import FoundationEssentials
import JSON
import Positioning
import SystemIO

/// Reads and validates venue files (`docs/formats.md`, "Venue file").
///
/// Every rejection is a `VenueError` naming the file, the JSON path and the problem. Checked: types of every
/// known field, finite numbers, required anchor `id`/`x`/`y`, duplicate anchor, room and opening ids and floor
/// numbers, anchors, rooms and openings on floors the `floors` list does not have, room rings of fewer than three
/// points and opening lines of fewer than two (`VenueRules`), bounds
/// with min > max, path-loss exponents and shadowing sigmas that are not positive, latitude/longitude ranges.
/// Unknown keys are ignored. Relative plan image paths are resolved against the venue file's folder.
public enum VenueLoader {
    /// Loads the venue file at `path`.
    public static func load(path: String) throws(VenueError) -> Venue {
        let url = URL(fileURLWithPath: path)
        let data: [UInt8]
        do { data = try WholeFile.read(path) } catch {
            throw VenueError(file: url.lastPathComponent, path: "", message: "\(error)")
        }
        return try parse(data, file: url.lastPathComponent,
                         baseDirectory: url.deletingLastPathComponent().path)
    }

    /// Parses venue JSON; `file` names it in errors and `baseDirectory` (if any) resolves relative plan images.
    public static func parse(_ utf8: [UInt8], file: String, baseDirectory: String? = nil) throws(VenueError) -> Venue {
        let document: JSONValue
        do {
            document = try JSONValue.parse(utf8)
        } catch {
            let (line, column) = position(of: error.offset ?? 0, in: utf8)
            throw VenueError(file: file, path: "line \(line), column \(column)", message: error.message)
        }
        let root = JSONCursor(value: document, path: "", file: file)
        _ = try root.members()
        let name = try root.optional("name")?.string() ?? defaultName(file: file)
        let model = try pathLossModel(try root.optional("model"))
        let floors = try (try root.optional("floors")?.elements() ?? []).map { (c) throws(VenueError) in
            try floor(c, baseDirectory: baseDirectory)
        }
        try checkUniqueFloors(floors, root: root)
        let anchorCursors = try root.required("anchors").elements()
        var anchors: [Anchor] = []
        var firstIndex: [String: Int] = [:]
        for (i, cursor) in anchorCursors.enumerated() {
            let a = try anchor(cursor)
            if let earlier = firstIndex[a.id] {
                throw VenueError(file: file, path: "anchors[\(i)].id",
                                 message: "duplicate anchor id \"\(a.id)\" (first at anchors[\(earlier)])")
            }
            if !floors.isEmpty, !floors.contains(where: { $0.floor == a.floor }) {
                throw VenueError(file: file, path: "anchors[\(i)].floor",
                                 message: "floor \(a.floor) is not in floors")
            }
            firstIndex[a.id] = i
            anchors.append(a)
        }
        let area = try root.optional("bounds").map { (c) throws(VenueError) in try bounds(c) }
        var venue = Venue(name: name, origin: try origin(try root.optional("origin")), model: model, anchors: anchors,
                          floors: floors, bounds: area, rooms: try rooms(try root.optional("rooms"), floors: floors),
                          openings: try openings(try root.optional("openings"), floors: floors))
        venue.radius = try radius(try root.optional("radius"))
        venue.wallLossDB = try root.optional("wallLoss").map { (c) throws(VenueError) in try c.number(in: 0...30) }
        return venue
    }

    /// `radius`: per target model (`moving`, `static`), `{"probability", "bands": [{"anchors", "scale",
    /// "scores"}]}` with bands of distinct anchor counts, positive scales (`RadiusCalibration`).
    static func radius(_ cursor: JSONCursor?) throws(VenueError) -> RadiusCalibrations {
        guard let cursor else { return RadiusCalibrations() }
        var result = RadiusCalibrations()
        for key in try cursor.members().keys.sorted() {
            guard let mode = RadiusCalibration.Mode(rawValue: key) else {
                throw VenueError(file: cursor.file, path: "\(cursor.path).\(key)",
                                 message: "expected a target model, moving or static")
            }
            let c = try cursor.required(key)
            _ = try c.members()
            let p = try c.optional("probability")?.number(in: 0.01...0.99) ?? AccuracyRadius.probability
            let bandCursors = try c.required("bands").elements()
            guard !bandCursors.isEmpty else { throw c.error("bands: expected at least one band") }
            var bands: [RadiusCalibration.Band] = []
            for b in bandCursors {
                _ = try b.members()
                let anchors = try b.required("anchors").integer()
                guard anchors >= 0 else { throw b.error("anchors: expected 0 or more, got \(anchors)") }
                if bands.contains(where: { $0.minimumAnchors == anchors }) {
                    throw b.error("anchors: a second band from \(anchors) anchors")
                }
                bands.append(RadiusCalibration.Band(minimumAnchors: anchors,
                                                    scale: try b.required("scale").positiveNumber(),
                                                    scores: try b.optional("scores")?.integer() ?? 0))
            }
            result[mode] = RadiusCalibration(probability: p, bands: bands)
        }
        return result
    }

    /// The openings: unique ids, each on a floor of `floors` when the venue lists floors.
    static func openings(_ cursor: JSONCursor?, floors: [Venue.Floor]) throws(VenueError) -> [Venue.Opening] {
        guard let cursor else { return [] }
        var openings: [Venue.Opening] = []
        var firstIndex: [String: Int] = [:]
        for (i, c) in try cursor.elements().enumerated() {
            _ = try c.members()
            let lineCursor = try c.required("line")
            var line: [Venue.PlanPoint] = []
            for p in try lineCursor.elements() { line.append(try point(p)) }
            if let problem = VenueRules.lineProblem(line) { throw lineCursor.error(problem) }
            let o = Venue.Opening(id: try c.required("id").string(nonEmpty: true),
                                  floor: try c.optional("floor")?.integer() ?? 0,
                                  category: try c.optional("category")?.string(), line: line)
            if let earlier = firstIndex[o.id] {
                throw VenueError(file: c.file, path: "\(c.path).id",
                                 message: "duplicate opening id \"\(o.id)\" (first at openings[\(earlier)])")
            }
            if !floors.isEmpty, !floors.contains(where: { $0.floor == o.floor }) {
                throw VenueError(file: c.file, path: "\(c.path).floor", message: "floor \(o.floor) is not in floors")
            }
            firstIndex[o.id] = i
            openings.append(o)
        }
        return openings
    }

    /// The rooms: unique ids, each on a floor of `floors` when the venue lists floors.
    static func rooms(_ cursor: JSONCursor?, floors: [Venue.Floor]) throws(VenueError) -> [Venue.Room] {
        guard let cursor else { return [] }
        var rooms: [Venue.Room] = []
        var firstIndex: [String: Int] = [:]
        for (i, c) in try cursor.elements().enumerated() {
            let r = try room(c)
            if let earlier = firstIndex[r.id] {
                throw VenueError(file: c.file, path: "\(c.path).id",
                                 message: "duplicate room id \"\(r.id)\" (first at rooms[\(earlier)])")
            }
            if !floors.isEmpty, !floors.contains(where: { $0.floor == r.floor }) {
                throw VenueError(file: c.file, path: "\(c.path).floor", message: "floor \(r.floor) is not in floors")
            }
            firstIndex[r.id] = i
            rooms.append(r)
        }
        return rooms
    }

    /// One room: id, optional name and floor (0), the outer ring, optional holes and `exit` (false).
    static func room(_ c: JSONCursor) throws(VenueError) -> Venue.Room {
        _ = try c.members()
        let holes = try (try c.optional("holes")?.elements() ?? []).map { (h) throws(VenueError) in try ring(h) }
        return Venue.Room(id: try c.required("id").string(nonEmpty: true), name: try c.optional("name")?.string(),
                          floor: try c.optional("floor")?.integer() ?? 0, polygon: try ring(try c.required("polygon")),
                          holes: holes, exit: try c.optional("exit")?.bool() ?? false)
    }

    /// A ring `[[x, y], ...]` of at least three points, a closing repeat of the first not counted.
    static func ring(_ c: JSONCursor) throws(VenueError) -> [Venue.PlanPoint] {
        var points: [Venue.PlanPoint] = []
        for p in try c.elements() { points.append(try point(p)) }
        if let problem = VenueRules.ringProblem(points) { throw c.error(problem) }
        return points
    }

    /// `[x, y]`, finite numbers.
    static func point(_ c: JSONCursor) throws(VenueError) -> Venue.PlanPoint {
        guard case .array(let xy) = c.value, xy.count == 2 else { throw c.error("expected [x, y]") }
        let pair = try c.elements()
        return Venue.PlanPoint(x: try pair[0].number(), y: try pair[1].number())
    }

    /// The venue-wide model: the formats' uncalibrated default for whatever is not given.
    static func pathLossModel(_ cursor: JSONCursor?) throws(VenueError) -> PathLossModel {
        var model = PathLossModel.uncalibrated
        guard let cursor else { return model }
        _ = try cursor.members()
        if let c = try cursor.optional("measuredPower") { model.measuredPowerDBm = try c.number() }
        if let c = try cursor.optional("pathLossExponent") { model.pathLossExponent = try c.positiveNumber() }
        if let c = try cursor.optional("shadowingSigma") { model.shadowingSigmaDB = try c.positiveNumber() }
        return model
    }

    /// One anchor with its optional model overrides.
    static func anchor(_ c: JSONCursor) throws(VenueError) -> Anchor {
        _ = try c.members()
        var anchor = Anchor(id: try c.required("id").string(nonEmpty: true),
                            x: try c.required("x").number(), y: try c.required("y").number(),
                            z: try c.optional("z")?.number() ?? 0, floor: try c.optional("floor")?.integer() ?? 0,
                            measuredPowerDBm: try c.optional("measuredPower")?.number(),
                            pathLossExponent: try c.optional("pathLossExponent")?.positiveNumber(),
                            shadowingSigmaDB: try c.optional("shadowingSigma")?.positiveNumber())
        anchor.calibration = try c.optional("calibration").map(calibration)
        return anchor
    }

    /// `{"source": "survey"|"learned", "samples": n, "levelSigma": dB, "exponentSigma": s}`.
    static func calibration(_ c: JSONCursor) throws(VenueError) -> AnchorCalibration {
        _ = try c.members()
        let sourceCursor = try c.required("source")
        let name = try sourceCursor.string()
        guard let source = AnchorCalibration.Source(rawValue: name) else {
            let known = AnchorCalibration.Source.allCases.map(\.rawValue).joined(separator: ", ")
            throw sourceCursor.error("unknown source \"\(name)\" (known: \(known))")
        }
        let samplesCursor = try c.required("samples")
        let samples = try samplesCursor.integer()
        guard samples >= 0 else { throw samplesCursor.error("expected 0 or more, got \(samples)") }
        return AnchorCalibration(
            source: source, samples: samples,
            uncertainty: ModelUncertainty(levelSigmaDB: try c.required("levelSigma").number(in: 0...100),
                                          exponentSigma: try c.required("exponentSigma").number(in: 0...10)))
    }

    /// `[[minX, minY], [maxX, maxY]]` with min <= max.
    static func bounds(_ c: JSONCursor) throws(VenueError) -> Venue.Bounds {
        let corners = try c.elements()
        guard corners.count == 2 else { throw c.error("expected [[minX, minY], [maxX, maxY]]") }
        var xy: [Double] = []
        for corner in corners {
            let pair = try corner.elements()
            guard pair.count == 2 else { throw corner.error("expected [x, y]") }
            xy.append(try pair[0].number())
            xy.append(try pair[1].number())
        }
        guard xy[0] <= xy[2] else { throw c.error("min x \(xy[0]) is greater than max x \(xy[2])") }
        guard xy[1] <= xy[3] else { throw c.error("min y \(xy[1]) is greater than max y \(xy[3])") }
        return Venue.Bounds(minX: xy[0], minY: xy[1], maxX: xy[2], maxY: xy[3])
    }

    /// One floor, its plan image resolved against `baseDirectory`.
    static func floor(_ c: JSONCursor, baseDirectory: String?) throws(VenueError) -> Venue.Floor {
        _ = try c.members()
        var image: String?
        var planBounds: Venue.Bounds?
        if let plan = try c.optional("plan") {
            _ = try plan.members()
            image = try plan.optional("image")?.string(nonEmpty: true)
            planBounds = try plan.optional("bounds").map { (b) throws(VenueError) in try bounds(b) }
        }
        if let relative = image, !relative.hasPrefix("/"), let baseDirectory {
            image = URL(fileURLWithPath: baseDirectory).appendingPathComponent(relative).standardizedFileURL.path
        }
        return Venue.Floor(floor: try c.required("floor").integer(), name: try c.optional("name")?.string(),
                           elevationMeters: try c.optional("elevation")?.number() ?? 0, planImage: image,
                           planBounds: planBounds)
    }

    /// The geographic origin: latitude, longitude and an optional bearing (0 when absent).
    static func origin(_ c: JSONCursor?) throws(VenueError) -> Venue.Origin? {
        guard let c else { return nil }
        _ = try c.members()
        return Venue.Origin(latitude: try c.required("lat").number(in: -90...90),
                            longitude: try c.required("lon").number(in: -180...180),
                            bearingDegrees: try c.optional("bearing")?.number() ?? 0)
    }

    /// Rejects two floors with the same number.
    private static func checkUniqueFloors(_ floors: [Venue.Floor], root: JSONCursor) throws(VenueError) {
        var seen: [Int: Int] = [:]
        for (i, f) in floors.enumerated() {
            if let earlier = seen[f.floor] {
                throw VenueError(file: root.file, path: "floors[\(i)].floor",
                                 message: "duplicate floor \(f.floor) (first at floors[\(earlier)])")
            }
            seen[f.floor] = i
        }
    }

    /// The name used when the file has none: the file name without `.venue.json` / `.json`.
    static func defaultName(file: String) -> String {
        for suffix in [".venue.json", ".json"] where file.hasSuffix(suffix) {
            return String(file.dropLast(suffix.count))
        }
        return file
    }

    /// 1-based line and column (in bytes) of a byte offset (also the device registry's, `Devices`).
    public static func position(of offset: Int, in utf8: [UInt8]) -> (line: Int, column: Int) {
        var line = 1
        var lineStart = 0
        for i in 0..<min(offset, utf8.count) where utf8[i] == 0x0A {
            line += 1
            lineStart = i + 1
        }
        return (line, offset - lineStart + 1)
    }
}
