import BeaconLocation
import BlueDotCore
import GNSS

extension GatewaySetting {
    /// Every setting, in the order help and `docs/gateway.md` list them. The order is also the order flags are
    /// applied in, which matters where one setting refines another (`user-channel` after `hci`, `baud` after
    /// `h4-tty`).
    public static let all: [GatewaySetting] = inputs + daemon + site + history + homeAssistant

    /// The row for `key`, if there is one.
    public static func named(_ key: String) -> GatewaySetting? { byKey[key] }

    private static let byKey = Dictionary(uniqueKeysWithValues: all.map { ($0.key, $0) })

    /// Sets `key` from its text `value` (a configuration file's line); throws the reason when the key is unknown
    /// or the value bad.
    public static func apply(
        key: String, value: String, to configuration: inout GatewayConfiguration
    ) throws(ConfigurationError.Reason) {
        guard let setting = named(key) else { throw .unknownKey(key) }
        try setting.apply(value, to: &configuration)
    }

    /// The settings the environment gives (non-empty variables only), to apply before the file so that the file
    /// and the flags override them.
    public static func given(environment: [String: String]) -> [GivenSetting] {
        all.compactMap { setting in
            guard let name = setting.environment, let value = environment[name], !value.isEmpty else { return nil }
            return GivenSetting(setting, value: value, origin: name)
        }
    }

    /// Where observations come from and what this gateway is in the venue.
    static let inputs: [GatewaySetting] = [
        GatewaySetting(
            "hci", .nonEmpty("adapter"), example: "hci0",
            help: "BlueZ adapter: hci0, an index, or its address (needs AF_BLUETOOTH).", alternatives: "controller"
        ) { c, adapter in c.setSource(.hci(adapter, userChannel: false)) },
        GatewaySetting(
            "user-channel", .boolean, example: "true",
            help: "With --hci: exclusive HCI user channel (the adapter must be down)."
        ) { c, on throws(ConfigurationError.Reason) in
            guard case .hci(let adapter, _)? = c.sources.first(where: \.isController) else {
                throw .conflict("user-channel needs hci before it")
            }
            c.setSource(.hci(adapter, userChannel: on))
        },
        GatewaySetting(
            "h4-tcp", .nonEmpty("host:port"), example: "127.0.0.1:9000",
            help: "H4 over TCP, HOST:PORT (a virtual or networked controller).", alternatives: "controller"
        ) { c, address in c.setSource(.h4TCP(address)) },
        GatewaySetting(
            "h4-tty", .nonEmpty("path", completion: .file), example: "/dev/ttyUSB0",
            help: "H4 over a serial line at PATH.", alternatives: "controller"
        ) { c, path in
            var baud = 115_200
            if case .h4TTY(_, let b)? = c.sources.first(where: \.isController) { baud = b }
            c.setSource(.h4TTY(path: path, baud: baud))
        },
        GatewaySetting(
            "baud", .integer("baud", in: 50...4_000_000), example: "1000000",
            help: "Serial line speed for --h4-tty (default 115200)."
        ) { c, baud throws(ConfigurationError.Reason) in
            guard case .h4TTY(let path, _)? = c.sources.first(where: \.isController) else {
                throw .conflict("baud needs h4-tty before it")
            }
            c.setSource(.h4TTY(path: path, baud: baud))
        },
        GatewaySetting(
            "replay", .file, example: "scan.btsnoop", help: "Replay a btsnoop recording at its recorded pace."
        ) { c, path in c.setSource(.replay(path: path)) },
        GatewaySetting(
            "observations", .file, example: "walk.observations.jsonl",
            help: "Replay an observation JSONL file at its recorded pace."
        ) { c, path in c.setSource(.observations(path: path)) },
        GatewaySetting(
            "simulate", .file, example: "walk.truth.jsonl",
            help: "Simulate a walk along a truth JSONL track through the venue."
        ) { c, path in c.setSource(.simulate(trackPath: path)) },
        GatewaySetting(
            "gpsd", .nonEmpty("host:port"), example: "127.0.0.1:2947",
            help: "Self mode: GNSS from gpsd at HOST:PORT (port 2947 if left out), handed over with beacons at the door."
        ) { c, endpoint throws(ConfigurationError.Reason) in
            // Checked here, so that a bad address names its file and line like every other value.
            do { _ = try GPSDLocationSource.endpoint(parsing: endpoint) } catch { throw .badValue("\(error)") }
            c.gpsd = endpoint
        },
        GatewaySetting("venue", .file, example: "lab.venue.json", help: "Venue file (JSON).", sets: \.venuePath),
        GatewaySetting(
            "mode", .mode, example: "tag",
            help: "self (the gateway locates itself) or tag (this gateway is a receiver hearing tags).", sets: \.mode
        ),
        GatewaySetting(
            "gateway-id", .topicLevel, example: "rx-1", help: "Tag mode: this receiver's anchor id in the venue.",
            sets: \.gatewayID
        ),
        GatewaySetting(
            "devices", .file, example: "devices.json",
            help: "Device registry (JSON): the phones, watches and tags tracked, by IRK, beacon id or address.",
            sets: \.devicesPath
        ),
        GatewaySetting(
            "devices-list-unknown", .boolean, example: "true",
            help: "Log each unknown device heard once, to set up the registry (default false: only counted).",
            sets: \.listUnknownDevices
        ),
    ]

    /// The web map and who may use it, recording, replays' pace, the engine's grid.
    static let daemon: [GatewaySetting] = [
        GatewaySetting(
            "listen", .listenAddress, example: "[::1]:9090", help: "HTTP address, HOST:PORT (default 127.0.0.1:8080).",
            sets: \.listen
        ),
        GatewaySetting(
            "record", .file, example: "scan.btsnoop",
            help: "Record every HCI packet of a live scan to this btsnoop file.", sets: \.recordPath
        ),
        GatewaySetting(
            "token", .nonEmpty("token"), example: "0123456789abcdef",
            help: "Bearer token for /api and /metrics (or BLUEDOT_TOKEN).", environment: "BLUEDOT_TOKEN", sets: \.token
        ),
        GatewaySetting(
            "insecure", .boolean, example: "true", help: "Allow a non-loopback --listen without a token.",
            sets: \.insecure
        ),
        GatewaySetting(
            "editable", .boolean, example: "true",
            help: "Serve the set-up page (/setup) and take the venue and device registry it saves (PUT /api/venue, "
                + "/api/devices); the files may not exist yet (default false: every save is refused with 403).",
            sets: \.editable
        ),
        GatewaySetting(
            "bluez-keys", .folder, example: "/srv/gateway-root/var/lib/bluetooth",
            help: "BlueZ's key folder, which the set-up page imports paired devices' IRKs from "
                + "(default /var/lib/bluetooth).",
            sets: \.bluezKeysPath
        ),
        GatewaySetting("loop", .boolean, example: "true", help: "Replays start over when they end.", sets: \.loop),
        GatewaySetting("speed", .number("factor"), example: "2", help: "Replay speed (1 = real time).", sets: \.speed),
        GatewaySetting(
            "interval", .number("seconds"), example: "0.5",
            help: "Seconds between fixes on each target's grid (default 1).", sets: \.intervalSeconds
        ),
        GatewaySetting(
            "stale-after", .number("seconds"), example: "8",
            help: "Seconds without an update before a target is drawn as last known (default 5).",
            sets: \.staleAfterSeconds
        ),
        GatewaySetting(
            "away-timeout", .number("seconds", in: 1...86_400), example: "60",
            help: "Seconds of silence before a target that fell silent at an exit room (anywhere, in a venue "
                + "without exits) reads not_home (default 120).",
            sets: \.awayAfterSeconds
        ),
        GatewaySetting(
            "away-timeout-inside", .number("seconds", in: 1...604_800), example: "3600",
            help: "Seconds of silence before a target that fell silent away from the exits reads not_home "
                + "(default 2700).",
            sets: \.awayAfterSecondsInside
        ),
        GatewaySetting(
            "fast-clock", .fastClock, example: "60@1767225600",
            help: "For simulations: the clock reads EPOCH + (wall - EPOCH) x RATE, every timer RATE times faster "
                + "(EPOCH defaults to the start)."
        ) { c, clock in c.fastClock = clock },
        GatewaySetting(
            "web-root", .folder, example: "/srv/bluedot-page", help: "Serve the web page from this folder.",
            sets: \.webRoot
        ),
        GatewaySetting(
            "leaflet", .folder, example: "/opt/leaflet",
            help: "Leaflet's folder (default /usr/share/javascript/leaflet).", sets: \.leafletPath
        ),
    ]
}

extension SettingKind<GatewayConfiguration.Mode> {
    /// `self` or `tag`.
    static var mode: Self {
        Self("mode", completion: .choices(["self", "tag"])) { text, _ throws(ConfigurationError.Reason) in
            guard let mode = GatewayConfiguration.Mode(rawValue: text) else {
                throw .badValue("mode must be self or tag, got \"\(text)\"")
            }
            return mode
        }
    }
}

extension SettingKind<ScaledClock> {
    /// `RATE@EPOCH` or `RATE`: a rate in (0, 10000], an epoch in Unix seconds (default: now).
    static var fastClock: Self {
        Self("rate@epoch") { text, _ throws(ConfigurationError.Reason) in
            let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
            guard let rate = Double(parts[0]), rate > 0, rate <= 10_000 else {
                throw .badValue("fast-clock's rate must be a number in (0, 10000], got \"\(parts[0])\"")
            }
            guard parts.count == 2 else { return ScaledClock(rate: rate, epoch: SystemClock().now()) }
            guard let epoch = Double(parts[1]), epoch.isFinite, epoch >= 0 else {
                throw .badValue("fast-clock's epoch must be Unix seconds, got \"\(parts[1])\"")
            }
            return ScaledClock(rate: rate, epoch: epoch)
        }
    }
}

extension SettingKind<ListenAddress> {
    /// `HOST:PORT` or `[IPv6]:PORT`.
    static var listenAddress: Self {
        Self("host:port") { text, _ throws(ConfigurationError.Reason) in
            switch ListenAddress.parse(text) {
            case .success(let address): return address
            case .failure(let reason): throw reason
            }
        }
    }
}
