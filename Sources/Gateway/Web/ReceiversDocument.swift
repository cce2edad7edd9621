import BlueDotCore
import JSON
import Site

/// `GET /api/receivers`: the site's receivers as the solver sees them (`docs/site.md`), for the map and for
/// monitoring; an empty list when the gateway is not a site's solver.
enum ReceiversDocument {
    /// A receiver is drawn offline once its status says so, or when nothing (sightings, status, its telemetry
    /// every 10 s) came from it for this long, seconds.
    static let silentAfterSeconds = 25.0

    static func json(_ site: SiteSource?, now: Double) -> String {
        guard let site else { return "{\"site\":null,\"receivers\":[]}" }
        var out = "{\"site\":" + JSONText.quoted(site.topics.site)
        out += ",\"broker\":" + JSONText.quoted(site.client.options.url)
        out += ",\"connected\":" + (site.client.isConnected ? "true" : "false")
        out += ",\"receivers\":["
        for (i, r) in site.receivers.enumerated() {
            if i > 0 { out += "," }
            let silent = r.lastMessage.map { now - $0 > silentAfterSeconds } ?? true
            // Offline by its status (the last will), or silent behind a broken bridge for all its `online`.
            let online = r.status != "offline" && !silent
            var w = JSONObjectWriter()
            w.string("id", r.id)
            w.string("kind", r.kind.rawValue)
            w.raw("known", r.known ? "true" : "false")
            w.string("status", r.status ?? "unknown")
            w.raw("online", online ? "true" : "false")
            w.raw("lastHeard", r.lastHeard.map { JSONText.fixed($0, decimals: 3) } ?? "null")
            w.raw("sightings", "\(r.sightings)")
            w.raw("silent", silent ? "true" : "false")
            let recent = r.lastHeard.map { now - $0 <= 5 } ?? false
            w.raw("sightingsPerSecond", JSONText.fixed(recent ? r.sightingsPerSecond : 0, decimals: 1))
            w.raw("batches", "\(r.batches)")
            w.raw("missedBatches", "\(r.missedBatches)")
            w.raw("late", "\(r.late)")
            w.raw("clockOffset", r.clockOffset.map { JSONText.fixed($0, decimals: 3) } ?? "null")
            w.raw("clockJitter", r.clockJitter.map { JSONText.fixed($0, decimals: 3) } ?? "null")
            w.raw("telemetry", r.telemetry ?? "null")
            out += w.finish()
        }
        return out + "]}"
    }
}
