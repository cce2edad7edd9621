import BeaconLocation
import BlueDotCore
import HomeAssistant
import Positioning
import Site

/// Everything `bluedot run` needs: where observations come from, the venue, the mode, the HTTP side.
///
/// Built from a configuration file (`ConfigurationFile`) and then overridden by flags; `validate()` checks the
/// whole and names the offending key. The reference is `docs/gateway.md`.
public struct GatewayConfiguration: Sendable, Hashable {
    /// Where observations come from: at most one controller and any of the files, all feeding one engine.
    public enum Source: Sendable, Hashable {
        /// A BlueZ adapter (`hci0`, an index or its address), on the raw channel or BlueZ's exclusive user channel.
        case hci(String, userChannel: Bool)
        /// An H4 controller over TCP, `HOST:PORT`.
        case h4TCP(String)
        /// An H4 controller on a serial line.
        case h4TTY(path: String, baud: Int)
        /// A btsnoop recording replayed at its recorded pace.
        case replay(path: String)
        /// An observation JSONL file replayed at its recorded pace.
        case observations(path: String)
        /// A simulated walk along a truth JSONL track through the venue.
        case simulate(trackPath: String)
        /// A site's receivers (and ESPresense nodes) over MQTT: the solver role (`site` names the site).
        case site(broker: String)
    }

    /// Self mode: the gateway is the target and hears fixed beacons; tag mode: fixed receivers hear moving tags.
    public typealias Mode = SightingMapper.Mode

    /// The inputs, in the order given: at most one controller (a later controller key replaces the earlier one, so
    /// flags override the file) and at most one of each file kind.
    public var sources: [Source] = []
    /// gpsd's address (`host:port`, or a host for port 2947): self mode takes GNSS fixes and headings from it and
    /// hands over between them and the beacons (`docs/gnss.md`).
    public var gpsd: String?
    /// The venue file.
    public var venuePath: String?
    /// Self or tag mode (a receiver is always a fixed receiver hearing tags, whatever this says).
    public var mode: Mode = .self
    /// The HTTP listen address.
    public var listen: ListenAddress = .loopbackDefault
    /// A btsnoop file recording every HCI packet (live sources only).
    public var recordPath: String?
    /// Bearer token required on /api and /metrics.
    public var token: String?
    /// Allows a non-loopback listen address without a token.
    public var insecure = false
    /// Replays (recordings, observation files, simulations) start over when they end.
    public var loop = false
    /// Replay speed: 1 is real time.
    public var speed = 1.0
    /// In tag mode, the anchor id of this gateway's own receiver in the venue.
    public var gatewayID: String?
    /// The device registry (`docs/formats.md`, "Devices"): the devices tracked, by any identity they show.
    public var devicesPath: String?
    /// Log each unknown device heard once, for setting up (off: strangers are only counted).
    public var listUnknownDevices = false
    /// Serve the set-up page's saves (`PUT /api/venue`, `/api/devices`); the venue and registry files may not
    /// exist yet (a fresh install: the page saves the first ones).
    public var editable = false
    /// BlueZ's key folder, which the set-up page imports devices' IRKs from.
    public var bluezKeysPath = "/var/lib/bluetooth"
    /// Seconds between fixes on each target's grid.
    public var intervalSeconds = 1.0
    /// A fix older than this is drawn as last known (grey), seconds.
    public var staleAfterSeconds = 5.0
    /// Clock seconds of silence after which a target that fell silent in or beside an exit room (every target, in a
    /// venue without exits) is `not_home` (`PresenceRule`).
    public var awayAfterSeconds = PresenceRule.defaultAwayAfterSeconds
    /// Clock seconds of silence after which a target that fell silent elsewhere is `not_home`.
    public var awayAfterSecondsInside = PresenceRule.defaultAwayAfterSecondsInside
    /// For simulations (`fast-clock`): the daemon's one clock runs this much faster than the wall clock from this
    /// epoch (nil: the wall clock).
    public var fastClock: ScaledClock?
    /// The folder of the web page (nil: the one bundled with the program).
    public var webRoot: String?
    /// Leaflet's folder (Debian's libjs-leaflet).
    public var leafletPath = "/usr/share/javascript/leaflet"
    /// The site over MQTT: the receiver role (`publish`) or the solver role (`mqtt`).
    public var site = SiteConfiguration()
    /// Where the location history goes (`history`, `docs/gateway.md`, "History").
    public var history = HistorySettings()
    /// Learning the anchors' models from ordinary traffic (`self-calibration`, `learned-calibration`,
    /// docs/positioning.md, "Self-calibration").
    public var selfCalibration = SelfCalibrationSettings()
    /// Home Assistant MQTT discovery, published by a site's solver (`ha-*`, `docs/site.md`, "Home Assistant").
    public var homeAssistant = HomeAssistantSettings()

    /// The receiver role: publish what the radio hears to the site's broker; no engine, no web map.
    public var isReceiver: Bool { site.publishBroker != nil }

    /// A campus view: many sites' locations from one broker (`sites`); no engine, no venue of its own.
    public var isCampus: Bool { !site.sites.isEmpty }

    /// An empty configuration with the defaults.
    public init() {}

    /// Checks the configuration as a whole; `location` names where it came from in errors.
    public func validate(location: String = "configuration") throws(ConfigurationError) {
        func fail(_ key: String?, _ reason: ConfigurationError.Reason) -> ConfigurationError {
            ConfigurationError(location: location, key: key, reason: reason)
        }
        guard !sources.isEmpty || gpsd != nil else {
            throw fail(nil, .conflict("no source: give one of hci, h4-tcp, h4-tty, replay, observations, simulate, gpsd"))
        }
        if gpsd != nil {
            guard mode == .self, !isReceiver, site.solverBroker == nil else {
                throw fail("gpsd", .conflict("gpsd locates this gateway itself: self mode, not a receiver or a solver"))
            }
        }

        if isReceiver {
            guard site.site != nil else { throw fail("site", .conflict("publish needs site (the site's name)")) }
            guard gatewayID != nil else { throw fail("receiver", .conflict("publish needs receiver (this receiver's id)")) }
            guard venuePath == nil else {
                throw fail("venue", .conflict("a receiver publishes what it hears and does not solve: drop venue"))
            }
            guard site.solverBroker == nil else {
                throw fail("mqtt", .conflict("one process is a receiver (publish) or a solver (mqtt), not both"))
            }
            if let other = sources.first(where: { !$0.isRadio }) {
                throw fail(other.key, .conflict("a receiver publishes radio reports: hci, h4-tcp, h4-tty or replay"))
            }
        } else if isCampus {
            guard site.solverBroker != nil else {
                throw fail("sites", .conflict("a campus view reads the sites from a broker: set mqtt"))
            }
            if let own = site.site, site.sites.contains(own) {
                throw fail("site", .conflict("a campus view's own name (site) is not one of the sites it shows"))
            }
            guard venuePath == nil else {
                throw fail("venue", .conflict("a campus view takes each site's venue from its solver: drop venue"))
            }
            if let other = sources.first(where: { $0.key != "mqtt" }) {
                throw fail(other.key, .conflict("a campus view solves nothing: its one input is mqtt"))
            }
            if homeAssistant.isConfigured, site.site == nil {
                throw fail("site", .conflict(
                    "a campus view announces to Home Assistant under a name of its own: set site (e.g. campus)"))
            }
        } else {
            guard venuePath != nil else { throw fail("venue", .conflict("a venue file is required")) }
        }
        if site.solverBroker != nil, !isCampus {
            guard site.site != nil else { throw fail("site", .conflict("mqtt needs site (the site's name)")) }
            guard mode == .tag else { throw fail("mode", .conflict("a site's solver locates tags: mode tag")) }
        }
        if site.espresensePrefix != nil, site.solverBroker == nil {
            throw fail("espresense", .conflict("espresense reports come through the solver's broker: set mqtt"))
        }
        if !listen.isLoopback && token == nil && !insecure {
            throw fail("listen", .conflict("\(listen) is reachable from other machines: set a token, or insecure = true"))
        }
        if let token, token.count < 16 || !token.allSatisfy({ $0.isASCII && !$0.isWhitespace }) {
            throw fail("token", .badValue("a token is at least 16 printable ASCII characters without spaces"))
        }
        if recordPath != nil && !sources.contains(where: \.isController) {
            throw fail("record", .conflict("recording needs a live source (hci, h4-tcp, h4-tty)"))
        }
        if site.advertise {
            guard site.site != nil, gatewayID != nil else {
                throw fail("advertise", .conflict("advertise needs site and receiver: the advertised id is made of them"))
            }
            guard sources.contains(where: \.isController) else {
                throw fail("advertise", .conflict("advertising needs a live radio (hci, h4-tcp, h4-tty)"))
            }
        }
        if mode == .tag, gatewayID == nil, sources.contains(where: \.isRadio) {
            throw fail("gateway-id", .conflict("tag mode with a radio source needs gateway-id (this receiver's anchor id)"))
        }
        guard speed > 0, speed.isFinite, speed <= 1000 else { throw fail("speed", .badValue("must be in (0, 1000]")) }
        guard intervalSeconds >= 0.1, intervalSeconds <= 60 else {
            throw fail("interval", .badValue("must be 0.1 ... 60 seconds"))
        }
        guard staleAfterSeconds > 0, staleAfterSeconds <= 3600 else {
            throw fail("stale-after", .badValue("must be in (0, 3600] seconds"))
        }
        if homeAssistant.isConfigured, site.solverBroker == nil {
            throw fail("ha-discovery", .conflict("Home Assistant discovery goes through the solver's broker: set mqtt"))
        }
    }
}

/// The location history's settings: where the database is, how long fixes are kept, how large it may grow.
public struct HistorySettings: Sendable, Hashable {
    /// Where the database is.
    public enum Store: Sendable, Hashable {
        /// The default: `history.sqlite` in the service's state directory (`$STATE_DIRECTORY`, which systemd sets
        /// from `StateDirectory=`), else in `$XDG_STATE_HOME/bluedot`, else in `~/.local/state/bluedot`.
        case stateDirectory
        /// This file.
        case file(String)
        /// In memory, gone at exit (`bluedot demo`'s default).
        case memory
        /// No history.
        case off
    }

    /// Where the database is; nil: the command's default (`bluedot run`: the state directory; `bluedot demo`:
    /// memory; a `GatewayApp` made in code: none).
    public var store: Store?
    /// Fixes older than this are deleted, days.
    public var retentionDays = 30.0
    /// The database's size cap, bytes; the oldest fixes go first.
    public var maxBytes: Int64 = 1 << 30

    /// The defaults.
    public init() {}

    /// The database file for `.stateDirectory` with this environment; nil when no folder can be named.
    public static func defaultPath(environment: [String: String]) -> String? {
        StateDirectory.file("history.sqlite", environment: environment)
    }
}

/// The service's state directory, where the history and what self-calibration learned are kept by default.
public enum StateDirectory {
    /// A file of the state directory: `$STATE_DIRECTORY` (which systemd sets from `StateDirectory=`), else
    /// `$XDG_STATE_HOME/bluedot`, else `~/.local/state/bluedot`; nil when no folder can be named.
    public static func file(_ name: String, environment: [String: String]) -> String? {
        if let state = environment["STATE_DIRECTORY"]?.split(separator: ":").first, !state.isEmpty {
            return String(state) + "/" + name
        }
        if let xdg = environment["XDG_STATE_HOME"], xdg.hasPrefix("/") { return xdg + "/bluedot/" + name }
        if let home = environment["HOME"], home.hasPrefix("/") { return home + "/.local/state/bluedot/" + name }
        return nil
    }
}

/// Self-calibration's settings: whether the engine learns the anchors' models, and where what it learned is kept.
public struct SelfCalibrationSettings: Sendable, Hashable {
    /// Whether the engine learns (default: yes).
    public var enabled = true
    /// Where what was learned is kept across restarts, as the history's store: `learned-calibration.json` in the
    /// state directory, a file, or memory (`off` and `memory`: learned again after each start); nil: the command's
    /// default (`bluedot run`: the state directory; otherwise memory).
    public var store: HistorySettings.Store?

    /// The defaults.
    public init() {}

    /// The file name in the state directory.
    public static let fileName = "learned-calibration.json"
}

/// Home Assistant MQTT discovery by a site's solver: on unless turned off, under its discovery prefix, for the
/// targets allowed, with friendly names.
public struct HomeAssistantSettings: Sendable, Hashable {
    /// Whether the solver publishes discovery (default: yes).
    public var enabled = true
    /// The discovery prefix Home Assistant listens on.
    public var prefix = "homeassistant"
    /// Target-id globs to announce; empty: every target.
    public var allow: [IDPattern] = []
    /// Friendly names by target id: the one "target id -> display name" lookup Home Assistant's device names and
    /// entity ids come from.
    public var names: [String: String] = [:]
    /// Targets whose Home Assistant entities the solver removes (and does not announce).
    public var remove: [String] = []
    /// Whether any `ha-*` key was given (they need a solver).
    public var isConfigured = false

    /// The defaults.
    public init() {}
}

extension GatewayConfiguration.Source {
    /// The configuration key (and flag) that gives this kind of input.
    public var key: String {
        switch self {
        case .hci: "hci"
        case .h4TCP: "h4-tcp"
        case .h4TTY: "h4-tty"
        case .replay: "replay"
        case .observations: "observations"
        case .simulate: "simulate"
        case .site: "mqtt"
        }
    }

    /// A live controller (at most one per gateway).
    public var isController: Bool {
        switch self {
        case .hci, .h4TCP, .h4TTY: true
        default: false
        }
    }

    /// Packets heard by a radio, live or recorded: mapped to observations by the gateway's mode.
    public var isRadio: Bool {
        switch self {
        case .hci, .h4TCP, .h4TTY, .replay: true
        case .observations, .simulate, .site: false
        }
    }

    /// Kinds that replace each other: the controllers are one kind, each file another.
    var kind: String { isController ? "controller" : key }
}

extension GatewayConfiguration {
    /// Adds an input, replacing one of the same kind.
    public mutating func setSource(_ source: Source) {
        sources.removeAll { $0.kind == source.kind }
        sources.append(source)
    }
}
