import BlueDotCore
import JSON
import Site

/// `GET /api/sites`: the sites a campus view shows (`docs/site.md`, "Many buildings"), each with its solver's status,
/// its bridge's state, whether it is stale, its venue's name and floors, and how many targets it answers for now; an
/// empty list when the daemon is not a campus view.
enum SitesDocument {
    static func json(_ campus: CampusSource?, targets: [Location], now: Double) -> String {
        guard let campus else { return "{\"sites\":[]}" }
        var counts: [String: Int] = [:]
        for fix in targets { if let site = fix.site { counts[site, default: 0] += 1 } }
        var out = "{\"broker\":" + JSONText.quoted(campus.client.options.url)
        out += ",\"connected\":" + (campus.client.isConnected ? "true" : "false")
        out += ",\"sites\":["
        for (i, site) in campus.sites.enumerated() {
            if i > 0 { out += "," }
            var w = JSONObjectWriter()
            w.string("site", site.site)
            w.string("solver", site.solver ?? "unknown")
            w.raw("bridge", site.bridgeUp.map { $0 ? "\"up\"" : "\"down\"" } ?? "null")
            w.raw("stale", site.isStale ? "true" : "false")
            w.raw("venue", site.venue.map { JSONText.quoted($0.name) } ?? "null")
            w.raw("venueError", site.venueError.map(JSONText.quoted) ?? "null")
            let floors = site.venue.map { venue in
                Set(venue.floors.map(\.floor) + venue.anchors.compactMap(\.floor) + venue.rooms.compactMap(\.floor))
                    .sorted()
            } ?? []
            w.raw("floors", "[" + floors.map(String.init).joined(separator: ",") + "]")
            w.raw("targets", "\(counts[site.site] ?? 0)")
            w.raw("locations", "\(site.locations)")
            w.raw("lastMessageAgo", site.lastMessageAt.map { JSONText.fixed(max(0, now - $0), decimals: 1) } ?? "null")
            out += w.finish()
        }
        return out + "]}"
    }
}
