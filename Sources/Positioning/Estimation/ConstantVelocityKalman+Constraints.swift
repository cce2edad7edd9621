extension ConstantVelocityKalman {
    /// Scales the velocity down to at most `maximum` m/s (a walker or robot does not go faster).
    public mutating func capSpeed(_ maximum: Double) {
        let s = speed
        guard s > maximum, s > 0 else { return }
        x[2] *= maximum / s
        x[3] *= maximum / s
    }

    /// Projects the position into the bounds (the covariance is kept: the constraint is not a measurement).
    public mutating func clampPosition(to bounds: Venue.Bounds?) {
        guard let bounds else { return }
        x[0] = min(max(x[0], bounds.minX), bounds.maxX)
        x[1] = min(max(x[1], bounds.minY), bounds.maxY)
    }
}
