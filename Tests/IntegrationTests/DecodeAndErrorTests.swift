import Foundation
import Testing

/// `bluedot` runs that need no virtual world: the horizon74 recording, damaged files, and clear errors.
@Suite struct DecodeAndErrorTests {
    static let fixture = IntegrationEnvironment.packageRoot
        .appendingPathComponent("Tests/HCITests/Fixtures/horizon74_legacy_adv_btsnoop_hci.log").path

    @Test func decodesTheHorizonRecording() throws {
        let result = try ChildProcess.run(IntegrationEnvironment.bluedot, ["decode", Self.fixture], timeout: .seconds(60))
        #expect(result.status == 0, "stderr: \(result.standardError)")
        let sightings = sightingObjects(result.standardOutput)
        #expect(result.standardOutput.split(separator: "\n").count == 412)
        #expect(sightings.count == 412)
        #expect(sightings.filter { ($0["beacon"] as? [String: Any])?["type"] as? String == "ibeacon" }.count == 11)
        #expect(result.standardError.contains("advertising reports 412"))
        #expect(result.standardError.contains("ibeacon=11"))
    }

    @Test func damagedRecordingDecodesUpToTheDamage() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.fixture))
        let cut = try IntegrationEnvironment.scratchDirectory().appendingPathComponent("cut.log")
        try bytes.prefix(20_003).write(to: cut)  // the reports thin out after the first sixth of the file
        let result = try ChildProcess.run(IntegrationEnvironment.bluedot, ["decode", cut.path], timeout: .seconds(60))
        #expect(result.status == 0, "stderr: \(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").count
        #expect(lines > 0 && lines < 412)
        #expect(result.standardError.contains("stopped early"))
        #expect(result.standardError.contains("truncated record"))
    }

    /// Fixes written to a full disk (`/dev/full`) end in an error naming the file, not in silence.
    @Test func replayToAFullDiskFails() throws {
        let demo = IntegrationEnvironment.packageRoot.appendingPathComponent("Sources/Gateway/Demo")
        let result = try ChildProcess.run(IntegrationEnvironment.bluedot, [
            "replay", demo.appendingPathComponent("boun-straight_01.observations.jsonl").path,
            "--venue", demo.appendingPathComponent("demo-lab.venue.json").path, "-o", "/dev/full",
        ], timeout: .seconds(60))
        #expect(result.status != 0)
        #expect(result.standardError.contains("cannot write /dev/full: No space left on device"), "\(result.standardError)")
    }

    @Test func unreadableRecordingFails() throws {
        let junk = try IntegrationEnvironment.scratchDirectory().appendingPathComponent("junk.log")
        try Data("not a btsnoop file at all".utf8).write(to: junk)
        let result = try ChildProcess.run(IntegrationEnvironment.bluedot, ["decode", junk.path], timeout: .seconds(30))
        #expect(result.status != 0)
        #expect(result.standardError.contains("bad magic"), "stderr: \(result.standardError)")
        let missing = try ChildProcess.run(IntegrationEnvironment.bluedot, ["decode", "/nonexistent/x.log"], timeout: .seconds(30))
        #expect(missing.status != 0)
        #expect(missing.standardError.contains("cannot open"))
    }

    @Test(.enabled(if: !kernelHasBluetooth, "this kernel has AF_BLUETOOTH"))
    func hciWithoutBluetoothIsAClearError() throws {
        let result = try ChildProcess.run(
            IntegrationEnvironment.bluedot, ["scan", "--hci", "hci0", "--duration", "1"], timeout: .seconds(30))
        #expect(result.status != 0)
        #expect(result.standardError.contains("EAFNOSUPPORT"), "stderr: \(result.standardError)")
    }

    @Test func silentControllerIsADeadlineErrorNotAHang() async throws {
        let listener = try SilentListener()
        let started = ContinuousClock.now
        let result = try ChildProcess.run(IntegrationEnvironment.bluedot, [
            "scan", "--h4-tcp", "127.0.0.1:\(listener.port)", "--command-timeout", "0.3",
        ], timeout: .seconds(30))
        #expect(ContinuousClock.now - started < .seconds(20))
        #expect(result.status != 0)
        #expect(result.standardError.contains("controller did not answer Reset within 300 ms"),
                "stderr: \(result.standardError)")
    }

    @Test func badArgumentsAreRefused() throws {
        let none = try ChildProcess.run(IntegrationEnvironment.bluedot, ["scan"], timeout: .seconds(30))
        #expect(none.status != 0)
        #expect(none.standardError.contains("exactly one of --hci, --h4-tcp, --h4-tty"))
        let window = try ChildProcess.run(IntegrationEnvironment.bluedot, [
            "scan", "--h4-tcp", "127.0.0.1:1", "--interval", "10", "--window", "20",
        ], timeout: .seconds(30))
        #expect(window.status != 0)
        #expect(window.standardError.contains("window"))
    }
}

/// True when this kernel can open a Bluetooth socket.
let kernelHasBluetooth: Bool = {
    let descriptor = socket(31 /* AF_BLUETOOTH */, Int32(SOCK_RAW.rawValue), 1 /* BTPROTO_HCI */)
    if descriptor >= 0 { close(descriptor) }
    return descriptor >= 0 || errno != EAFNOSUPPORT
}()
