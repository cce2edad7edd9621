import ArgumentParser
import ControllerOptions
import FoundationEssentials
import Gateway
import Logging

/// `bluedot run`: the gateway daemon (source -> positioning -> web map, API, metrics) until SIGTERM or SIGINT.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the gateway: positions from a scanner, recordings, files or a simulation; web map, API, metrics.",
        discussion: """
            Settings come from --config (key = value lines; docs/gateway.md lists every key) and then these flags, \
            which override the file. Inputs combine: one controller (--hci, --h4-tcp or --h4-tty) and any of \
            --replay, --observations and --simulate all feed one positioning engine. Listening on an address \
            other than loopback needs --token (or the BLUEDOT_TOKEN environment variable) or --insecure. \
            SIGTERM/SIGINT stop the scan, flush the recording and exit 0.

            A site over MQTT (docs/site.md): a receiver runs with --publish MQTT_URL --site SITE --receiver ID and a \
            radio source, and publishes every report it hears; the solver runs with --mqtt MQTT_URL --site SITE \
            --venue V --mode tag (and --espresense for ESPresense nodes) and publishes every fix. The broker \
            password comes from --mqtt-password-file or the configuration file, never from a flag. The solver also \
            announces every target to Home Assistant (MQTT discovery; --no-ha-discovery turns it off).

            Every fix and room change goes into the location history (--history; by default history.sqlite in the \
            service's state directory), served at /api/history.
            """
    )

    @Option(help: "Configuration file (key = value lines).")
    var config: String?

    @OptionGroup var controller: ControllerOptions
    @Option(help: "Replay a btsnoop recording at its recorded pace.")
    var replay: String?
    @Option(help: "Replay an observation JSONL file at its recorded pace.")
    var observations: String?
    @Option(help: "Simulate a walk along a truth JSONL track through the venue.")
    var simulate: String?
    @Option(help: "Venue file (JSON).")
    var venue: String?
    @Option(help: "self (the gateway locates itself) or tag (this gateway is a receiver hearing tags).")
    var mode: String?
    @Option(name: .customLong("gateway-id"), help: "Tag mode: this receiver's anchor id in the venue.")
    var gatewayID: String?
    @Option(help: "HTTP address, HOST:PORT (default 127.0.0.1:8080).")
    var listen: String?
    @Option(help: "Record every HCI packet of a live scan to this btsnoop file.")
    var record: String?
    @Option(help: "Bearer token for /api and /metrics (or BLUEDOT_TOKEN).")
    var token: String?
    @Flag(help: "Allow a non-loopback --listen without a token.")
    var insecure = false
    @Flag(help: "Replays start over when they end.")
    var loop = false
    @Option(help: "Replay speed (1 = real time).")
    var speed: Double?

    @Option(help: "Solver role: take the site's receivers from this broker (mqtt://[user@]host[:port] or mqtts://...).")
    var mqtt: String?
    @Option(help: "Receiver role: publish every report heard to this broker (mqtt://... or mqtts://...).")
    var publish: String?
    @Option(help: "The site's name (one MQTT topic level).")
    var site: String?
    @Option(help: "Receiver role (and a solver's own radio): this receiver's id, its anchor id in the venue.")
    var receiver: String?
    @Option(name: .customLong("mqtt-password-file"), help: "File whose first line is the broker password.")
    var mqttPasswordFile: String?
    @Option(name: .customLong("mqtt-client-id"), help: "MQTT client id (default bluedot-<role>-<site>[-<receiver>]).")
    var mqttClientID: String?
    @Option(name: .customLong("mqtt-keepalive"), help: "MQTT keepalive, seconds (default 30).")
    var mqttKeepalive: Int?
    @Option(name: .customLong("mqtt-ca"), help: "CA certificates (PEM) for mqtts.")
    var mqttCA: String?
    @Option(name: .customLong("mqtt-cert"), help: "Client certificate (PEM) for mqtts.")
    var mqttCert: String?
    @Option(name: .customLong("mqtt-key"), help: "Client certificate key (PEM) for mqtts.")
    var mqttKey: String?
    @Option(name: .customLong("mqtt-protocol"), help: "auto (MQTT 5, falling back to 3.1.1), 5 or 3.1.1.")
    var mqttProtocol: String?
    @Flag(help: "Solver role: also take ESPresense nodes' reports (espresense/devices/<device>/<node>).")
    var espresense = false
    @Option(name: .customLong("espresense-prefix"), help: "ESPresense base topic (default espresense); implies --espresense.")
    var espresensePrefix: String?
    @Option(name: .customLong("publish-allow"), help: "Receiver role: comma-separated beacon-id globs to publish (default all).")
    var publishAllow: String?
    @Option(name: .customLong("publish-buffer"), help: "Receiver role: seconds of sightings kept while the broker is away (default 30).")
    var publishBuffer: Double?
    @Option(name: .customLong("reorder-window"), help: "Solver role: seconds sightings wait for slower receivers (default 0.3).")
    var reorderWindow: Double?

    @Option(help: "Location history: an SQLite file, default (the state directory's history.sqlite), memory or off.")
    var history: String?
    @Option(name: .customLong("history-retention"), help: "Days of history kept (default 30).")
    var historyRetention: Double?
    @Option(name: .customLong("history-max-size"), help: "History size cap, MiB (default 1024).")
    var historyMaxSize: Int?
    @Flag(name: .customLong("no-ha-discovery"), help: "Solver role: do not publish Home Assistant MQTT discovery.")
    var noHADiscovery = false
    @Option(name: .customLong("ha-prefix"), help: "Solver role: Home Assistant's discovery prefix (default homeassistant).")
    var haPrefix: String?
    @Option(name: .customLong("ha-allow"), help: "Solver role: comma-separated target-id globs announced to Home Assistant (default all).")
    var haAllow: String?
    @Option(name: .customLong("ha-names"), help: "Solver role: friendly names, target=Name pairs separated by commas.")
    var haNames: String?

    @OptionGroup var logging: LogOptions

    /// The file's settings with the flags applied over them, validated.
    func gatewayConfiguration(environment: [String: String]) throws(ConfigurationError) -> GatewayConfiguration {
        var c = try config.map { path throws(ConfigurationError) in try ConfigurationFile.load(path: path) }
            ?? GatewayConfiguration()
        var flags: [(String, String?)] = [
            ("hci", controller.adapter), ("h4-tcp", controller.tcp), ("h4-tty", controller.tty),
            ("baud", controller.tty == nil ? nil : String(controller.baud)),
            ("user-channel", controller.userChannel ? "true" : nil),
            ("replay", replay), ("observations", observations), ("simulate", simulate), ("venue", venue),
            ("mode", mode), ("gateway-id", gatewayID), ("listen", listen), ("record", record),
            ("token", token ?? (c.token == nil ? environment["BLUEDOT_TOKEN"] : nil)),
            ("speed", speed.map { "\($0)" }),
            ("site", site), ("receiver", receiver), ("mqtt", mqtt), ("publish", publish),
            ("mqtt-password-file", mqttPasswordFile), ("mqtt-client-id", mqttClientID),
            ("mqtt-keepalive", mqttKeepalive.map { "\($0)" }), ("mqtt-ca", mqttCA), ("mqtt-cert", mqttCert),
            ("mqtt-key", mqttKey), ("mqtt-protocol", mqttProtocol),
            ("espresense", espresensePrefix ?? (espresense ? "true" : nil)), ("publish-allow", publishAllow),
            ("publish-buffer", publishBuffer.map { "\($0)" }), ("reorder-window", reorderWindow.map { "\($0)" }),
            ("history", history), ("history-retention", historyRetention.map { "\($0)" }),
            ("history-max-size", historyMaxSize.map { "\($0)" }), ("ha-discovery", noHADiscovery ? "false" : nil),
            ("ha-prefix", haPrefix), ("ha-allow", haAllow), ("ha-names", haNames),
        ]
        if insecure { flags.append(("insecure", "true")) }
        if loop { flags.append(("loop", "true")) }
        for case let (key, value?) in flags {
            do {
                try ConfigurationKeys.apply(key: key, value: value, to: &c)
            } catch {
                throw ConfigurationError(location: "--\(key)", reason: error)
            }
        }
        if c.history.store == nil { c.history.store = .stateDirectory }
        try c.validate(location: config ?? "flags")
        return c
    }

    func run() async throws {
        let logger = logging.makeLogger("bluedot.run")
        let configuration: GatewayConfiguration
        let app: GatewayApp
        do {
            configuration = try gatewayConfiguration(environment: ProcessInfo.processInfo.environment)
            if configuration.isReceiver {
                let receiver = try ReceiverApp(configuration: configuration, logger: logger)
                try await receiver.run()
                return
            }
            app = try GatewayApp(configuration: configuration, logger: logger)
        } catch {
            StandardError.write("bluedot run: \(error)")
            throw ExitCode(2)
        }
        try await app.run { address in
            logger.notice("listening", metadata: ["url": "http://\(address)/", "source": "\(app.dependencies.sourceName)"])
        }
    }
}
