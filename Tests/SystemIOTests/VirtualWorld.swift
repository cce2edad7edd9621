#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HCI
import Testing
@testable import SystemIO

/// Runs Tools/virtual-world/world.py for a test and stops it again.
final class VirtualWorld {
    /// The package root, three levels above this file.
    static let packageRoot = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `BLUEDOT_PYTHON`, else `.venv/bin/python` in the package root, if it exists.
    static var python: String? {
        let path = ProcessInfo.processInfo.environment["BLUEDOT_PYTHON"]
            ?? packageRoot.appending(path: ".venv/bin/python").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    /// Whether a missing Python must fail the integration tests (BLUEDOT_REQUIRE_INTEGRATION=1) or skip them.
    static var required: Bool { ProcessInfo.processInfo.environment["BLUEDOT_REQUIRE_INTEGRATION"] == "1" }

    /// Enables the integration tests when Python is there or when it is required (they then fail loudly).
    static var enabled: Bool { python != nil || required }

    let process = Process()
    /// The `ready` line's TCP port (0 with `--pty`).
    private(set) var port: UInt16 = 0
    /// The `ready` line's pty path (with `--pty`).
    private(set) var pty: String?
    /// The beacon ids the world announced.
    private(set) var beacons: [String] = []

    /// Starts the world with `arguments` and waits (at most `timeout`) for its ready line.
    init(_ arguments: [String], timeout: Duration = .seconds(20)) throws {
        guard let python = Self.python else {
            throw TimedOut(what: "a Python with bumble: set BLUEDOT_PYTHON or create .venv (see Tools/virtual-world/README.md)")
        }
        let script = Self.packageRoot.appending(path: "Tools/virtual-world/world.py").path
        process.executableURL = URL(filePath: python)
        process.arguments = [script] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        do {
            let line = try Self.readLine(output.fileHandleForReading.fileDescriptor, timeout: timeout)
            struct Ready: Decodable { var ready: Bool; var port: UInt16?; var pty: String?; var beacons: [String] }
            let ready = try JSONDecoder().decode(Ready.self, from: Data(line))
            port = ready.port ?? 0
            pty = ready.pty
            beacons = ready.beacons
        } catch {
            stop()
            throw error
        }
    }

    private static func readLine(_ fd: Int32, timeout: Duration) throws -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        var line: [UInt8] = []
        var byte: [UInt8] = [0]
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { throw TimedOut(what: "world.py's ready line") }
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
            guard try System.poll(&fds, timeout: Int32(left.milliseconds + 1)) > 0 else { continue }
            guard let count = try System.read(fd, into: &byte, label: "read(world stdout)"), count > 0 else {
                throw TimedOut(what: "world.py's ready line (it exited)")
            }
            if byte[0] == 0x0A { return line }
            line.append(byte[0])
        }
    }

    /// SIGTERM, then SIGKILL if it has not exited within two seconds; always reaps the process.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = ContinuousClock.now + .seconds(2)
        while process.isRunning && ContinuousClock.now < deadline { usleep(10_000) }
        if process.isRunning {
            Issue.record("world.py ignored SIGTERM for 2 s; killed")
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
    }

    deinit { stop() }
}

/// One advertising report, decoded just enough for the tests (the HCI module has the real decoders).
struct ReportSummary: Equatable {
    var eventType: UInt16
    var address: String
    var rssi: Int8

    /// Reports in an LE Advertising Report event (Core Spec 5.4, Vol 4, Part E, §7.7.65.2) or an LE Extended
    /// Advertising Report event (§7.7.65.13); empty for any other packet.
    static func decode(_ packet: HCIPacket) throws -> (subevent: UInt8, reports: [ReportSummary]) {
        var reader = ByteReader(packet.bytes)
        guard packet.type == .event, try reader.u8("event code") == 0x3E else { return (0, []) }
        var body = try reader.subReader(Int(try reader.u8("parameter length")), "parameters")
        let subevent = try body.u8("subevent")
        guard subevent == 0x02 || subevent == 0x0D else { return (subevent, []) }
        var reports: [ReportSummary] = []
        for _ in 0..<(try body.u8("number of reports")) {
            if subevent == 0x02 {
                let type = try body.u8("event type")
                _ = try body.u8("address type")
                let address = try body.bytes(6, "address")
                _ = try body.bytes(Int(try body.u8("data length")), "data")
                reports.append(ReportSummary(eventType: UInt16(type), address: format(address), rssi: try body.i8("rssi")))
            } else {
                let type = try body.u16("event type")
                _ = try body.u8("address type")
                let address = try body.bytes(6, "address")
                _ = try body.bytes(4, "phys, sid, tx power")
                let rssi = try body.i8("rssi")
                _ = try body.bytes(9, "periodic interval, direct address")
                _ = try body.bytes(Int(try body.u8("data length")), "data")
                reports.append(ReportSummary(eventType: type, address: format(address), rssi: rssi))
            }
        }
        try body.expectEnd("LE advertising report")
        return (subevent, reports)
    }

    /// Addresses are sent least significant byte first.
    private static func format(_ bytes: ArraySlice<UInt8>) -> String {
        AdapterSelector.format(Array(bytes.reversed()))
    }
}
