import Foundation

/// A browser stand-in for the gateway benchmark: `curl -sN` holding `GET /api/feed` open, each `data:` line
/// timed on arrival against the event's `reportedAt` (wall clock, same machine).
final class FeedListener: @unchecked Sendable {
    let url: String
    private let process = Process()
    private let lock = NSLock()
    private var samples: [Double] = []

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
                        if let reported = Double(number) { record(now - reported) }
                    }
                    pending.removeSubrange(...newline)
                }
            }
        }
    }

    private func record(_ latency: Double) { lock.withLock { samples.append(latency) } }

    /// Forgets what was measured so far (the snapshot and the warm-up).
    func resetLatencies() { lock.withLock { samples.removeAll() } }

    /// Latencies measured, seconds.
    var latencies: [Double] { lock.withLock { samples } }

    /// Ends curl.
    func stop() { if process.isRunning { process.terminate() } }
}
