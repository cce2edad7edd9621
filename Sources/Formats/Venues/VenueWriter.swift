import BlueDotCore
import JSON
import Positioning

/// Writes a venue as JSON that `VenueLoader` reads back to an equal venue (e.g. to save a calibrated venue).
///
/// Stable layout: top-level keys in the order name, origin, model, anchors, floors, bounds, rooms, openings,
/// radius, wallLoss (only when fitted); one anchor, floor, room and opening per line; keys within them in a fixed
/// order (anchors: id, x, y, z, floor, measuredPower, pathLossExponent, shadowingSigma, calibration, the last four
/// only when the anchor has them; rooms: id, name, floor, polygon, holes, exit, name and holes only when present and
/// exit only when true; openings: id, floor, category, line, category only when present; radius: moving, static,
/// each with probability and bands). `rooms`, `openings` and `radius` are left out when empty. Numbers use Swift's
/// shortest round-trip form, so values survive a round trip exactly. The venue-wide `shadowingSigma` is always written.
public enum VenueWriter {
    /// The venue as JSON text ending in a newline. Plan image paths inside `directory` (the folder the file will be
    /// written to) are written relative to it, as the loader resolves them.
    public static func json(_ venue: Venue, relativeTo directory: String? = nil) -> String {
        var members: [String] = ["\"name\": " + JSONText.quoted(venue.name)]
        if let o = venue.origin {
            members.append("\"origin\": {\"lat\": \(num(o.latitude)), \"lon\": \(num(o.longitude)), "
                + "\"bearing\": \(num(o.bearingDegrees))}")
        }
        let m = venue.model
        members.append("\"model\": {\"measuredPower\": \(num(m.measuredPowerDBm)), "
            + "\"pathLossExponent\": \(num(m.pathLossExponent)), \"shadowingSigma\": \(num(m.shadowingSigmaDB))}")
        members.append("\"anchors\": " + list(venue.anchors.map(anchor)))
        if !venue.floors.isEmpty {
            members.append("\"floors\": " + list(venue.floors.map { floor($0, relativeTo: directory) }))
        }
        if let b = venue.bounds { members.append("\"bounds\": " + bounds(b)) }
        if !venue.rooms.isEmpty { members.append("\"rooms\": " + list(venue.rooms.map(room))) }
        if !venue.openings.isEmpty { members.append("\"openings\": " + list(venue.openings.map(opening))) }
        if !venue.radius.isEmpty { members.append("\"radius\": " + radius(venue.radius)) }
        if let loss = venue.wallLossDB { members.append("\"wallLoss\": \(num(loss))") }
        return "{\n  " + members.joined(separator: ",\n  ") + "\n}\n"
    }

    /// One anchor object on one line.
    static func anchor(_ a: Anchor) -> String {
        var s = "{\"id\": \(JSONText.quoted(a.id)), \"x\": \(num(a.x)), \"y\": \(num(a.y)), \"z\": \(num(a.z)), "
        s += "\"floor\": \(a.floor)"
        if let p = a.measuredPowerDBm { s += ", \"measuredPower\": \(num(p))" }
        if let n = a.pathLossExponent { s += ", \"pathLossExponent\": \(num(n))" }
        if let sigma = a.shadowingSigmaDB { s += ", \"shadowingSigma\": \(num(sigma))" }
        if let c = a.calibration {
            s += ", \"calibration\": {\"source\": \(JSONText.quoted(c.source.rawValue)), \"samples\": \(c.samples), "
                + "\"levelSigma\": \(num(c.uncertainty.levelSigmaDB)), \"exponentSigma\": \(num(c.uncertainty.exponentSigma))}"
        }
        return s + "}"
    }

    /// One floor object on one line.
    static func floor(_ f: Venue.Floor, relativeTo directory: String?) -> String {
        var s = "{\"floor\": \(f.floor)"
        if let name = f.name { s += ", \"name\": \(JSONText.quoted(name))" }
        s += ", \"elevation\": \(num(f.elevationMeters))"
        if f.planImage != nil || f.planBounds != nil {
            var plan: [String] = []
            if var image = f.planImage {
                if let directory {
                    let prefix = directory.hasSuffix("/") ? directory : directory + "/"
                    if image.hasPrefix(prefix) { image = String(image.dropFirst(prefix.count)) }
                }
                plan.append("\"image\": \(JSONText.quoted(image))")
            }
            if let b = f.planBounds { plan.append("\"bounds\": \(bounds(b))") }
            s += ", \"plan\": {" + plan.joined(separator: ", ") + "}"
        }
        return s + "}"
    }

    /// One room object on one line.
    static func room(_ r: Venue.Room) -> String {
        var s = "{\"id\": \(JSONText.quoted(r.id))"
        if let name = r.name { s += ", \"name\": \(JSONText.quoted(name))" }
        s += ", \"floor\": \(r.floor), \"polygon\": \(ring(r.polygon))"
        if !r.holes.isEmpty { s += ", \"holes\": [" + r.holes.map(ring).joined(separator: ", ") + "]" }
        if r.exit { s += ", \"exit\": true" }
        return s + "}"
    }

    /// One opening object on one line.
    static func opening(_ o: Venue.Opening) -> String {
        var s = "{\"id\": \(JSONText.quoted(o.id)), \"floor\": \(o.floor)"
        if let category = o.category { s += ", \"category\": \(JSONText.quoted(category))" }
        return s + ", \"line\": \(ring(o.line))}"
    }

    /// The radius calibrations, one mode per line.
    static func radius(_ r: RadiusCalibrations) -> String {
        let modes = RadiusCalibration.Mode.allCases.compactMap { mode in
            r[mode].map { c in
                let bands = c.bands.map {
                    "{\"anchors\": \($0.minimumAnchors), \"scale\": \(num($0.scale)), \"scores\": \($0.scores)}"
                }
                return "\"\(mode.rawValue)\": {\"probability\": \(num(c.probability)), \"bands\": ["
                    + bands.joined(separator: ", ") + "]}"
            }
        }
        return "{\n    " + modes.joined(separator: ",\n    ") + "\n  }"
    }

    /// `[[x, y], ...]`.
    static func ring(_ points: [Venue.PlanPoint]) -> String {
        "[" + points.map { "[\(num($0.x)), \(num($0.y))]" }.joined(separator: ", ") + "]"
    }

    /// `[[minX, minY], [maxX, maxY]]`.
    static func bounds(_ b: Venue.Bounds) -> String {
        "[[\(num(b.minX)), \(num(b.minY))], [\(num(b.maxX)), \(num(b.maxY))]]"
    }

    /// A JSON array with one element per line, indented under a top-level key.
    private static func list(_ elements: [String]) -> String {
        elements.isEmpty ? "[]" : "[\n    " + elements.joined(separator: ",\n    ") + "\n  ]"
    }

    /// A number in shortest round-trip form.
    private static func num(_ x: Double) -> String { JSONText.shortest(x) }
}
