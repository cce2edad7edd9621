import ArgumentParser
import BlueDotCore
import FoundationEssentials
import Glibc
import Gateway
import Logging

/// `bluedot demo`: the gateway with bundled data and no hardware: a simulated self-mode walk through a demo lab
/// and a real tag track, replayed in a loop at real time. Prints the URL to open.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the gateway on bundled data (no hardware) and print the URL of the live map.",
        discussion: """
            Replays, in a loop at real time, a walk through the demo lab (simulated at start-up with a fixed seed) \
            and the tag of the BOUN TETAM track straight_01 (CC0). The history is kept in memory unless --history names a \
            file. Stop with Ctrl-C.
            """
    )

    @Option(help: "HTTP address, HOST:PORT.")
    var listen: String = "127.0.0.1:8080"
    @Option(help: "Bearer token for /api and /metrics (needed with a non-loopback --listen, or --insecure).")
    var token: String?
    @Flag(help: "Allow a non-loopback --listen without a token.")
    var insecure = false
    @Option(help: "Location history: an SQLite file, or memory (the default: gone at exit) or off.")
    var history: String = "memory"

    @OptionGroup var logging: LogOptions

    func run() async throws {
        let logger = logging.makeLogger("bluedot.demo")
        let app: GatewayApp
        do {
            let scenario = try DemoScenario()
            var c = GatewayConfiguration()
            try ConfigurationKeys.apply(key: "listen", value: listen, to: &c)
            c.setSource(.observations(path: "demo"))
            c.mode = .tag  // many targets: the simulated walker (`self`) and the BOUN tag, one LocationSource
            c.venuePath = "demo"
            c.token = token
            c.insecure = insecure
            try ConfigurationKeys.apply(key: "history", value: history, to: &c)
            try c.validate(location: "flags")
            let clock = SystemClock()
            app = try GatewayApp(
                configuration: c, inputs: [scenario.source(clock: clock)], venue: scenario.venue, clock: clock,
                logger: logger)
        } catch {
            StandardError.write("bluedot demo: \(error)")
            throw ExitCode(2)
        }
        let token = token
        try await app.run { address in
            var shown = address
            if shown.host == "0.0.0.0" || shown.host == "::" { shown.host = "127.0.0.1" }
            let line = "BlueDot demo: open http://\(shown)/\(token.map { "#token=\($0)" } ?? "")\n"
            FileOutput.writeAll(STDOUT_FILENO, line)
        }
    }
}
