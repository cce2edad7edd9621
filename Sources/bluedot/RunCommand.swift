import ArgumentParser
import BlueDotCore
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
            which override the file. Each flag is the key of the same name (--insecure is insecure = true, \
            --espresense-prefix P is espresense = P, --no-ha-discovery is ha-discovery = false). Inputs \
            combine: one controller (--hci, --h4-tcp or --h4-tty) and any of --replay, --observations and \
            --simulate all feed one positioning engine. Listening on an address \
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

    @Option(help: "Configuration file (key = value lines).", completion: .file())
    var config: String?

    /// Every setting as a flag (`GatewaySetting.all`: `--hci`, `--venue`, `--listen`, ...).
    @OptionGroup var settings: SettingFlags<EverySetting>

    @OptionGroup var logging: LogOptions

    /// The settings from the environment (`BLUEDOT_TOKEN`), then the file, then the flags, each overriding the
    /// one before; validated as a whole. Errors name the variable, the file and line, or the flag.
    func gatewayConfiguration(environment: [String: String]) throws(ConfigurationError) -> GatewayConfiguration {
        var c = GatewayConfiguration()
        try c.apply(GatewaySetting.given(environment: environment))
        if let config { c = try ConfigurationFile.load(path: config, base: c) }
        try c.apply(settings.given)
        if c.history.store == nil { c.history.store = .stateDirectory }
        if c.selfCalibration.store == nil { c.selfCalibration.store = .stateDirectory }
        try c.validate(location: config ?? "flags")
        return c
    }

    func run() async throws {
        let logger = logging.makeLogger("bluedot.run")
        let configuration: GatewayConfiguration
        let app: GatewayApp
        do {
            configuration = try gatewayConfiguration(environment: ProcessInfo.processInfo.environment)
            let clock: any BlueDotClock = configuration.fastClock ?? SystemClock()
            if configuration.isReceiver {
                let receiver = try ReceiverApp(configuration: configuration, clock: clock, logger: logger)
                try await receiver.run()
                return
            }
            app = try GatewayApp(configuration: configuration, clock: clock, logger: logger)
        } catch {
            StandardError.write("bluedot run: \(error)")
            throw ExitCode(2)
        }
        try await app.run { address in
            logger.notice("listening", metadata: ["url": "http://\(address)/", "source": "\(app.dependencies.sourceName)"])
        }
    }
}
