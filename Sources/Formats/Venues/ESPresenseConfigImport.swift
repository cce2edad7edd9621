import FoundationEssentials
import Positioning
import SystemIO

/// Turns an ESPresense-companion configuration (its `config.yaml`) into a BlueDot venue, so that the nodes an
/// ESPresense user has placed become the anchors of tag mode (`docs/formats.md`, "ESPresense").
///
/// What is read (the companion's `src/Models/Config.cs`); everything else (`mqtt`, `locators`, `filtering`,
/// `optimization`, `devices`, `map`, ...) is ignored:
/// - `floors[]`: `id`, `name`, `bounds: [[x, y, z], [x, y, z]]`, `rooms[]` with `id`, `name`,
///   `points: [[x, y], ...]`. Floors are numbered 0, 1, ... in file order, keep their name (else their id) and
///   stand at the lower z of their bounds; the venue's bounds enclose every floor's.
/// - `nodes[]`: `id`, `name`, `point: [x, y, z]` (absolute: z includes the floor's elevation), `floors: [...]`
///   (floor ids; all floors when absent), `enabled`, `stationary`. Each enabled, stationary node with a point
///   becomes an anchor whose id is the node's topic name: its `id` lower-cased, else `companionID(name)`, as the
///   companion matches `espresense/devices/<device>/<node>`. It stands on the first of its floors whose z range
///   holds it (else the first of its floors, with a note), at `z` above that floor (to the micrometre).
/// - `gps`: `latitude`, `longitude` and `rotation` (degrees clockwise from north of the +y axis, the companion's
///   own projection) become the venue's origin.
/// The configuration carries no path-loss values (absorption and `rx_adj_rssi` are set on the nodes over MQTT),
/// so the venue has BlueDot's uncalibrated model. The YAML is read by libyaml (`YAMLReader`). Errors name the
/// file, the line and the field path, or for the YAML's syntax the line and column.
public enum ESPresenseConfigImport {
    /// A venue made from a configuration, with one note per node left out or bent (`nodes[13] "VW EOS": not
    /// stationary, left out`): the importers' shared result.
    public typealias Imported = ImportedVenue

    /// Reads and converts the configuration at `path`; the venue is named `venueName`, else after the file.
    public static func load(path: String, venueName: String? = nil) throws(ESPresenseConfigError) -> Imported {
        let file = URL(fileURLWithPath: path).lastPathComponent
        let data: [UInt8]
        do { data = try WholeFile.read(path) } catch {
            throw ESPresenseConfigError(file: file, line: nil, path: "", message: "\(error)")
        }
        return try parse(data, file: file, venueName: venueName)
    }

    /// Converts configuration text; `file` names it in errors and, without `venueName`, names the venue.
    public static func parse(_ yaml: String, file: String, venueName: String? = nil)
        throws(ESPresenseConfigError) -> Imported
    {
        try parse(Array(yaml.utf8), file: file, venueName: venueName)
    }

    /// Converts a configuration file's bytes (UTF-8, or UTF-16 with a byte order mark), as `parse(_:file:)`.
    public static func parse(_ bytes: [UInt8], file: String, venueName: String? = nil)
        throws(ESPresenseConfigError) -> Imported
    {
        let root = YAMLField(node: try document(bytes, file: file), path: "", file: file)
        _ = try root.mapping()
        var plan = Plan()
        for (i, floor) in try (root.optional("floors")?.elements() ?? []).enumerated() {
            try plan.addFloor(floor, number: i)
        }
        try plan.qualifyRoomsSharedAcrossFloors()
        for (i, node) in try (root.optional("nodes")?.elements() ?? []).enumerated() {
            try plan.addNode(node, index: i)
        }
        guard !plan.anchors.isEmpty else {
            throw ESPresenseConfigError(file: file, line: root.node.line, path: "nodes",
                                        message: "no enabled, stationary node with a point")
        }
        let origin = try origin(root.optional("gps"), notes: &plan.notes)
        let venue = Venue(name: venueName ?? defaultName(file: file), origin: origin,
                          anchors: plan.anchors, floors: plan.floors, bounds: plan.bounds, rooms: plan.rooms)
        return Imported(venue: venue, notes: plan.notes)
    }

    /// The id ESPresense-companion gives a node, floor or room that has a `name` and no `id`: the name's words in
    /// lower snake case (`Upstairs Hallway` → `upstairs_hallway`, `LivingRoom` → `living_room`).
    ///
    /// Words are runs of ASCII letters and digits; inside one, a capital starts a new word after a non-capital,
    /// or before a non-capital when it follows capitals (`HTTPServer` → `http_server`). The firmware names its
    /// topics with `slugify(room)`, which lower-cases without splitting at capitals; the two agree unless the
    /// room name has capitals inside a word, where the companion (and so this import) needs the node's `id`.
    public static func companionID(_ name: String) -> String {
        var words: [String] = []
        var word: [Character] = []
        func flush() {
            guard !word.isEmpty else { return }
            var start = 0
            for i in 1..<word.count where word[i].isUppercase {
                let afterLower = !word[i - 1].isUppercase
                let beforeLower = i + 1 < word.count && word[i + 1].isLowercase
                if afterLower || beforeLower {
                    words.append(String(word[start..<i]).lowercased())
                    start = i
                }
            }
            words.append(String(word[start...]).lowercased())
            word.removeAll()
        }
        for c in name {
            if c.isASCII, c.isLetter || c.isNumber { word.append(c) } else { flush() }
        }
        flush()
        return words.joined(separator: "_")
    }

    /// The file name without `.yaml` or `.yml`.
    static func defaultName(file: String) -> String {
        for suffix in [".yaml", ".yml"] where file.hasSuffix(suffix) { return String(file.dropLast(suffix.count)) }
        return file
    }

    /// The first YAML document, its syntax errors located.
    static func document(_ bytes: [UInt8], file: String) throws(ESPresenseConfigError) -> YAMLNode {
        let parsed: YAMLNode?
        do throws(YAMLSyntaxError) {
            parsed = try YAMLReader.document(bytes)
        } catch {
            throw ESPresenseConfigError(yaml: error, file: file)
        }
        guard let parsed else {
            throw ESPresenseConfigError(file: file, line: nil, path: "", message: "no YAML document")
        }
        return parsed
    }

    /// `gps.latitude`, `gps.longitude` and `gps.rotation` as the venue's origin, when both coordinates are given.
    private static func origin(_ gps: YAMLField?, notes: inout [String]) throws(ESPresenseConfigError)
        -> Venue.Origin?
    {
        guard let gps else { return nil }
        _ = try gps.mapping()
        let latitude = try gps.optional("latitude")?.number(in: -90...90)
        let longitude = try gps.optional("longitude")?.number(in: -180...180)
        guard let latitude, let longitude else {
            if latitude != nil || longitude != nil {
                notes.append("gps: latitude and longitude go together; no origin")
            }
            return nil
        }
        return Venue.Origin(latitude: latitude, longitude: longitude,
                            bearingDegrees: try gps.optional("rotation")?.number() ?? 0)
    }
}

/// The venue as it is assembled from the configuration's floors and nodes.
private struct Plan {
    /// The floors, numbered in file order.
    var floors: [Venue.Floor] = []
    /// Each floor's id (lower-cased, for matching node floors) and z range.
    var floorKeys: [(id: String, z: ClosedRange<Double>?)] = []
    /// The union of the floors' bounds.
    var bounds: Venue.Bounds?
    /// Every floor's rooms.
    var rooms: [Venue.Room] = []
    /// Where each room came from, and its floor's id.
    var roomSources: [(field: YAMLField, floorID: String)] = []
    /// The nodes made anchors.
    var anchors: [Positioning.Anchor] = []
    /// The `nodes` index of each anchor id.
    var anchorIndex: [String: Int] = [:]
    /// What was left out or bent.
    var notes: [String] = []

    /// One floor and its rooms.
    mutating func addFloor(_ f: YAMLField, number: Int) throws(ESPresenseConfigError) {
        _ = try f.mapping()
        let id = try f.companionID()
        if let earlier = floorKeys.firstIndex(where: { $0.id == id.lowercased() }) {
            throw f.error("duplicate floor id \"\(id)\" (first at floors[\(earlier)])")
        }
        var z: ClosedRange<Double>?
        if let b = try f.optional("bounds") {
            let corners = try b.elements()
            guard corners.count == 2 else { throw b.error("expected [[x, y, z], [x, y, z]]") }
            let p = try corners[0].coordinates("[x, y, z]", counts: 2...3)
            let q = try corners[1].coordinates("[x, y, z]", counts: 2...3)
            let box = Venue.Bounds(minX: min(p[0], q[0]), minY: min(p[1], q[1]), maxX: max(p[0], q[0]),
                                   maxY: max(p[1], q[1]))
            bounds = bounds.map {
                Venue.Bounds(minX: min($0.minX, box.minX), minY: min($0.minY, box.minY),
                             maxX: max($0.maxX, box.maxX), maxY: max($0.maxY, box.maxY))
            } ?? box
            let (pz, qz) = (p.count > 2 ? p[2] : 0, q.count > 2 ? q[2] : 0)
            z = min(pz, qz)...max(pz, qz)
        }
        floors.append(Venue.Floor(floor: number, name: try f.optional("name")?.text() ?? id,
                                  elevationMeters: z?.lowerBound ?? 0))
        floorKeys.append((id.lowercased(), z))
        var firstOnFloor: [String: Int] = [:]
        for (j, r) in try (f.optional("rooms")?.elements() ?? []).enumerated() {
            _ = try r.mapping()
            let roomID = try r.companionID()
            if let earlier = firstOnFloor[roomID.lowercased()] {
                throw r.error("duplicate room id \"\(roomID)\" (first at \(f.path).rooms[\(earlier)])")
            }
            firstOnFloor[roomID.lowercased()] = j
            let points = try r.required("points")
            let ring = try points.elements().map { (p) throws(ESPresenseConfigError) in
                let xy = try p.coordinates("[x, y]", counts: 2...3)
                return Venue.PlanPoint(x: xy[0], y: xy[1])
            }
            if let problem = VenueRules.ringProblem(ring) { throw points.error(problem) }
            rooms.append(Venue.Room(id: roomID, name: try r.optional("name")?.text(), floor: number, polygon: ring))
            roomSources.append((r, id))
        }
    }

    /// Prefixes `<floor id, lower-cased>_` to the ids of rooms whose id recurs on another floor (the companion keys
    /// rooms per floor, BlueDot per venue); an id that still recurs is an error.
    mutating func qualifyRoomsSharedAcrossFloors() throws(ESPresenseConfigError) {
        var floorsOfID: [String: Set<Int>] = [:]
        for r in rooms { floorsOfID[r.id.lowercased(), default: []].insert(r.floor) }
        var first: [String: Int] = [:]
        for i in rooms.indices {
            if floorsOfID[rooms[i].id.lowercased()]!.count > 1 {
                rooms[i].id = roomSources[i].floorID.lowercased() + "_" + rooms[i].id
            }
            if let earlier = first[rooms[i].id] {
                throw roomSources[i].field.error(
                    "room id \"\(rooms[i].id)\" is also the id of \(roomSources[earlier].field.path)")
            }
            first[rooms[i].id] = i
        }
    }

    /// One node (`nodes[index]`): an anchor, or a note saying why it is left out.
    mutating func addNode(_ n: YAMLField, index: Int) throws(ESPresenseConfigError) {
        _ = try n.mapping()
        let id = try n.companionID().lowercased()
        let label = "\(n.path) \"\(try n.optional("name")?.text() ?? id)\""
        let leftOut = if try n.optional("enabled")?.bool() == false {
            "disabled"
        } else if try n.optional("stationary")?.bool() == false {
            "not stationary"
        } else if try n.optional("point") == nil {
            "no point"
        } else {
            nil as String?
        }
        if let leftOut {
            notes.append("\(label): \(leftOut), left out")
            return
        }
        let pointField = try n.required("point")
        let p = try pointField.coordinates("[x, y, z]", counts: 2...3)
        let z = p.count > 2 ? p[2] : 0
        var candidates: [Int] = []
        for f in try n.optional("floors")?.elements() ?? [] {
            let key = try f.text().lowercased()
            guard let k = floorKeys.firstIndex(where: { $0.id == key }) else {
                let known = floorKeys.map(\.id).joined(separator: ", ")
                throw f.error("no floor \"\(key)\""
                              + (known.isEmpty ? " (the configuration has no floors)" : " (floors: \(known))"))
            }
            candidates.append(k)
        }
        if candidates.isEmpty { candidates = Array(floorKeys.indices) }
        var floor = 0
        if let holding = candidates.first(where: { floorKeys[$0].z?.contains(z) ?? false }) {
            floor = holding
        } else if let k = candidates.first {
            floor = k
            if let range = floorKeys[k].z {
                notes.append("\(label): z \(z) is outside floor \(floorKeys[k].id) (\(range.lowerBound)..."
                             + "\(range.upperBound)); kept on it at \(z - range.lowerBound) m from its base")
            }
        }
        if let earlier = anchorIndex[id] {
            throw n.error("duplicate node id \"\(id)\" (first at nodes[\(earlier)])")
        }
        anchorIndex[id] = index
        // Height above the floor to the micrometre: 3.4 m on a floor at 3 m reads 0.4, not 0.3999999999999999.
        let elevation = floors.isEmpty ? 0 : floors[floor].elevationMeters
        let height = ((z - elevation) * 1e6).rounded() / 1e6
        anchors.append(Positioning.Anchor(id: id, x: p[0], y: p[1], z: height, floor: floor))
    }
}

extension YAMLField {
    /// The companion's id of a node, floor or room: its `id`, else `companionID(name)`.
    func companionID() throws(ESPresenseConfigError) -> String {
        if let id = try optional("id") {
            let text = try id.text()
            guard !text.isEmpty, !text.contains(where: { "/+#".contains($0) }) else {
                throw id.error("expected a non-empty id without '/', '+' or '#'")
            }
            return text
        }
        guard let name = try optional("name") else { throw error("needs a name or an id") }
        let id = ESPresenseConfigImport.companionID(try name.text())
        guard !id.isEmpty else { throw name.error("has no letters or digits to make an id of; give an id") }
        return id
    }
}
