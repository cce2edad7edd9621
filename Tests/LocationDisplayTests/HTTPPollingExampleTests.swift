import BlueDotCore
import Foundation
import LocationDisplay
import Testing

/// Answers the example's fetches from a script: each entry is a JSON body or an error.
final class ScriptedFetcher: Sendable {
    struct Offline: Error {}
    private let replies: LockedValue<[String?]>
    init(_ replies: [String?]) { self.replies = LockedValue(replies) }

    func fetch() throws -> Data {
        let reply = replies.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        guard let reply else { throw Offline() }
        return Data(reply.utf8)
    }
}

@Suite("The custom HTTP polling source of docs/display.md")
struct HTTPPollingExampleTests {
    @Test("first fix last-known; the second gives speed and course; failed polls are skipped")
    func pollsAndDerivesMotion() async throws {
        let clock = ManualClock(start: 0)
        let fetcher = ScriptedFetcher([
            #"{"t": 100, "x": 0, "y": 0, "accuracy": 3}"#,
            nil,                                              // a failed poll: nothing delivered
            #"{"t": 110, "x": 30, "y": 40, "accuracy": 2}"#,
        ])
        let source = HTTPPollingLocationDataSource(intervalSeconds: 5, clock: clock) { try fetcher.fetch() }
        let stream = source.locations
        try await source.start()
        var iterator = stream.makeAsyncIterator()
        let first = try #require(await iterator.next())
        #expect(first.lastKnown && first.speedMetersPerSecond == nil && first.courseDegrees == nil)
        for _ in 0..<2 {
            await clock.waitForSleepers()
            clock.advance(by: 5)
        }
        let second = try #require(await iterator.next())
        #expect(!second.lastKnown)
        #expect(second.speedMetersPerSecond == 5)                          // 50 m in 10 s
        #expect(abs((second.courseDegrees ?? 0) - 36.869_897_6) < 1e-6)     // atan2(30, 40)
        await clock.waitForSleepers()
        await source.stop()
        #expect(source.status == .stopped)
    }

    @Test("an unreachable endpoint fails the start")
    func unreachable() async {
        let source = HTTPPollingLocationDataSource(clock: ManualClock()) { try ScriptedFetcher([]).fetch() }
        await #expect(throws: ScriptedFetcher.Offline.self) { try await source.start() }
        #expect(source.status == .failedToStart)
    }
}
