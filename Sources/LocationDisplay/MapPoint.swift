/// A point in map units: metres in a venue's local frame, or Web Mercator metres (EPSG:3857) when projected.
public struct MapPoint: Sendable, Hashable {
    /// Horizontal map coordinate (east).
    public var x: Double
    /// Vertical map coordinate (north).
    public var y: Double

    /// Creates a map point.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// An axis-aligned rectangle in map units.
public struct MapExtent: Sendable, Hashable {
    /// Smallest x and y.
    public var minX: Double, minY: Double
    /// Largest x and y.
    public var maxX: Double, maxY: Double

    /// Creates an extent from its corners.
    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    /// The smallest extent holding every point.
    public init(enclosing points: [MapPoint]) {
        minX = points.map(\.x).min() ?? 0
        minY = points.map(\.y).min() ?? 0
        maxX = points.map(\.x).max() ?? 0
        maxY = points.map(\.y).max() ?? 0
    }

    /// True when the point lies inside or on the border.
    public func contains(_ point: MapPoint) -> Bool {
        point.x >= minX && point.x <= maxX && point.y >= minY && point.y <= maxY
    }
}
