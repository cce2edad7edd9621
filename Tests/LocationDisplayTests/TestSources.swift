import BlueDotCore
import LocationDisplay

/// Errors the test sources fail with.
enum TestSourceError: Error, Equatable {
    case adapterMissing
    case radioLost
}

/// A source whose start outcome is scripted: it fails the first `failures` starts, then succeeds, and counts
/// `doStart`/`doStop` calls.
final class ScriptedSource: LocationDataSource, @unchecked Sendable {
    private let counts = LockedValue((starts: 0, stops: 0, failures: 0))

    init(failures: Int = 0) {
        counts.withLock { $0.failures = failures }
        super.init()
    }

    var startCalls: Int { counts.withLock { $0.starts } }
    var stopCalls: Int { counts.withLock { $0.stops } }

    override func doStart() async {
        let fail = counts.withLock { c -> Bool in
            c.starts += 1
            guard c.failures > 0 else { return false }
            c.failures -= 1
            return true
        }
        await Task.yield()
        didStartOrFailWithError(fail ? TestSourceError.adapterMissing : nil)
    }

    override func doStop() async {
        counts.withLock { $0.stops += 1 }
        await Task.yield()
        didStop()
    }
}

/// A location at (x, y) at time t.
func fix(_ x: Double, _ y: Double, t: Double = 0, speed: Double? = nil, course: Double? = nil,
         lastKnown: Bool = false, accuracy: Double = 2) -> Location {
    Location(timestamp: t, x: x, y: y, horizontalAccuracyMeters: accuracy, speedMetersPerSecond: speed,
        courseDegrees: course, lastKnown: lastKnown)
}

/// Collects the first `count` elements of a stream.
func collect<S: AsyncSequence & Sendable>(_ stream: S, count: Int) async -> [S.Element]
where S.Element: Sendable {
    var result: [S.Element] = []
    do {
        for try await value in stream {
            result.append(value)
            if result.count == count { break }
        }
    } catch {}
    return result
}
