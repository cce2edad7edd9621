extension Location {
    /// Places a location on the venue plan on the earth: latitude and longitude from `origin`, and the course
    /// turned from the plan's +y to true north, as the location format defines it for a venue with an origin. A
    /// location that already has coordinates of its own is left as it is. Its smoothed position is placed too.
    public mutating func place(on origin: GeographicOrigin) {
        if var past = smoothed, past.latitude == nil || past.longitude == nil {
            (past.latitude, past.longitude) = origin.geographic(x: past.x, y: past.y)
            smoothed = past
        }
        guard latitude == nil || longitude == nil else { return }
        (latitude, longitude) = origin.geographic(x: x, y: y)
        courseDegrees = courseDegrees.map { Degrees.normalized($0 + origin.bearingDegrees) }
    }

    /// This location on the venue plan: local metres only (no latitude and longitude, so a display keeps to the
    /// plan and does not switch to Web Mercator), its course turned back from north onto the plan's +y, and its
    /// heading (always from true north) too.
    public func onPlan(bearingDegrees: Double) -> Location {
        var plan = self
        if latitude != nil, let course = courseDegrees {
            plan.courseDegrees = Degrees.normalized(course - bearingDegrees)
        }
        plan.headingDegrees = headingDegrees.map { Degrees.normalized($0 - bearingDegrees) }
        plan.latitude = nil
        plan.longitude = nil
        return plan
    }
}
