import BlueDotCore
import Formats
import GNSS
import Testing

/// gpsd's JSON reports (`gpsd_json(5)`) through the project's JSON scanner, and the fixes made of them.
@Suite("gpsd reports")
struct GPSDReportTests {
    /// A TPV line as gpsd 3.22 wrote it for rst39.log (Tools/gnss/logs).
    static let tpv3D = #"{"class":"TPV","device":"/dev/pts/1","status":2,"mode":3,"time":"2033-10-05T20:41:32.200Z","ept":0.005,"lat":42.095565767,"lon":-88.034013950,"altHAE":188.0825,"altMSL":221.9120,"alt":221.9120,"magvar":-3.8,"speed":4.698,"climb":-0.090,"geoidSep":-33.830,"eph":4.750,"dgpsAge":3.0,"dgpsSta":138}"#

    @Test func tpvWithA3DFix() throws {
        let report = try GPSDReport.parse(line: Array(Self.tpv3D.utf8))
        guard case .tpv(let tpv) = report else { Issue.record("not a TPV: \(report)"); return }
        #expect(tpv.mode == .threeD && tpv.device == "/dev/pts/1")
        #expect(tpv.latitude == 42.095565767 && tpv.longitude == -88.034013950)
        #expect(tpv.altitudeMeters == 188.0825 && tpv.horizontalErrorMeters == 4.75 && tpv.speedMetersPerSecond == 4.698)
        #expect(tpv.time == InternetTime.parse("2033-10-05T20:41:32.200Z"))
        #expect(tpv.trackDegrees == nil)
    }

    @Test func noFixAttitudeVersionAndOthers() throws {
        #expect(try GPSDReport.parse(line: Array(#"{"class":"TPV","device":"/dev/pts/1","mode":1}"#.utf8))
                == .tpv(GPSDTPV(device: "/dev/pts/1", mode: .noFix)))
        #expect(try GPSDReport.parse(line: Array(#"{"class":"ATT","device":"/dev/pts/1","heading":25.500}"#.utf8))
                == .att(GPSDAttitude(device: "/dev/pts/1", headingDegrees: 25.5)))
        let version = #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#
        #expect(try GPSDReport.parse(line: Array(version.utf8))
                == .version(release: "3.22", protocolMajor: 3, protocolMinor: 14))
        let devices = #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/pts/1","bps":4800}]}"#
        #expect(try GPSDReport.parse(line: Array(devices.utf8)) == .other(className: "DEVICES"))
        #expect(try GPSDReport.parse(line: Array(#"{"class":"ERROR","message":"Unrecognized request"}"#.utf8))
                == .error(message: "Unrecognized request"))
    }

    @Test func errorsNameTheField() {
        func message(_ line: String) -> String? {
            do {
                _ = try GPSDReport.parse(line: Array(line.utf8))
                return nil
            } catch {
                return error.located
            }
        }
        #expect(message(#"{"class":"TPV","mode":3,"lat":"north","lon":1}"#) == "TPV.lat: expected a number (column 31)")
        #expect(message(#"{"class":"TPV","mode":7}"#) == "TPV.mode: expected 0, 1, 2 or 3, got 7")
        #expect(message(#"{"class":"TPV","mode":2,"lon":1}"#) == "TPV.lat: missing in a 2D fix")
        #expect(message(#"{"class":"TPV","mode":3,"lat":91,"lon":1}"#) == "TPV.lat: 91.0 is not a latitude")
        #expect(message(#"{"class":"TPV","mode":2,"time":"yesterday","lat":1,"lon":1}"#)
                == #"TPV.time: expected an ISO 8601 time, got "yesterday" (column 32)"#)
        #expect(message(#"{"class":"ATT","heading":true}"#) == "ATT.heading: expected a number (column 26)")
        #expect(message(#"{"mode":3}"#) == "class: missing")
        #expect(message(#"{"class":"TPV","mode":3"#) == "unterminated object (column 24)")
    }

    @Test func epHIsA95PercentRadiusScaledTo68() {
        // √(−2 ln 0.32) / √(−2 ln 0.05) = 1.50959 / 2.44775.
        #expect(abs(GPSDFixes.radius68Per95 - 0.616726) < 1e-5)
        #expect(abs(GPSDFixes.horizontalAccuracy68(GPSDTPV(mode: .threeD, horizontalErrorMeters: 4.75)) - 2.9295) < 1e-3)
        // epx = epy: a circle whose 95% half-width per axis is 1.96 σ; its 68% radius is 1.50959 σ.
        let circle = GPSDFixes.horizontalAccuracy68(GPSDTPV(mode: .twoD, longitudeErrorMeters: 19.6, latitudeErrorMeters: 19.6))
        #expect(abs(circle - 1.50959 * 19.6 / 1.959964) < 0.01)
        #expect(GPSDFixes.horizontalAccuracy68(GPSDTPV(mode: .twoD)) == GPSDFixes.unknownAccuracyMeters)
    }

    @Test func modesMakeCurrentAndLastKnownLocations() {
        let origin = GeographicOrigin(latitude: 42.0955, longitude: -88.0340, bearingDegrees: 30)
        var fixes = GPSDFixes(origin: origin)
        #expect(fixes.location(for: GPSDTPV(mode: .noFix), now: 1) == nil)
        #expect(fixes.heading(for: GPSDAttitude(headingDegrees: 361.5), now: 1.5) == 1.5)
        let tpv = GPSDTPV(mode: .twoD, latitude: 42.0956, longitude: -88.0341, horizontalErrorMeters: 10,
                          trackDegrees: 90, speedMetersPerSecond: 3)
        let fix = fixes.location(for: tpv, now: 2)!
        let local = origin.local(latitude: 42.0956, longitude: -88.0341)
        #expect(fix.latitude == 42.0956 && fix.longitude == -88.0341 && fix.x == local.x && fix.y == local.y)
        #expect(fix.source == .gnss && fix.floor == nil && !fix.lastKnown && fix.headingDegrees == 1.5)
        #expect(fix.courseDegrees == 90 && fix.speedMetersPerSecond == 3 && fix.anchorCount == 0)
        let grey = fixes.location(for: GPSDTPV(mode: .noFix), now: 8)!
        #expect(grey.lastKnown && grey.timestamp == 8 && grey.latitude == 42.0956 && grey.speedMetersPerSecond == nil)
        #expect(grey.headingDegrees == nil)  // 6.5 s old: stale
    }
}
