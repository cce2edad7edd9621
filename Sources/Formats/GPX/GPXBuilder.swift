import BlueDotCore

/// Collects a GPX document as `XMLReader` (expat) walks it: tracks, segments, routes and their points. expat checks
/// that the XML is well formed; this checks that it is GPX, and stops at the first problem with its line and column.
final class GPXBuilder: XMLContentHandler {
    var document = GPXDocument()
    private(set) var sawRoot = false
    private var path: [String] = []
    private var text = ""
    private var point: GPXDocument.Point?

    func startElement(_ name: String, attributes: [String: String], at position: XMLReader.Position)
        throws(XMLReader.Failure)
    {
        if path.isEmpty {
            guard name == "gpx" else {
                throw XMLReader.Failure(position: position, message: "not a GPX file: the root element is <\(name)>")
            }
            sawRoot = true
        }
        // Elements count where GPX puts them, by their whole path: a <trkseg> outside a track is skipped like
        // any unknown element (its points too), so every track, segment and route written to exists.
        let within = Self.place(of: path)
        path.append(name)
        text = ""
        switch (within, name) {
        case (.root, "trk"): document.tracks.append(.init(name: nil, segments: []))
        case (.track, "trkseg"): document.tracks[document.tracks.count - 1].segments.append([])
        case (.root, "rte"): document.routes.append(.init(name: nil, points: []))
        case (.segment, "trkpt"), (.route, "rtept"):
            let latitude = try coordinate(attributes, "lat", name, limit: 90, at: position)
            let longitude = try coordinate(attributes, "lon", name, limit: 180, at: position)
            point = .init(latitude: latitude, longitude: longitude, line: position.line)
        default: break
        }
    }

    func characters(_ string: String) {
        text += string
    }

    func endElement(_ name: String, at position: XMLReader.Position) throws(XMLReader.Failure) {
        path.removeLast()
        let parent = path.last
        let within = Self.place(of: path)
        let value = Self.trimmed(text)
        switch (parent, name) {
        case ("trkpt", "ele") where point != nil, ("rtept", "ele") where point != nil:
            guard let ele = Double(value), ele.isFinite else {
                throw XMLReader.Failure(position: position, message: "<ele> \"\(value)\" is not a number")
            }
            point?.elevationMeters = ele
        case ("trkpt", "time") where point != nil, ("rtept", "time") where point != nil:
            guard let time = InternetTime.parse(value) else {
                throw XMLReader.Failure(position: position, message: "<time> \"\(value)\" is not an ISO 8601 time")
            }
            point?.time = time
        default: break
        }
        switch (within, name) {
        case (.segment, "trkpt"):
            if let point { document.tracks[document.tracks.count - 1].segments.mutateLast { $0.append(point) } }
            point = nil
        case (.route, "rtept"):
            if let point { document.routes[document.routes.count - 1].points.append(point) }
            point = nil
        case (.track, "name"): document.tracks[document.tracks.count - 1].name = value
        case (.route, "name"): document.routes[document.routes.count - 1].name = value
        default: break
        }
        text = ""
    }

    /// Where in a GPX document a path of open elements is.
    private enum Place { case root, track, segment, route, elsewhere }

    private static func place(of path: [String]) -> Place {
        switch path {
        case ["gpx"]: .root
        case ["gpx", "trk"]: .track
        case ["gpx", "trk", "trkseg"]: .segment
        case ["gpx", "rte"]: .route
        default: .elsewhere
        }
    }

    private func coordinate(_ attributes: [String: String], _ key: String, _ element: String, limit: Double,
                            at position: XMLReader.Position) throws(XMLReader.Failure) -> Double {
        guard let raw = attributes[key] else {
            throw XMLReader.Failure(position: position, message: "<\(element)> has no \(key) attribute")
        }
        guard let value = Double(Self.trimmed(raw)), value.isFinite else {
            throw XMLReader.Failure(position: position, message: "<\(element)> \(key) \"\(raw)\" is not a number")
        }
        guard abs(value) <= limit else {
            throw XMLReader.Failure(position: position, message: "<\(element)> \(key) \(raw) is outside ±\(Int(limit))")
        }
        return value
    }

    /// The text without the XML white space (space, tab, newline, carriage return) around it.
    private static func trimmed(_ text: String) -> String {
        let isSpace = { (c: Character) in c == " " || c == "\t" || c == "\n" || c == "\r" || c == "\r\n" }
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(text[first...last])
    }
}

extension Array {
    /// Changes the last element in place; does nothing when empty.
    mutating func mutateLast(_ change: (inout Element) -> Void) {
        guard !isEmpty else { return }
        change(&self[count - 1])
    }
}
