import BlueDotCore

extension Location {
    /// True when the location reports movement with a course: speed above `threshold` m/s and a course.
    public func isMoving(threshold: Double = 0.2) -> Bool {
        guard let speed = speedMetersPerSecond, courseDegrees != nil else { return false }
        return speed > threshold
    }
}
