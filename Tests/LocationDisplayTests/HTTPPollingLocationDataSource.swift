// The custom-source example of docs/display.md, compiled here so that it cannot rot. Keep the two identical.
import Foundation
import LocationDisplay
import BlueDotCore

/// Polls a JSON endpoint such as `{"t": 1700000000, "x": 4.2, "y": 7.9, "accuracy": 3}` every few seconds.
final class HTTPPollingLocationDataSource: LocationDataSource, @unchecked Sendable {
    struct Reading: Decodable, Equatable { var t, x, y, accuracy: Double }
    let fetch: @Sendable () async throws -> Data  // e.g. { try await URLSession.shared.data(from: url).0 }
    let intervalSeconds: Double
    let clock: any BlueDotClock
    private let poller = LockedValue<Task<Void, Never>?>(nil)

    init(intervalSeconds: Double = 5, clock: any BlueDotClock, fetch: @escaping @Sendable () async throws -> Data) {
        (self.fetch, self.intervalSeconds, self.clock) = (fetch, intervalSeconds, clock)
        super.init()
    }

    override func doStart() async {
        do {  // The first poll decides whether the start succeeds.
            let first = try JSONDecoder().decode(Reading.self, from: try await fetch())
            didStartOrFailWithError(nil)
            publish(first, after: nil)  // Alone it gives no speed or course: shown as last-known.
            let task = Task { [self] in
                var previous = first
                while (try? await clock.sleep(seconds: intervalSeconds)) != nil {
                    guard let data = try? await fetch(),
                          let reading = try? JSONDecoder().decode(Reading.self, from: data), reading != previous
                    else { continue }
                    publish(reading, after: previous)
                    previous = reading
                }
            }
            poller.withLock { $0 = task }
        } catch {
            didStartOrFailWithError(error)
        }
    }

    override func doStop() async {
        let task = poller.withLock { $0 }
        task?.cancel()
        await task?.value
        didStop()
    }

    private func publish(_ r: Reading, after p: Reading?) {
        let dt = p.map { r.t - $0.t } ?? 0, dx = r.x - (p?.x ?? r.x), dy = r.y - (p?.y ?? r.y)
        let moved = p != nil && dt > 0
        didUpdate(Location(timestamp: r.t, x: r.x, y: r.y, horizontalAccuracyMeters: r.accuracy,
            speedMetersPerSecond: moved ? hypot(dx, dy) / dt : nil,
            courseDegrees: moved ? (atan2(dx, dy) * 180 / .pi + 360).truncatingRemainder(dividingBy: 360)
                                                : nil,
            lastKnown: !moved))
    }
}
