import BlueDotCore
import HCI
import Logging

/// Scans for LE advertisements over any `HCITransport`, turning every report entry into a `Sighting`, and keeps
/// scanning through dropped links and controller hardware errors until stopped.
///
/// One `run` per scanner. The session: open the link, run the init sequence (`ControllerSession`), start
/// scanning, then deliver sightings until `stop()` (scan disabled under its deadline, link closed), a dropped link
/// (logged, retried with `ReconnectBackoff`, counted in `statistics.reconnects` when it comes back), or a Hardware
/// Error event (logged, init sequence re-run). A controller that does not answer a command in time, or refuses
/// one, ends `run` with a `ScannerError` naming the command; so does a link that cannot be opened at the start.
public final class LEScanner: Sendable {
    /// The link to the controller.
    public let transport: any HCITransport
    /// How to scan.
    public let configuration: ScanConfiguration
    /// How long to wait between reconnect attempts.
    public let backoff: ReconnectBackoff
    /// The stall rule the scan is watched with; nil: it is not watched.
    public let supervision: ScanWatch?

    let recorder: (any HCIPacketRecorder)?
    let clock: any BlueDotClock
    let logger: Logger
    let signals: AsyncStream<ScannerSignal>
    let signalSink: AsyncStream<ScannerSignal>.Continuation
    let state = LockedValue(ScannerState())

    /// Creates a scanner.
    ///
    /// - Parameters:
    ///   - clock: stamps sightings and recorded packets (Unix seconds for `SystemClock`); command deadlines and
    ///     reconnect backoff wait on it.
    ///   - recorder: receives every packet sent and received (for `--record`).
    ///   - supervision: the stall rule (`ScanWatch`), looked at once a second on `clock`; nil: none.
    public init(
        transport: any HCITransport, configuration: ScanConfiguration = ScanConfiguration(),
        backoff: ReconnectBackoff = ReconnectBackoff(), recorder: (any HCIPacketRecorder)? = nil,
        clock: any BlueDotClock = SystemClock(), supervision: ScanWatch? = ScanWatch(), logger: Logger
    ) {
        self.transport = transport
        self.configuration = configuration
        self.backoff = backoff
        self.supervision = supervision
        state.withLock { $0.watch = supervision ?? ScanWatch() }
        self.recorder = recorder
        self.clock = clock
        self.logger = logger
        (signals, signalSink) = AsyncStream.makeStream(of: ScannerSignal.self)
    }

    /// What the scanner has seen so far; safe to read from any thread while it runs.
    public var statistics: ScannerStatistics {
        state.withLock { state in
            var statistics = state.decoder.statistics
            statistics.reconnects = state.reconnects
            statistics.scanRecoveries = state.recoveries
            statistics.lastError = state.lastError
            return statistics
        }
    }

    /// True once the scan is running on the controller (after the init sequence), false while (re)connecting.
    public var isScanning: Bool { state.withLock { $0.scanning } }

    /// True while the scan is stalled: set up, but silent for longer than its recent report rate explains
    /// (`ScanWatch`), until a report comes again.
    public var isStalled: Bool { state.withLock { $0.watch.episode != nil } }

    /// True while the controller advertises `configuration.advertisement` beside the scan; false when none is
    /// configured, while (re)connecting, and when the controller refused it.
    public var isAdvertising: Bool { state.withLock { $0.advertising } }

    /// Asks `run` to disable scanning, close the link and return. Safe to call from any thread, more than once.
    public func stop() {
        signalSink.yield(.stop)
    }

    /// Scans until `stop()` (or cancellation of the calling task), calling `onSighting` with each sighting from the
    /// link's reader task, in the order received, and `onScanning` each time the controller starts scanning (after
    /// the init sequence, again after a reconnect).
    public func run(
        onScanning: @escaping @Sendable () -> Void = {}, _ onSighting: @escaping @Sendable (Sighting) -> Void
    ) async throws(ScannerError) {
        try configuration.validate()
        let alreadyStarted = state.withLock { state in
            defer { state.started = true }
            return state.started
        }
        guard !alreadyStarted else {
            throw .invalidConfiguration(field: "run", reason: "an LEScanner runs once; create another to scan again")
        }
        let result: Result<Void, ScannerError> = await withTaskCancellationHandler {
            do throws(ScannerError) {
                try await connectLoop(onScanning: onScanning, onSighting)
                return .success(())
            } catch {
                return .failure(error)
            }
        } onCancel: {
            signalSink.yield(.stop)
        }
        try result.get()
    }

    /// The sightings as an async sequence; ending the iteration stops the scan cleanly.
    public func sightings() -> AsyncThrowingStream<Sighting, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Sighting.self)
        Task {
            do {
                try await self.run { continuation.yield($0) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { [weak self] _ in self?.stop() }
        return stream
    }

    func note(error: String) {
        state.withLock { $0.lastError = error }
    }
}

/// What the run loop waits for.
enum ScannerSignal: Sendable {
    /// `stop()` was called.
    case stop
    /// The link of connection `generation` ended.
    case dropped(generation: Int, reason: String)
    /// The controller of connection `generation` reported a hardware error.
    case hardwareError(generation: Int, code: UInt8)
    /// The controller of connection `generation` answered a scan enable command that this scanner did not send:
    /// another program on the adapter turned the scan off (or on, with its own parameters).
    case scanChangedElsewhere(generation: Int)
    /// The controller of connection `generation` answered a Reset this scanner did not send: the kernel set it up
    /// again after it was powered up (or another program reset it), and the scan is gone with its set-up.
    case resetElsewhere(generation: Int)
    /// Time to look at connection `generation`'s scan for a stall (`ScanWatch`), once a `watchInterval`.
    case watch(generation: Int)
    /// Backoff wait `token` is over.
    case wake(token: Int)
}

extension LEScanner {
    /// How long the scanner waits, after another program's scan command, before it sets its own scan up again: the
    /// other program's sequence (`bluetoothctl scan off` sends one command; `hcitool lescan`'s end two) is over by
    /// then, and a program that keeps changing it is not answered faster than once a second.
    static let rearmDelay = Duration.seconds(1)
    /// Another program's scan commands within this long of the last (seconds) are one episode: logged once, and each
    /// re-arm waits twice as long as the one before, up to `longestRearmDelay`, so that the scanner does not answer
    /// a program that keeps changing the scan once a second.
    static let elsewhereEpisodeSeconds = 60.0
    /// See `elsewhereEpisodeSeconds`. In the VM, bluetoothd starting, a client's discovery on and off and a power
    /// cycle through bluetoothd changed the scan 6 times in 40 s, the last after the power-on: with 30 s the scan
    /// came back 4.2 s after it (a wait of 4 s); a longer wait would only be a longer deafness after a change
    /// that turned the scan off.
    static let longestRearmDelay = Duration.seconds(4)
    /// How often the scan is looked at for a stall.
    static let watchInterval = Duration.seconds(1)
}

/// The scanner's mutable state, behind its mutex.
struct ScannerState: Sendable {
    var decoder = SightingDecoder()
    var reconnects = 0
    var recoveries: [ScanRecovery: Int] = [:]
    var watch = ScanWatch()
    var lastError: String?
    var started = false
    var scanning = false
    var advertising = false
}
