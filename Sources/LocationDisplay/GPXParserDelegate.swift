import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Collects the document while `XMLParser` walks it; stops at the first problem and keeps it in `failure`.
final class GPXParserDelegate: NSObject, XMLParserDelegate {
    let file: String
    var document = GPXDocument()
    var failure: GPXError?
    var sawRoot = false
    private var path: [String] = []
    private var openedAt: [Int] = []
    private var text = ""
    private var point: GPXDocument.Point?

    init(file: String) {
        self.file = file
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        if path.isEmpty {
            guard name == "gpx" else { return fail(parser, "not a GPX file: the root element is <\(name)>") }
            sawRoot = true
        }
        let parent = path.last
        path.append(name)
        openedAt.append(parser.lineNumber)
        text = ""
        switch (parent, name) {
        case ("gpx", "trk"): document.tracks.append(.init(name: nil, segments: []))
        case ("trk", "trkseg"): document.tracks[document.tracks.count - 1].segments.append([])
        case ("gpx", "rte"): document.routes.append(.init(name: nil, points: []))
        case ("trkseg", "trkpt"), ("rte", "rtept"):
            guard let latitude = coordinate(attributes, "lat", name, limit: 90, parser),
                  let longitude = coordinate(attributes, "lon", name, limit: 180, parser) else { return }
            point = .init(latitude: latitude, longitude: longitude, line: parser.lineNumber)
        default: break
        }
    }

    func parserDidEndDocument(_ parser: XMLParser) {
        if let open = path.last {
            fail(parser, "malformed XML: <\(open)> opened at line \(openedAt.last ?? 0) is never closed")
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        text += string
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        // Some XMLParser back ends recover from mismatched tags; a GPX file with them is still broken.
        guard path.last == name else {
            let open = path.last.map { "<\($0)> opened at line \(openedAt.last ?? 0)" } ?? "nothing"
            return fail(parser, "malformed XML: </\(name)> closes \(open)")
        }
        path.removeLast()
        openedAt.removeLast()
        let parent = path.last
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        switch (parent, name) {
        case ("trkpt", "ele"), ("rtept", "ele"):
            guard let ele = Double(value), ele.isFinite else {
                return fail(parser, "<ele> \"\(value)\" is not a number")
            }
            point?.elevationMeters = ele
        case ("trkpt", "time"), ("rtept", "time"):
            guard let time = GPXParser.parseTime(value) else {
                return fail(parser, "<time> \"\(value)\" is not an ISO 8601 time")
            }
            point?.time = time
        case ("trkseg", "trkpt"):
            if let point { document.tracks[document.tracks.count - 1].segments.mutateLast { $0.append(point) } }
            point = nil
        case ("rte", "rtept"):
            if let point { document.routes[document.routes.count - 1].points.append(point) }
            point = nil
        case ("trk", "name"): document.tracks[document.tracks.count - 1].name = value
        case ("rte", "name"): document.routes[document.routes.count - 1].name = value
        default: break
        }
        text = ""
    }

    private func coordinate(_ attributes: [String: String], _ key: String, _ element: String, limit: Double,
                            _ parser: XMLParser) -> Double? {
        guard let raw = attributes[key] else {
            fail(parser, "<\(element)> has no \(key) attribute")
            return nil
        }
        guard let value = Double(raw.trimmingCharacters(in: .whitespaces)), value.isFinite else {
            fail(parser, "<\(element)> \(key) \"\(raw)\" is not a number")
            return nil
        }
        guard abs(value) <= limit else {
            fail(parser, "<\(element)> \(key) \(raw) is outside ±\(Int(limit))")
            return nil
        }
        return value
    }

    private func fail(_ parser: XMLParser, _ message: String) {
        if failure == nil { failure = GPXError(file: file, line: parser.lineNumber, message: message) }
        parser.abortParsing()
    }
}

extension Array {
    /// Changes the last element in place; does nothing when empty.
    mutating func mutateLast(_ change: (inout Element) -> Void) {
        guard !isEmpty else { return }
        change(&self[count - 1])
    }
}
