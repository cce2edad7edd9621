import Foundation
import History
import Testing

/// The history of a real `bluedot run` across `kill -9`: the database opens afterwards and holds every fix the API
/// had shown more than a second before the kill; a restart on the same file adds to it; the API pages it and
/// exports GPX.
extension GatewayProcessTests {
    @Suite struct HistoryProcessTests {
        static let demo = GatewayProcess.packageRoot.appendingPathComponent("Sources/Gateway/Demo").path

        static func run(_ database: String) throws -> GatewayProcess {
            try GatewayProcess(GatewayProcess.bluedot, [
                "run", "--observations", Self.demo + "/boun-straight_01.observations.jsonl",
                "--venue", Self.demo + "/demo-lab.venue.json", "--mode", "tag", "--listen", "127.0.0.1:0",
                "--speed", "4", "--history", database,
            ])
        }

        /// The newest fix time the API shows.
        static func newest(_ base: String) async throws -> Double? {
            let text = try await GatewayProcess.get(base + "api/locations").1
            let array = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]] ?? []
            return array.compactMap { $0["t"] as? Double }.max()
        }

        @Test func historySurvivesKillNine() async throws {
            let database = try GatewayProcess.scratch().appendingPathComponent("state/history.sqlite").path
            let gateway = try Self.run(database)
            let base = try #require(await gateway.waitForURL(seconds: 30), "no listening line: \(gateway.standardError)")
            // Watch the fixes for a few seconds (when each was first shown, on the wall clock), then kill the daemon
            // right after a read.
            var shown: [(at: ContinuousClock.Instant, t: Double)] = []
            for _ in 0..<60 {
                try await Task.sleep(for: .milliseconds(100))
                if let t = try await Self.newest(base), t > shown.last?.t ?? -.infinity { shown.append((.now, t)) }
            }
            #expect(!shown.isEmpty, "no fixes within 6 s: \(gateway.standardError.suffix(2000))")
            kill(gateway.process.processIdentifier, SIGKILL)
            let killed = ContinuousClock.now
            #expect(await gateway.wait(seconds: 5))

            let store = try HistoryStore(path: database)
            let kept = try store.fixes(HistoryQuery(limit: 1)).records.first
            store.close()
            let newest = try #require(kept?.timestamp, "the database has no fixes")
            // Every fix the API showed more than a second before the kill is in the database.
            let due = try #require(shown.last { killed - $0.at > .seconds(1) }, "no fix shown a second before the kill")
            let last = try #require(shown.last)
            print("history across kill -9: newest fix shown \(last.t) (\(killed - last.at) before the kill), newest kept \(newest)")
            #expect(newest >= due.t, "at most the last second is lost")

            // A restart on the same file adds to it; the API pages it and exports GPX.
            let again = try Self.run(database)
            let base2 = try #require(await again.waitForURL(seconds: 30))
            var count = 0
            for _ in 0..<50 where count == 0 {
                try await Task.sleep(for: .milliseconds(100))
                let (status, text) = try await GatewayProcess.get(base2 + "api/history?target=e78f135624ce&limit=5&order=oldest")
                #expect(status == 200)
                let page = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
                count = (page?["fixes"] as? [Any])?.count ?? 0
                if count > 0 { #expect(page?["next"] is String, "more than one page: \(text.prefix(300))") }
            }
            #expect(count == 5)
            let (gpxStatus, gpx) = try await GatewayProcess.get(base2 + "api/history.gpx?target=e78f135624ce&limit=50")
            #expect(gpxStatus == 200 && gpx.contains("<trkpt lat=\"41.08"), "\(gpx.prefix(300))")
            #expect(try await GatewayProcess.get(base2 + "api/history?from=yesterday").0 == 400)
            again.signal(SIGTERM)
            #expect(await again.wait(seconds: 6))
            #expect(again.status == 0, "\(again.standardError.suffix(2000))")
        }
    }
}
