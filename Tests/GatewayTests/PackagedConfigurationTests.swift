import BlueDotCore
import Foundation
import Gateway
import Testing

/// What the Debian package ships (Tools/package): the example configurations in /etc/bluedot pass `bluedot run`'s
/// own parsing and checks, each unit reads the configuration the package ships for it, and each unit holds the
/// capabilities its role needs and no more. The package itself is installed and run in a clean Debian root by
/// Tools/package/check, and the self-mode unit runs under systemd in the virtual machine (Tools/vm).
@Suite struct PackagedConfigurationTests {
    static let packageFolder = GatewayProcess.packageRoot.appendingPathComponent("Tools/package")

    func configuration(_ name: String) throws -> GatewayConfiguration {
        let path = Self.packageFolder.appendingPathComponent("etc/\(name).conf").path
        let c = try ConfigurationFile.parse(String(contentsOfFile: path, encoding: .utf8), file: path)
        try c.validate(location: path)
        return c
    }

    /// `key=value` lines of a unit, in order (a key may repeat).
    func unit(_ name: String) throws -> [(key: String, value: String)] {
        let text = try String(
            contentsOfFile: Self.packageFolder.appendingPathComponent("systemd/\(name)").path, encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") else { return nil }
            return (String(line[..<equals]), String(line[line.index(after: equals)...]))
        }
    }

    func values(_ key: String, in unit: [(key: String, value: String)]) -> [String] {
        unit.filter { $0.key == key }.map(\.value)
    }

    @Test func theSelfModeExampleScansTheFirstAdapter() throws {
        let c = try configuration("bluedot")
        #expect(c.sources == [.hci("hci0", userChannel: false)])
        #expect(c.mode == .self)
        #expect(c.venuePath == "/var/lib/bluedot/site.venue.json", "in the state folder the set-up page saves to")
        #expect(c.editable && c.devicesPath == "/var/lib/bluedot/devices.json")
        #expect(c.listen.isLoopback)
        #expect(!c.isReceiver)
    }

    @Test func theReceiverExamplePublishesItsRadio() throws {
        let c = try configuration("receiver-hci0")
        #expect(c.sources == [.hci("hci0", userChannel: false)])
        #expect(c.isReceiver)
        #expect(c.site.site == "home")
        #expect(c.gatewayID == "rx-1")
        #expect(c.venuePath == nil)
    }

    @Test func theSolverExampleSolvesTheSameSite() throws {
        let c = try configuration("solver-home")
        let receiver = try configuration("receiver-hci0")
        #expect(c.site.solverBroker != nil)
        #expect(c.site.site == receiver.site.site)
        #expect(c.mode == .tag)
        #expect(c.listen.isLoopback)
        // A self-mode gateway and a solver on one machine do not ask for the same port.
        #expect(c.listen.port != (try configuration("bluedot")).listen.port)
        // Set up in the browser on the first run, saved to the instance's state folder.
        #expect(c.editable && c.venuePath == "/var/lib/bluedot/solver-home/home.venue.json")
    }

    /// `systemctl reload` rereads the venue and the registry (SIGHUP) in the units that have them.
    @Test func theGatewayAndTheSolverReloadOnHangup() throws {
        for name in ["bluedot.service", "bluedot-solver@.service"] {
            #expect(values("ExecReload", in: try unit(name)) == ["/bin/kill -HUP $MAINPID"], "\(name)")
        }
        #expect(values("ExecReload", in: try unit("bluedot-receiver@.service")).isEmpty, "a receiver has no venue")
    }

    @Test func eachUnitReadsTheConfigurationThePackageShipsForIt() throws {
        let shipped: [(unit: String, instance: String, config: String)] = [
            ("bluedot.service", "", "bluedot"),
            ("bluedot-receiver@.service", "hci0", "receiver-hci0"),
            ("bluedot-solver@.service", "home", "solver-home"),
        ]
        for (name, instance, config) in shipped {
            let exec = try #require(values("ExecStart", in: try unit(name)).first)
            #expect(exec.replacingOccurrences(of: "%i", with: instance)
                == "/usr/bin/bluedot run --config /etc/bluedot/\(config).conf", "\(name)")
            #expect(FileManager.default.fileExists(
                atPath: Self.packageFolder.appendingPathComponent("etc/\(config).conf").path))
            #expect(values("User", in: try unit(name)) == ["bluedot"], "\(name)")
            #expect(values("NoNewPrivileges", in: try unit(name)) == ["yes"], "\(name)")
        }
    }

    @Test func scanningUnitsHoldExactlyTheRawSocketCapabilitiesAndTheSolverNone() throws {
        for name in ["bluedot.service", "bluedot-receiver@.service"] {
            let u = try unit(name)
            #expect(values("AmbientCapabilities", in: u) == ["CAP_NET_RAW CAP_NET_ADMIN"], "\(name)")
            #expect(values("CapabilityBoundingSet", in: u) == ["CAP_NET_RAW CAP_NET_ADMIN"], "\(name)")
            #expect(values("RestrictAddressFamilies", in: u).first?.contains("AF_BLUETOOTH") == true, "\(name)")
        }
        let solver = try unit("bluedot-solver@.service")
        #expect(values("AmbientCapabilities", in: solver).isEmpty)
        #expect(values("CapabilityBoundingSet", in: solver) == [""])
        #expect(values("PrivateDevices", in: solver) == ["yes"])
        #expect(values("RestrictAddressFamilies", in: solver).first?.contains("AF_BLUETOOTH") == false)
    }
}
