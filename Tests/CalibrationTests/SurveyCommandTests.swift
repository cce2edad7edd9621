import CalibrationKit
import Formats
import Foundation
import HCI
import Positioning
import Testing

/// The `survey` command over a btsnoop recording with the operator's answers piped to stdin.
@Suite struct SurveyCommandTests {
    static let uuid = BluetoothUUID("f7826da6-4fa2-4e98-8024-bc5b71e0893e")!

    /// A btsnoop (datalink 1002) of two iBeacons (major 1, minors 1 and 2) advertising every 0.2 s for 15 s from
    /// t = 1,700,000,000 s: one LE Advertising Report event per packet, RSSI -60 and -70 dBm.
    static func recording() throws -> [UInt8] {
        var bytes = BtsnoopWriter.fileHeader()
        for k in 0..<75 {
            for minor in [UInt16(1), 2] {
                let beacon = Beacon.iBeacon(IBeacon(proximityUUID: uuid, major: 1, minor: minor, measuredPowerDBm: -59))
                let data = try Beacon.advertisingData([beacon])
                let report = AdvertisingReport(
                    eventType: .legacy(.advNonconnInd), addressType: .random,
                    address: BDAddress(rawValue: 0xC0FFEE000000 + UInt64(minor)), rssiDBm: minor == 1 ? -60 : -70,
                    data: data[...])
                let packet = HCIEvent.leMeta(.advertisingReport(LEAdvertisingReportEvent(reports: [report]))).packet
                let t = 1_700_000_000.0 + Double(k) * 0.2 + Double(minor) * 0.01
                bytes += BtsnoopWriter.record(packet, direction: .controllerToHost,
                                              timestamp: BtsnoopTimestamp(unixSeconds: t))
            }
        }
        return bytes
    }

    /// The built `bluedot-calibrate`: beside the test bundle, else in the package's .build/debug.
    static let binary: String = {
        let candidates = [Bundle.main.bundleURL.deletingLastPathComponent(), Bundle.main.bundleURL]
            .map { $0.appendingPathComponent("bluedot-calibrate").path }
            + [CalibrationFixture.packageRoot + "/.build/debug/bluedot-calibrate"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates.last!
    }()

    /// Runs the binary with `input` on stdin; returns (exit status, stderr).
    static func run(_ arguments: [String], input: String) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        let stdin = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: errors, as: UTF8.self))
    }

    /// Answers: a named point, typed coordinates, an unknown name (re-asked), then three more points of which
    /// the last finds the recording exhausted. 5 s windows of a 15 s recording: 3 points × 2 beacons × 25
    /// packets = 150 survey lines, each with the truth of its point; appending twice doubles the file.
    @Test func recordsPipedPointsFromARecording() throws {
        let folder = try CalibrationFixture.scratch()
        let btsnoop = folder + "/two-beacons.btsnoop"
        try Data(try Self.recording()).write(to: URL(fileURLWithPath: btsnoop))
        try "# survey points\np1 1 2 1.3\np2,4,5\n".write(toFile: folder + "/points.txt", atomically: true,
                                                           encoding: .utf8)
        let out = folder + "/site.survey.jsonl"
        let arguments = ["survey", "--replay", btsnoop, "--points", folder + "/points.txt", "--seconds", "5",
                         "--out", out]
        let (status, log) = try Self.run(arguments, input: "p1\n3.5, 2\nnowhere\np2\n7,7\n")
        #expect(status == 0, "\(log)")
        #expect(log.contains("not a known point or x,y[,z]: nowhere"))
        #expect(log.contains("recording exhausted"))
        var reader = try ObservationReader(path: out, options: ObservationReader.Options(strict: true))
        var lines: [ObservationLine] = []
        while let line = try reader.next() { lines.append(line) }
        #expect(lines.count == 150)
        let id1 = "ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:1"
        #expect(Set(lines.map(\.observation.anchor)) == [id1, "ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:2"])
        #expect(lines.allSatisfy { $0.observation.target == "self" })
        let truths = lines.map { [$0.truth!.x, $0.truth!.y, $0.truth!.z!] }
        #expect(truths[0] == [1, 2, 1.3] && truths[49] == [1, 2, 1.3])
        #expect(truths[50] == [3.5, 2, 1.2] && truths[99] == [3.5, 2, 1.2])
        #expect(truths[100] == [4, 5, 1.2] && truths[149] == [4, 5, 1.2])
        #expect(lines.filter { $0.observation.anchor == id1 }.allSatisfy { $0.observation.rssiDBm == -60 })
        let (again, _) = try Self.run(arguments, input: "p1\n")
        #expect(again == 0)
        let text = try String(contentsOfFile: out, encoding: .utf8)
        #expect(text.split(separator: "\n").count == 200)
    }

    /// Exactly one source must be given.
    @Test func rejectsTwoSources() throws {
        let (status, log) = try Self.run(["survey", "--replay", "x", "--h4-tcp", "127.0.0.1:1", "--out", "/dev/null"],
                                         input: "")
        #expect(status != 0)
        #expect(log.contains("exactly one of --hci, --h4-tcp, --h4-tty, --replay"))
    }
}

/// The session logic without a process: scripted answers and a scripted recorder.
@Suite struct SurveySessionTests {
    struct Scripted: SurveyRecorder {
        var windows: [[SurveyReading]]
        mutating func record(seconds: Double) async throws -> [SurveyReading] {
            windows.isEmpty ? [] : windows.removeFirst()
        }
    }

    /// Unknown anchors are skipped when the venue's anchors are given; the end of input ends the survey.
    @Test func writesOnlyVenueAnchors() async throws {
        var answers = ["2,3,1.5"][...]
        var recorder = Scripted(windows: [[SurveyReading(t: 1, anchor: "a", rssiDBm: -50),
                                           SurveyReading(t: 2, anchor: "stranger", rssiDBm: -70)]])
        var written: [String] = []
        let session = SurveySession(seconds: 1, anchors: ["a"])
        let records = try await session.run(readLine: { answers.popFirst() }, say: { _ in },
                                            write: { written.append($0) }, recorder: &recorder)
        #expect(records.count == 1 && records[0].skipped == 1 && records[0].lines == 1)
        #expect(written == [#"{"t": 1.000, "anchor": "a", "target": "self", "rssi": -50.00, "truth": {"x": 2.000, "y": 3.000, "z": 1.500}}"#])
    }

    /// Points files: both separators, comments, and errors naming the line.
    @Test func parsesPointsFiles() throws {
        let list = try SurveyPointList(text: "# c\n\ndoor 1 2\nwindow,3.5,4,1.1\n", file: "p.txt")
        #expect(list.points == [SurveyPoint(name: "door", x: 1, y: 2), SurveyPoint(name: "window", x: 3.5, y: 4, z: 1.1)])
        #expect(list.resolve(" 5,6 ") == SurveyPoint(x: 5, y: 6))
        #expect(list.resolve("5;6") == nil)
        #expect(throws: SurveyPointList.ParseError.self) { try SurveyPointList(text: "a 1 2\na 3 4\n", file: "p.txt") }
        do {
            _ = try SurveyPointList(text: "ok 1 2\nbad 1 x\n", file: "p.txt")
            Issue.record("expected an error")
        } catch {
            #expect(error.description == "p.txt:2: x, y and z must be numbers")
        }
    }
}
