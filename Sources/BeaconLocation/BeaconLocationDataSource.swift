import HCI
import LocationDisplay
import Logging
import Positioning
import Scanner
import BlueDotCore

/// The blue dot from Bluetooth beacons: scans over an `HCITransport`, turns every sighting into an observation
/// (anchor = the beacon's canonical id, target `self`), feeds the positioning engine, and pushes each fix to
/// listeners as a self-mode `Location`.
///
/// Two inputs: `.controller` runs an `LEScanner` session (init sequence, scan, reconnects) on a live controller;
/// `.recording` reads a recording's packets passively (no commands; for `BtsnoopReplayTransport`), stamping
/// them with the injected clock, and stops itself at the end of the recording after flushing the engine.
/// Start fails when the transport cannot be opened (the scanner's `ScannerError.transportUnavailable`, or
/// `BeaconLocationError.recordingUnavailable`) or the controller refuses the session; a link that fails for good
/// after start stops the source with the reason in `error`. Fixes come out on the engine's grid, each released by
/// the first observation after its grid time (see `PositioningEngine`) or, on a live controller, by the clock
/// once it is `releaseDelaySeconds` past it: when every beacon goes quiet (or the link is down and reconnecting)
/// the dot keeps coming as last known, its radius growing, until the engine's holdover drops it.
public final class BeaconLocationDataSource: LocationDataSource, @unchecked Sendable {
    // @unchecked: the lets are Sendable; the mutable run state is behind `run`.
    /// Where packets come from.
    public enum Input: Sendable, Hashable {
        /// A live controller, driven by an `LEScanner` with this configuration.
        case controller(ScanConfiguration)
        /// A recording: packets decoded as they come, no commands sent.
        case recording
    }

    private struct Run {
        var engine: PositioningEngine
        var decoder = SightingDecoder()
        var statistics = BeaconLocationStatistics()
        var scanner: LEScanner?
        var task: Task<Void, Never>?
        var ticker: Task<Void, Never>?
        var ended = false
        var stopping = false
    }

    /// The link to the controller or the recording.
    public let transport: any HCITransport
    /// The venue: anchors, path-loss model, optional geographic origin.
    public let venue: Venue
    /// Live controller or recording.
    public let input: Input
    /// The positioning engine's settings.
    public let engineConfiguration: EngineConfiguration
    /// The target id given to observations and locations.
    public let targetID: String
    /// On a live controller, how far behind the clock the engine's grid is released without packets, seconds:
    /// a packet stamped just before a tick must not come too late for its grid point.
    public static let releaseDelaySeconds = 0.5
    private let clock: any BlueDotClock
    private let logger: Logger
    private let origin: GeographicOrigin?
    private let run: LockedValue<Run>

    /// Creates a source; nothing is opened until `start()`.
    public init(transport: any HCITransport, venue: Venue, input: Input = .controller(ScanConfiguration()),
                engineConfiguration: EngineConfiguration = .moving, targetID: String = Observation.selfTarget,
                clock: any BlueDotClock = SystemClock(),
                logger: Logger = Logger(label: "bluedot.beacon-location")) {
        self.transport = transport
        self.venue = venue
        self.input = input
        self.engineConfiguration = engineConfiguration
        self.targetID = targetID
        self.clock = clock
        self.logger = logger
        origin = venue.origin.map(GeographicOrigin.init)
        run = LockedValue(Run(engine: PositioningEngine(venue: venue, configuration: engineConfiguration)))
        super.init()
    }

    /// Counts since the last start.
    public var statistics: BeaconLocationStatistics {
        run.withLock { r in
            var statistics = r.statistics
            statistics.unknownAnchors = r.engine.counters.unknownAnchors
            statistics.lateOrOutliers = r.engine.counters.late + r.engine.counters.outliers
            return statistics
        }
    }

    /// Opens the transport and starts decoding; reports started once the scan runs (or the recording is open).
    override public func doStart() async {
        guard !venue.anchors.isEmpty else {
            didStartOrFailWithError(BeaconLocationError.venueHasNoAnchors(venue: venue.name))
            return
        }
        run.withLock { $0 = Run(engine: PositioningEngine(venue: venue, configuration: engineConfiguration)) }
        switch input {
        case .controller(let configuration): await startController(configuration)
        case .recording: await startRecording()
        }
    }

    private func startController(_ configuration: ScanConfiguration) async {
        let clock = self.clock
        let scanner = LEScanner(transport: transport, configuration: configuration, clock: { clock.now() },
                                logger: logger)
        let task = Task {
            do {
                try await scanner.run { [weak self] sighting in self?.ingest(sighting) }
            } catch {
                logger.error("beacon location: scanner stopped: \(error)")
                didStartOrFailWithError(error)  // ignored unless still starting
                didStop(error: error)           // ignored unless started
            }
            let ticker = run.withLock { r in
                r.ended = true
                return r.ticker
            }
            ticker?.cancel()
        }
        run.withLock { r in
            r.scanner = scanner
            r.task = task
        }
        // The scanner has no start callback: wait until it scans or its run ends.
        while !scanner.isScanning && !run.withLock({ $0.ended }) {
            try? await Task.sleep(for: .milliseconds(2))
        }
        if scanner.isScanning {
            didStartOrFailWithError(nil)
            startTicker()
        }
    }

    /// Releases the engine's grid by the clock while the scan runs (every grid interval).
    private func startTicker() {
        let clock = self.clock
        let interval = engineConfiguration.intervalSeconds
        let ticker = Task { [weak self] in
            while !Task.isCancelled {
                do { try await clock.sleep(until: clock.now() + interval) } catch { return }
                guard let self else { return }
                let fixes = run.withLock { r -> [LocationFix] in
                    r.ended || r.stopping ? [] : r.engine.advance(to: clock.now() - Self.releaseDelaySeconds)
                }
                deliver(fixes)
            }
        }
        let ended = run.withLock { r in
            r.ticker = ticker
            return r.ended || r.stopping
        }
        if ended { ticker.cancel() }
    }

    private func startRecording() async {
        let packets: AsyncThrowingStream<HCIPacket, any Error>
        do {
            packets = try await transport.open()
        } catch {
            didStartOrFailWithError(
                BeaconLocationError.recordingUnavailable(transport: transport.name, reason: "\(error)"))
            return
        }
        didStartOrFailWithError(nil)
        let task = Task {
            var failure: (any Error)?
            do {
                for try await packet in packets {
                    if Task.isCancelled { break }
                    receive(packet)
                }
            } catch {
                failure = BeaconLocationError.recordingFailed(transport: transport.name, reason: "\(error)")
            }
            guard !run.withLock({ $0.stopping }) else { return }
            let remaining = run.withLock { $0.engine.finish() }
            deliver(remaining)
            didStop(error: failure)
        }
        run.withLock { $0.task = task }
    }

    /// Stops the scanner (scan disabled, link closed) or the recording, waits for it, and reports stopped.
    override public func doStop() async {
        let (scanner, task, ticker) = run.withLock { r in
            r.stopping = true
            return (r.scanner, r.task, r.ticker)
        }
        ticker?.cancel()
        await ticker?.value
        scanner?.stop()
        if scanner == nil { await transport.close() }
        task?.cancel()
        await task?.value
        didStop()
    }

    /// Decodes one recorded packet, stamped with the clock.
    private func receive(_ packet: HCIPacket) {
        let now = clock.now()
        let sightings = run.withLock { r in
            r.statistics.packets += 1
            return r.decoder.decode(packet, timestamp: now)
        }
        sightings.forEach(ingest)
    }

    /// Feeds one sighting to the engine and delivers the fixes it released.
    private func ingest(_ sighting: Sighting) {
        let fixes = run.withLock { r -> [LocationFix] in
            if input != .recording { r.statistics.packets += 1 }
            r.statistics.sightings += 1
            guard let observation = Observation(sighting: sighting, target: targetID) else {
                r.statistics.sightingsWithoutRSSI += 1
                return []
            }
            r.statistics.observations += 1
            return r.engine.ingest(observation)
        }
        deliver(fixes)
    }

    private func deliver(_ fixes: [LocationFix]) {
        guard !fixes.isEmpty else { return }
        run.withLock { $0.statistics.locations += fixes.count }
        for fix in fixes { didUpdate(Location(fix, origin: origin)) }
    }
}
