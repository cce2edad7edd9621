import Foundation

/// A browser stand-in for the gateway benchmark: `curl -sN` holding `GET /api/feed` open, each fix's `data:` line
/// timed on arrival against the event's `reportedAt` (wall clock, same machine: when the daemon took in the newest
/// report behind the fix) and against the fix's own time `t`, its grid time. A paced replay stamps observations
/// with the wall-clock time they fall due, and in the bench's site each tag's grid falls on one of its links'
/// sightings, so the fix's time is when its newest report was due: that latency includes the replay's wait before
/// handing the report over. (The fix's time is written to the millisecond.)
final class FeedListener: @unchecked Sendable {
    let url: String
    private let process = Process()
    private let lock = NSLock()
    private var samples: [Double] = []
    private var fixTimeSamples: [Double] = []

    init(url: String) { self.url = url }

    /// Starts curl and a thread reading its output.
    func start() throws {
        let pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl", "-sN", url]
        process.standardOutput = pipe
        try process.run()
        let handle = pipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            var pending = ""
            while true {
                let data = handle.availableData
                if data.isEmpty { return }
                let now = Date().timeIntervalSince1970
                pending += String(decoding: data, as: UTF8.self)
                while let newline = pending.firstIndex(of: "\n") {
                    let line = pending[..<newline]
                    if line.hasPrefix("data: "), let range = line.range(of: "\"reportedAt\":") {
                        let number = line[range.upperBound...].prefix { "0123456789.".contains($0) }
                        if let reported = Double(number) { record(now - reported, samples: \.samples) }
                        if let fixTime = line.range(of: "{\"fix\":{\"t\": ") {
                            let number = line[fixTime.upperBound...].prefix { "0123456789.".contains($0) }
                            if let t = Double(number) { record(now - t, samples: \.fixTimeSamples) }
                        }
                    }
                    pending.removeSubrange(...newline)
                }
            }
        }
    }

    private func record(_ latency: Double, samples: ReferenceWritableKeyPath<FeedListener, [Double]>) {
        lock.withLock { self[keyPath: samples].append(latency) }
    }

    /// Forgets what was measured so far (the snapshot and the warm-up).
    func resetLatencies() {
        lock.withLock {
            samples.removeAll()
            fixTimeSamples.removeAll()
        }
    }

    /// Latencies from `reportedAt` measured, seconds.
    var latencies: [Double] { lock.withLock { samples } }

    /// Latencies from the fix's time measured, seconds.
    var fixTimeLatencies: [Double] { lock.withLock { fixTimeSamples } }

    /// Ends curl by its pid (`env` execs it) and reaps it.
    func stop() { process.end(graceSeconds: 2) }
}
