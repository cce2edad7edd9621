import LocationDisplay
import Testing

@Suite("LocationDataSource life cycle")
struct LocationDataSourceTests {
    @Test("a failed start reports the subclass's error and a retry is allowed")
    func failedStartThenRetry() async throws {
        let source = ScriptedSource(failures: 1)
        await #expect(throws: TestSourceError.adapterMissing) { try await source.start() }
        #expect(source.status == .failedToStart)
        #expect(source.error as? TestSourceError == .adapterMissing)
        try await source.start()
        #expect(source.status == .started)
        #expect(source.error == nil)
        #expect(source.startCalls == 2)
    }

    @Test("updates before start and after stop are ignored and counted")
    func updatesOutsideStartedAreIgnored() async throws {
        let source = ScriptedSource()
        let stream = source.locations
        source.didUpdate(fix(0, 0))
        source.didUpdateHeading(90)
        try await source.start()
        source.didUpdate(fix(1, 1))
        await source.stop()
        source.didUpdate(fix(2, 2))
        #expect(source.ignoredUpdateCount == 3)
        let received = await collect(stream, count: 1)
        #expect(received.map(\.x) == [1])
        #expect(source.lastLocation?.x == 1)
    }

    @Test("every listener gets every update in order")
    func deliveryInOrderToManyListeners() async throws {
        let source = ScriptedSource()
        try await source.start()
        let streams = (0..<5).map { _ in source.locations }
        for i in 0..<200 { source.didUpdate(fix(Double(i), 0)) }
        for stream in streams {
            let xs = await collect(stream, count: 200).map(\.x)
            #expect(xs == (0..<200).map(Double.init))
        }
    }

    @Test("status changes arrive in order, starting with the current status")
    func statusSequence() async throws {
        let source = ScriptedSource(failures: 1)
        let changes = source.statusChanges
        try? await source.start()
        try await source.start()
        await source.stop()
        let seen = await collect(changes, count: 6)
        #expect(seen == [.stopped, .starting, .failedToStart, .starting, .started, .stopping])
        #expect(source.status == .stopped)
    }

    @Test("a started source may stop itself after an internal error")
    func selfStop() async throws {
        let source = ScriptedSource()
        try await source.start()
        source.didStop(error: TestSourceError.radioLost)
        #expect(source.status == .stopped)
        #expect(source.error as? TestSourceError == .radioLost)
        source.didUpdate(fix(0, 0))
        #expect(source.ignoredUpdateCount == 1)
        try await source.start()
        #expect(source.status == .started)
        #expect(source.error == nil)
    }

    @Test("start and stop from many tasks at once leave a consistent state", arguments: 0..<5)
    func concurrentStartStop(round: Int) async throws {
        let source = ScriptedSource()
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<64 {
                group.addTask {
                    if (i + round) % 3 == 0 { await source.stop() } else { try? await source.start() }
                    source.didUpdate(fix(Double(i), 0))
                }
            }
        }
        try await source.start()
        #expect(source.status == .started)
        await source.stop()
        #expect(source.status == .stopped)
        // Every doStart was matched by a settle, and stops never outnumber starts.
        #expect(source.stopCalls <= source.startCalls)
        #expect(source.startCalls >= 1)
    }

    @Test("concurrent starts share one doStart")
    func concurrentStartsShareOneAttempt() async throws {
        let source = ScriptedSource()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<32 { group.addTask { try await source.start() } }
            try await group.waitForAll()
        }
        #expect(source.startCalls == 1)
        #expect(source.status == .started)
    }

    @Test("a slow listener keeps the newest locations up to the buffer limit")
    func bufferingNewest() async throws {
        final class Small: LocationDataSource, @unchecked Sendable {
            init() { super.init(bufferLimit: 3) }
        }
        let source = Small()
        try await source.start()
        let stream = source.locations
        for i in 0..<10 { source.didUpdate(fix(Double(i), 0)) }
        await source.stop()
        let xs = await collect(stream, count: 3).map(\.x)
        #expect(xs == [7, 8, 9])
    }
}
