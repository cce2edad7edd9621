import ArgumentParser
import ControllerOptions
import Foundation
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
        try c.validate(location: config ?? "flags")
        return c
    }

    func run() async throws {
        let logger = logging.makeLogger("bluedot.run")
        let configuration: GatewayConfiguration
        let app: GatewayApp
        do {
            configuration = try gatewayConfiguration(environment: ProcessInfo.processInfo.environment)
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
