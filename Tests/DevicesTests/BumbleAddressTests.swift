import Devices
import Foundation
import HCI
import Testing

/// Resolvable private addresses made by Google Bumble (`Address.generate_private_address(irk)`, the virtual
/// world's library) resolve with the registry's key, and those of another key do not. Bumble takes the IRK least
/// significant byte first (SMP's order); the registry writes it most significant first. Needs a Python with
/// bumble (BLUEDOT_PYTHON or .venv/bin/python); skipped without one unless BLUEDOT_REQUIRE_INTEGRATION=1.
@Suite(.enabled(if: BumblePython.path != nil
                    || ProcessInfo.processInfo.environment["BLUEDOT_REQUIRE_INTEGRATION"] == "1",
                "no Python with bumble: set BLUEDOT_PYTHON or create .venv"))
struct BumbleAddressTests {
    static var python: String? { BumblePython.path }

    /// `count` RPAs Bumble makes from `irkHex` (registry order), as `AA:BB:…`.
    static func bumbleAddresses(irkHex: String, count: Int) throws -> [BDAddress] {
        let python = try #require(Self.python, "no Python with bumble")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", """
            import sys
            from bumble.hci import Address
            irk = bytes.fromhex(sys.argv[1])[::-1]  # Bumble takes the key least significant byte first
            for _ in range(int(sys.argv[2])):
                a = Address.generate_private_address(irk)
                assert a.is_resolvable
                print(a.to_string(False))
            """, irkHex, "\(count)"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "bumble failed")
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { BDAddress(String($0)) }
    }

    @Test func bumblesAddressesResolveAndOthersDoNot() throws {
        let alice = "ec0234a357c8ad05341010a60a397d9b", stranger = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
        let registry = try DeviceRegistry(devices: [
            Device(id: "alice-phone", name: "Alice's phone", irks: [IdentityResolvingKey(hex: alice)!]),
        ])
        let ids = try #require(DeviceIdentifier(registry: registry))
        let hers = try Self.bumbleAddresses(irkHex: alice, count: 20)
        let others = try Self.bumbleAddresses(irkHex: stranger, count: 20)
        #expect(hers.count == 20 && others.count == 20)
        #expect(Set(hers).count > 15, "fresh addresses")
        for a in hers {
            #expect(ids.identify(address: a, type: .random, beaconID: nil, at: 0) == .device("alice-phone"), "\(a)")
        }
        for a in others { #expect(ids.identify(address: a, type: .random, beaconID: nil, at: 0) == .stranger, "\(a)") }
        #expect(ids.statistics.strangers == 20 && ids.statistics.privateStrangers == 20)
    }
}

/// The Python with Bumble: `BLUEDOT_PYTHON`, else the package's `.venv/bin/python`, when executable.
enum BumblePython {
    static var path: String? {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        let path = ProcessInfo.processInfo.environment["BLUEDOT_PYTHON"] ?? root.path + "/.venv/bin/python"
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }
}
