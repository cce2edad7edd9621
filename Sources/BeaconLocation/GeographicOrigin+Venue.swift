import BlueDotCore
import Positioning

extension GeographicOrigin {
    /// The display's origin for a venue's `origin`: the venue's one projection (`GeographicOrigin.geographic`).
    public init(_ origin: Venue.Origin) {
        self.init(latitude: origin.latitude, longitude: origin.longitude, bearingDegrees: origin.bearingDegrees)
    }
}
