import Foundation
import HCI
import Testing

@testable import SystemIO

/// Files written by `BtsnoopRecorder` must open in Wireshark's `tshark` and BlueZ's `btmon -r`.
///
/// Runs the tools when they are on PATH. When one is missing the test is skipped, unless the environment variable
/// BLUEDOT_REQUIRE_TOOLS=1 is set, in which case it fails and says which tool is missing.
@Suite struct BtsnoopExternalToolTests {
    static let requireTools = ProcessInfo.processInfo.environment["BLUEDOT_REQUIRE_TOOLS"] == "1"

    /// The tool's full path on PATH, or nil.
    static func find(_ tool: String) -> String? {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return paths.map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs a tool and returns its exit status and standard output.
    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// The tool's path, or nil after recording an issue if tools are required.
    static func tool(_ name: String) -> String? {
        let path = find(name)
        if path == nil && requireTools {
            Issue.record(
                "\(name) not found on PATH, and BLUEDOT_REQUIRE_TOOLS=1 requires it (apt install tshark bluez)")
        }
        return path
    }

    @Test(.enabled(if: requireTools || find("tshark") != nil, "tshark not installed"))
    func tsharkReadsRecording() throws {
        guard let tshark = Self.tool("tshark") else { return }
        let path = BtsnoopFileReaderTests.temporaryPath("tshark.log")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try BtsnoopRecorderTests.writeSession(to: path).close()
        let result = try Self.run(
            tshark, ["-r", path, "-T", "fields", "-e", "frame.number", "-e", "hci_h4.type", "-e", "hci_h4.direction"])
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        #expect(lines == [["1", "0x01", "0x00"], ["2", "0x04", "0x01"], ["3", "0x04", "0x01"], ["4", "0x02", "0x00"]])
        let reset = try Self.run(tshark, ["-r", path, "-Y", "bthci_cmd.opcode == 0x0c03"])
        #expect(reset.status == 0 && reset.output.split(separator: "\n").count == 1)
    }

    @Test(.enabled(if: requireTools || find("btmon") != nil, "btmon not installed"))
    func btmonReadsRecording() throws {
        guard let btmon = Self.tool("btmon") else { return }
        let path = BtsnoopFileReaderTests.temporaryPath("btmon.log")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try BtsnoopRecorderTests.writeSession(to: path).close()
        let result = try Self.run(btmon, ["-r", path, "--no-pager"])
        #expect(result.status == 0)
        #expect(result.output.contains("HCI Command: Reset"), "\(result.output)")
        #expect(result.output.contains("HCI Event: Command Complete"))
        #expect(result.output.contains("LE Advertising Report"))
        #expect(result.output.contains("ACL Data TX"))
    }
}
