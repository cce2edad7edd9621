import Foundation
import HCI
import Testing
@testable import SystemIO

extension LinuxTransportTests {
    /// End to end: world.py's Bumble controller over H4/TCP, driven with hand-built HCI commands.
    @Suite(.enabled(if: VirtualWorld.enabled, "no Python with bumble: set BLUEDOT_PYTHON or create .venv; BLUEDOT_REQUIRE_INTEGRATION=1 makes this a failure"))
    struct VirtualWorldIntegration {
        /// Set Event Mask with LE Meta (bit 61) added to the default mask (Core Spec 5.4, Vol 4, Part E, §7.3.1).
        static let setEventMask = Bytes.command(0x0C01, le64(0x0000_1FFF_FFFF_FFFF | 1 << 61))
        /// LE Set Scan Parameters: passive, interval and window 10 ms, public own address, accept all (§7.8.10).
        static let setScanParameters = Bytes.command(0x200B, [0x00, 0x10, 0x00, 0x10, 0x00, 0x00, 0x00])
        /// LE Set Scan Enable: on, no duplicate filtering (§7.8.11).
        static let setScanEnable = Bytes.command(0x200C, [0x01, 0x00])
        /// LE Set Event Mask: the default five plus LE Extended Advertising Report (bit 12) (§7.8.1).
        static let setLEEventMask = Bytes.command(0x2001, le64(0x1F | 1 << 12))
        /// LE Set Extended Scan Parameters: public, accept all, LE 1M only, passive, 10 ms / 10 ms (§7.8.64).
        static let setExtendedScanParameters = Bytes.command(0x2041, [0x00, 0x00, 0x01, 0x00, 0x10, 0x00, 0x10, 0x00])
        /// LE Set Extended Scan Enable: on, no duplicate filtering, no duration, no period (§7.8.65).
        static let setExtendedScanEnable = Bytes.command(0x2042, [0x01, 0x00, 0x00, 0x00, 0x00, 0x00])

        static func le64(_ value: UInt64) -> [UInt8] {
            var writer = ByteWriter()
            writer.u64(value)
            return writer.bytes
        }

        /// The iBeacon in beacons.json is 5 m from the receiver (3-4-5): -59 - 20 log10(5) = -72.98, sent as -73.
        static let iBeaconAddress = "C0:00:00:00:00:01"

        /// Sends `commands`, then collects reports until every beacon was heard (at most `timeout`).
        static func scan(world: VirtualWorld, commands: [HCIPacket], timeout: Duration = .seconds(10))
            async throws -> (subevents: Set<UInt8>, reports: [ReportSummary], completes: Int) {
            let transport = if let pty = world.pty {
                try H4StreamTransport(serialPath: pty, baudRate: 1_000_000)
            } else {
                try H4StreamTransport(tcp: "127.0.0.1:\(world.port)")
            }
            let collector = await PacketCollector.start(try await transport.open())
            for command in commands { try await transport.send(command) }
            let deadline = ContinuousClock.now + timeout
            var subevents: Set<UInt8> = []
            var reports: [ReportSummary] = []
            var completes = 0
            while ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                let packets = await collector.packets
                subevents = []
                reports = []
                completes = packets.filter { $0.bytes.first == 0x0E }.count
                for packet in packets {
                    let decoded = try ReportSummary.decode(packet)
                    if !decoded.reports.isEmpty { subevents.insert(decoded.subevent) }
                    reports += decoded.reports
                }
                if Set(reports.map(\.address)).count == world.beacons.count { break }
            }
            await transport.close()
            return (subevents, reports, completes)
        }

        @Test func legacyScanReceivesAdvertisingReportsWithModelRSSI() async throws {
            guard VirtualWorld.python != nil else {
                Issue.record("BLUEDOT_REQUIRE_INTEGRATION=1 but no Python: set BLUEDOT_PYTHON or create .venv")
                return
            }
            let world = try VirtualWorld(["--port", "0"])
            defer { world.stop() }
            #expect(world.beacons.count == 5)
            let result = try await Self.scan(world: world, commands: [
                Bytes.reset, Self.setEventMask, Self.setScanParameters, Self.setScanEnable,
            ])
            #expect(result.completes == 4)
            #expect(result.subevents == [0x02])
            #expect(Set(result.reports.map(\.address)).count == 5)
            let iBeacon = result.reports.filter { $0.address == Self.iBeaconAddress }
            #expect(!iBeacon.isEmpty)
            #expect(iBeacon.allSatisfy { $0.rssi == -73 && $0.eventType == 0x03 })  // ADV_NONCONN_IND, no noise
        }

        @Test func extendedScanReceivesExtendedReports() async throws {
            guard VirtualWorld.python != nil else {
                Issue.record("BLUEDOT_REQUIRE_INTEGRATION=1 but no Python: set BLUEDOT_PYTHON or create .venv")
                return
            }
            let world = try VirtualWorld(["--port", "0", "--features", "extended"])
            defer { world.stop() }
            let result = try await Self.scan(world: world, commands: [
                Bytes.reset, Self.setEventMask, Self.setLEEventMask, Self.setExtendedScanParameters,
                Self.setExtendedScanEnable,
            ])
            #expect(result.completes == 5)
            #expect(result.subevents == [0x0D])
            #expect(Set(result.reports.map(\.address)).count == 5)
            // Legacy PDU, non-connectable, non-scannable; same model RSSI as the legacy path.
            #expect(result.reports.filter { $0.address == Self.iBeaconAddress }.allSatisfy { $0.rssi == -73 && $0.eventType == 0x10 })
        }

        @Test func legacyControllerRejectsExtendedScanning() async throws {
            guard VirtualWorld.python != nil else {
                Issue.record("BLUEDOT_REQUIRE_INTEGRATION=1 but no Python: set BLUEDOT_PYTHON or create .venv")
                return
            }
            let world = try VirtualWorld(["--port", "0", "--features", "legacy"])
            defer { world.stop() }
            let transport = try H4StreamTransport(tcp: "127.0.0.1:\(world.port)")
            let collector = await PacketCollector.start(try await transport.open())
            try await transport.send(Self.setExtendedScanParameters)
            let packets = try await collector.waitForPackets(1, timeout: .seconds(10))
            // Command Complete: num packets, opcode 0x2041, status 0x01 Unknown HCI Command.
            #expect(packets.first?.bytes == [0x0E, 0x04, 0x01, 0x41, 0x20, 0x01])
            await transport.close()
        }

        @Test func legacyScanOverAPseudoTerminal() async throws {
            guard VirtualWorld.python != nil else {
                Issue.record("BLUEDOT_REQUIRE_INTEGRATION=1 but no Python: set BLUEDOT_PYTHON or create .venv")
                return
            }
            let world = try VirtualWorld(["--pty"])
            defer { world.stop() }
            #expect(world.pty?.hasPrefix("/dev/pts/") == true)
            let result = try await Self.scan(world: world, commands: [
                Bytes.reset, Self.setEventMask, Self.setScanParameters, Self.setScanEnable,
            ])
            #expect(result.completes == 4)
            #expect(Set(result.reports.map(\.address)).count == 5)
            #expect(result.reports.filter { $0.address == Self.iBeaconAddress }.allSatisfy { $0.rssi == -73 })
        }
    }
}
