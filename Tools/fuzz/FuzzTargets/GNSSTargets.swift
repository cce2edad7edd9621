import BeaconLocation
import BlueDotCore
import Formats
import GNSS

/// What gpsd sends: its JSON reports, one per line, as `GPSDLocationSource` reads them.
enum GNSSTargets {
    /// Splits the bytes into lines and handles each as the source does: a line that parses is a report, and its
    /// TPVs and ATTs go through `GPSDFixes` one after another, with and without a venue's origin. Whatever gpsd
    /// sends, a location is on the globe with a finite, positive accuracy radius, a fix is current and says it came
    /// from GNSS, a lost fix is the last one grey, and a heading is in [0, 360).
    static func gpsd(_ bytes: [UInt8]) {
        var fixes = [GPSDFixes(origin: nil), GPSDFixes(origin: GeographicOrigin(latitude: 52.2297, longitude: 21.0122))]
        var now = 0.0
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: true) {
            now += 1
            guard let report = try? GPSDReport.parse(line: line) else { continue }
            for index in fixes.indices {
                switch report {
                case .tpv(let tpv):
                    guard let location = fixes[index].location(for: tpv, now: now) else {
                        check(fixes[index].lastFix == nil, "no location although a fix was kept")
                        continue
                    }
                    checkPlausible(location)
                    check(location.lastKnown == !tpv.mode.hasFix, "a fix that is not current, or a lost one that is")
                    check(location.source == .gnss, "a GNSS location that does not say so")
                case .att(let attitude):
                    if let heading = fixes[index].heading(for: attitude, now: now) {
                        check(heading >= 0 && heading < 360, "a heading outside [0, 360): \(heading)")
                    }
                default:
                    break
                }
            }
        }
    }

    private static func checkPlausible(_ location: Location) {
        check(location.horizontalAccuracyMeters.isFinite && location.horizontalAccuracyMeters > 0,
              "accuracy \(location.horizontalAccuracyMeters)")
        check(location.x.isFinite && location.y.isFinite, "a plan position that is not finite")
        let latitude = location.latitude ?? .nan, longitude = location.longitude ?? .nan
        check((-90...90).contains(latitude) && (-180...180).contains(longitude), "off the globe: \(latitude), \(longitude)")
        if let heading = location.headingDegrees { check(heading >= 0 && heading < 360, "heading \(heading)") }
    }
}
