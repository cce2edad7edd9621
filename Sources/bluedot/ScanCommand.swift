import ArgumentParser
import BlueDotCore
import ControllerOptions
import FoundationEssentials
import Gateway
import Glibc
import Logging
import Scanner
import ServiceLifecycle
import SystemIO

/// `bluedot scan`: scans for LE advertisements and prints one JSON line per advertising report entry.
struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Scan for BLE advertisements; print one JSON line per report entry on stdout, logs on stderr.",
        discussion: """
            Stops cleanly (scan disabled, output flushed, exit 0) on SIGINT, SIGTERM or after --duration. A dropped \
            link is retried with backoff; a controller that does not answer or refuses a command is an error.
            """
    )

    @OptionGroup var transport: ControllerOptions

    @Flag(help: "Active scanning: send scan requests and report scan responses.")
    var active = false

    @Option(help: "Stop after this many seconds (default: run until SIGINT/SIGTERM).")
    var duration: Double?

    @Option(help: "Record every HCI packet both ways to this btsnoop file (Wireshark, btmon -r).")
    var record: String?

    @Option(help: "Scan interval in milliseconds (2.5 ... 10240 legacy, ... 40960 extended).")
    var interval: Double = 100

    @Option(help: "Scan window in milliseconds, at most the interval.")
    var window: Double = 100

    @Flag(help: "Use legacy scanning commands even when the controller supports extended scanning.")
    var legacy = false

    @Option(help: "Seconds the controller has to answer each command.")
    var commandTimeout: Double = 2

    @OptionGroup var logging: LogOptions

    var scanConfiguration: ScanConfiguration {
        ScanConfiguration(
            active: active, interval: .microseconds(Int64(interval * 1000)), window: .microseconds(Int64(window * 1000)),
            procedure: legacy ? .legacy : .automatic, commandTimeout: .microseconds(Int64(commandTimeout * 1e6)))
    }

    func validate() throws {
        guard transport.sourcesGiven == 1 else { throw ValidationError("give exactly one of --hci, --h4-tcp, --h4-tty") }
        if let duration, !(duration > 0) { throw ValidationError("--duration must be positive") }
        guard commandTimeout > 0 else { throw ValidationError("--command-timeout must be positive") }
        do { try scanConfiguration.validate() } catch { throw ValidationError("\(error)") }
    }

    func run() async throws {
        let logger = logging.makeLogger("bluedot.scan")
        guard let link = try transport.makeTransport() else {
            throw ValidationError("give exactly one of --hci, --h4-tcp, --h4-tty")
        }
        var recorder: BtsnoopRecording?
        if let record {
            recorder = try BtsnoopRecording(path: record, logger: logger)
        }
        let clock = SystemClock()
        let scanner = LEScanner(
            transport: link, configuration: scanConfiguration, recorder: recorder, clock: clock, logger: logger)
        signal(SIGPIPE, SIG_IGN)  // a closed stdout becomes EPIPE: stop cleanly instead of dying mid-scan
        let output = LineOutput(flushEachLine: true) {
            logger.notice("stdout closed; stopping")
            scanner.stop()
        }
        let timer = duration.map { seconds in
            Task {
                try? await clock.sleep(seconds: seconds)
                scanner.stop()
            }
        }
        defer {
            timer?.cancel()
            output.flush()
            recorder?.close()
        }
        logger.info("starting", metadata: ["transport": "\(link.name)"])
        // SIGTERM and SIGINT through ServiceLifecycle, as for `bluedot run`: a graceful shutdown stops the scan.
        let scan = ScanService(scanner: scanner, output: output)
        // The scan ending (its duration, a closed stdout, a failure) ends the group as a signal would.
        // The group says which signal stopped the scan (`signal=SIGTERM`), and nothing else of its own.
        var group = ServiceGroupConfiguration(
            services: [.init(service: scan, successTerminationBehavior: .gracefullyShutdownGroup)],
            gracefulShutdownSignals: [.sigterm, .sigint], cancellationSignals: [],
            logger: Logger(label: "bluedot.scan", factory: SignalNoticeLogHandler.init))
        group.logging.keys.signalKey = SignalNoticeLogHandler.signalKey
        do {
            try await ServiceGroup(configuration: group).run()
            if let failure = scan.failure.value { throw failure }
        } catch {
            logger.info("statistics", metadata: ["summary": "\(scanner.statistics.summary)"])
            StandardError.write("bluedot scan: \(error)")
            throw ExitCode.failure
        }
        logger.info("stopped", metadata: ["summary": "\(scanner.statistics.summary)"])
    }
}

/// The scan as a lifecycle service: it prints every sighting until the scanner stops, and a graceful shutdown
/// (SIGTERM, SIGINT) stops the scanner. The scanner's own error is kept in `failure` (the service then ends as if
/// the scan had), so that the command says it as the scanner put it, not wrapped in the group's.
private final class ScanService: Service, Sendable {
    let scanner: LEScanner
    let output: LineOutput
    let failure = LockedValue<(any Error)?>(nil)

    init(scanner: LEScanner, output: LineOutput) {
        self.scanner = scanner
        self.output = output
    }

    func run() async throws {
        let (scanner, output) = (scanner, output)
        do {
            try await withGracefulShutdownHandler {
                try await scanner.run { sighting in output.write { sighting.appendJSON(to: &$0) } }
            } onGracefulShutdown: {
                scanner.stop()
            }
        } catch {
            failure.withLock { $0 = error }
        }
    }
}
