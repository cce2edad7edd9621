import FoundationEssentials
import Glibc

/// The part of the map a front end shows: centre, scale, rotation and size in pixels. A value: `LocationDisplay`
/// owns one and the web map follows it.
///
/// Screen pixels have their origin at the top left with y growing down. `unitsPerPixel` is map units per pixel
/// (metres per pixel on a local venue); `scaleDenominator` gives the same as a 1:N scale at 96 DPI.
/// `rotationDegrees` turns the map counter-clockwise on screen, so the map direction `rotationDegrees` clockwise
/// from +y (or north) points up; navigation mode sets it to the course.
public struct MapViewport: Sendable, Hashable {
    /// Map point at the centre of the screen.
    public var center: MapPoint
    /// Map units per pixel.
    public var unitsPerPixel: Double
    /// Map rotation in degrees; the map direction at this azimuth points up on screen.
    public var rotationDegrees: Double
    /// Screen width in pixels.
    public var widthPixels: Double
    /// Screen height in pixels.
    public var heightPixels: Double

    /// Metres per pixel at 96 DPI: 0.0254 m per inch / 96 pixels per inch.
    public static let metersPerScreenPixel = 0.0254 / 96

    /// Creates a viewport.
    public init(center: MapPoint, unitsPerPixel: Double, rotationDegrees: Double = 0, widthPixels: Double,
                heightPixels: Double) {
        self.center = center
        self.unitsPerPixel = unitsPerPixel
        self.rotationDegrees = rotationDegrees
        self.widthPixels = widthPixels
        self.heightPixels = heightPixels
    }

    /// The scale as 1:N, the N: map units per pixel over the physical size of a 96 DPI pixel.
    public var scaleDenominator: Double {
        get { unitsPerPixel / Self.metersPerScreenPixel }
        set { unitsPerPixel = newValue * Self.metersPerScreenPixel }
    }

    /// The offset of a map point from the centre in screen-aligned map units (x right, y up).
    public func screenAlignedOffset(of point: MapPoint) -> (right: Double, up: Double) {
        // Rotate the map offset counter-clockwise by the rotation angle.
        let theta = rotationDegrees * .pi / 180
        let dx = point.x - center.x, dy = point.y - center.y
        return (dx * cos(theta) - dy * sin(theta), dx * sin(theta) + dy * cos(theta))
    }

    /// The map point at a screen-aligned offset from the centre: the inverse of `screenAlignedOffset(of:)`.
    public func mapPoint(right: Double, up: Double, from center: MapPoint? = nil) -> MapPoint {
        let theta = rotationDegrees * .pi / 180
        let c = center ?? self.center
        return MapPoint(x: c.x + right * cos(theta) + up * sin(theta), y: c.y - right * sin(theta) + up * cos(theta))
    }

    /// The screen position in pixels of a map point.
    public func screenPoint(of point: MapPoint) -> (x: Double, y: Double) {
        let (right, up) = screenAlignedOffset(of: point)
        return (widthPixels / 2 + right / unitsPerPixel, heightPixels / 2 - up / unitsPerPixel)
    }

    /// The map point shown at a screen position in pixels.
    public func mapPoint(screenX: Double, screenY: Double) -> MapPoint {
        mapPoint(right: (screenX - widthPixels / 2) * unitsPerPixel, up: (heightPixels / 2 - screenY) * unitsPerPixel)
    }

    /// The four map points at the screen corners (top left, top right, bottom right, bottom left).
    public var visibleCorners: [MapPoint] {
        [(0.0, 0.0), (widthPixels, 0), (widthPixels, heightPixels), (0, heightPixels)]
            .map { mapPoint(screenX: $0.0, screenY: $0.1) }
    }

    /// The smallest axis-aligned map extent holding everything on screen (larger than the screen when rotated).
    public var visibleExtent: MapExtent {
        MapExtent(enclosing: visibleCorners)
    }

    /// True when the map point lies inside the centred screen rectangle scaled by `factor` (1: the whole screen),
    /// border included: the wander extent test of recenter mode.
    public func contains(_ point: MapPoint, screenFraction factor: Double) -> Bool {
        let (right, up) = screenAlignedOffset(of: point)
        let halfWidth = widthPixels * factor / 2 * unitsPerPixel
        let halfHeight = heightPixels * factor / 2 * unitsPerPixel
        return abs(right) <= halfWidth && abs(up) <= halfHeight
    }

    /// Moves the map as a finger drag of (dx, dy) pixels would: the content follows the finger.
    public mutating func pan(byPixelsX dx: Double, y dy: Double) {
        center = mapPoint(right: -dx * unitsPerPixel, up: dy * unitsPerPixel)
    }

    /// Zooms by `factor` (2: twice as close) keeping the map point under the screen position fixed.
    public mutating func zoom(by factor: Double, aroundScreenX sx: Double, y sy: Double) {
        let anchor = mapPoint(screenX: sx, screenY: sy)
        unitsPerPixel /= factor
        let right = (sx - widthPixels / 2) * unitsPerPixel, up = (heightPixels / 2 - sy) * unitsPerPixel
        // Choose the centre so that `anchor` sits at the same screen position again.
        let offset = mapPoint(right: right, up: up, from: MapPoint(x: 0, y: 0))
        center = MapPoint(x: anchor.x - offset.x, y: anchor.y - offset.y)
    }
}
