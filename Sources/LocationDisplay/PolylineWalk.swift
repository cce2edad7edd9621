import FoundationEssentials
import Glibc

/// Samples a polyline walked at constant speed.
struct PolylineWalk {
    var points: [MapPoint]
    var speedMetersPerSecond: Double
    var intervalSeconds: Double

    struct Sample {
        var point: MapPoint
        var time: Double
        var courseDegrees: Double?
    }

    func samples() -> [Sample] {
        guard let first = points.first else { return [] }
        let segments = zip(points, points.dropFirst()).map { a, b in (a, b, hypot(b.x - a.x, b.y - a.y)) }
        let total = segments.reduce(0) { $0 + $1.2 }
        guard total > 0, speedMetersPerSecond > 0, intervalSeconds > 0 else {
            return [Sample(point: first, time: 0, courseDegrees: nil)]
        }
        let duration = total / speedMetersPerSecond
        var times = stride(from: 0.0, to: duration, by: intervalSeconds).map { $0 }
        times.append(duration)
        return times.map { t in
            var remaining = t * speedMetersPerSecond
            let lastMoving = segments.lastIndex { $0.2 > 0 }
            for (index, (a, b, length)) in segments.enumerated() where length > 0 {
                if remaining <= length || index == lastMoving {
                    let f = min(remaining / length, 1)
                    let course = atan2(b.x - a.x, b.y - a.y) * 180 / .pi
                    return Sample(point: MapPoint(x: a.x + f * (b.x - a.x), y: a.y + f * (b.y - a.y)), time: t,
                                  courseDegrees: course < 0 ? course + 360 : course)
                }
                remaining -= length
            }
            return Sample(point: points[points.count - 1], time: t, courseDegrees: nil)
        }
    }
}
