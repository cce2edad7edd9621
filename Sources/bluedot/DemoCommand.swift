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

    /// `--listen`, `--token`, `--insecure` and `--history`, as `bluedot run` takes them.
    @OptionGroup var settings: SettingFlags<DemoSettings>

    @OptionGroup var logging: LogOptions

    func run() async throws {
        let logger = logging.makeLogger("bluedot.demo")
        let app: GatewayApp
        let configuration: GatewayConfiguration
        do {
            let scenario = try DemoScenario()
            var c = GatewayConfiguration()
            c.setSource(.observations(path: "demo"))
            c.mode = .tag  // many targets: the simulated walker (`self`) and the BOUN tag, one LocationSource
            c.venuePath = "demo"
            c.history.store = .memory
            try c.apply(GatewaySetting.given(environment: ProcessInfo.processInfo.environment))
            try c.apply(settings.given)
            try c.validate(location: "flags")
            configuration = c
            let clock = SystemClock()
            app = try GatewayApp(
                configuration: configuration, inputs: [scenario.source(clock: clock)], venue: scenario.venue, clock: clock,
                logger: logger)
        } catch {
            StandardError.write("bluedot demo: \(error)")
            throw ExitCode(2)
        }
        let token = configuration.token
        try await app.run { address in
            var shown = address
            if shown.host == "0.0.0.0" || shown.host == "::" { shown.host = "127.0.0.1" }
            let line = "BlueDot demo: open http://\(shown)/\(token.map { "#token=\($0)" } ?? "")\n"
            FileOutput.writeAll(STDOUT_FILENO, line)
        }
    }
}

/// `bluedot demo`'s flags: where it listens, who may use it, where the history goes.
enum DemoSettings: SettingSelection {
    static var keys: Set<String>? { ["listen", "token", "insecure", "history"] }
}
