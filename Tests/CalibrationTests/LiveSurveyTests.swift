import Formats
import Foundation
import Positioning
import Testing

/// The `survey` command over a live H4 transport: the Bumble virtual world (Tools/virtual-world/world.py, its
/// default beacons.json, noise 0) with the operator's answer piped in. Needs a Python with bumble
/// (BLUEDOT_PYTHON or .venv/bin/python); skipped without one unless BLUEDOT_REQUIRE_INTEGRATION=1.
@Suite(.enabled(if: CalibrationFixture.python != nil || CalibrationFixture.dataRequired,
                "no Python with bumble: set BLUEDOT_PYTHON or create .venv"))
struct LiveSurveyTests {
    /// At the world's receiver (0, 0, 1) the iBeacon 1:7 at (3, 4, 1) is 5 m away: -59 − 20 log10 5 = −72.98, so
    /// every one of its survey lines reads −73 dBm (±1 dB for the controller's rounding).
    @Test func recordsFromTheVirtualWorld() throws {
        let python = try #require(CalibrationFixture.python, "no Python with bumble")
        let world = Process()
        world.executableURL = URL(fileURLWithPath: python)
        world.arguments = [CalibrationFixture.packageRoot + "/Tools/virtual-world/world.py"]
        let ready = Pipe()
        world.standardOutput = ready
        world.standardError = FileHandle.nullDevice
        try world.run()
        defer {
            world.terminate()
            world.waitUntilExit()
        }
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = ready.fileHandleForReading.availableData
            try #require(!chunk.isEmpty, "world.py exited before its ready line")
            line.append(chunk)
        }
        let object = try JSONSerialization.jsonObject(with: line.prefix { $0 != 0x0A }) as? [String: Any]
        let port = try #require(object?["port"] as? Int)
        let out = try CalibrationFixture.scratch() + "/live.survey.jsonl"
        let (status, log) = try SurveyCommandTests.run(
            ["survey", "--h4-tcp", "127.0.0.1:\(port)", "--seconds", "2", "--out", out], input: "0,0,1\n")
        #expect(status == 0, "\(log)")
        var reader = try ObservationReader(path: out, options: ObservationReader.Options(strict: true))
        var iBeacon: [Double] = []
        while let l = try reader.next() {
            #expect(l.truth?.x == 0 && l.truth?.y == 0 && l.truth?.z == 1)
            if l.observation.anchor == "ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:7" {
                iBeacon.append(l.observation.rssiDBm)
            }
        }
        #expect(iBeacon.count >= 10, "100 ms interval over 2 s")
        #expect(iBeacon.allSatisfy { abs($0 + 73) <= 1 })
    }
}
