import BlueDotCore
import Formats
import JSON
import LocationBus
import Logging
import Positioning
import SystemIO

/// The system's GNSS through gpsd: a `LocationProducer` of the target `self` that speaks gpsd's JSON protocol
/// (`gpsd_json(5)`) over TCP, the way ArcGIS Runtime's system location source follows Core Location. A
/// `LocationSourceDataSource` shows it to a `LocationDisplay`; `HandoverLocationSource` hands over between it and
/// the beacons.
///
/// It sends `?WATCH={"enable":true,"json":true}` and reads one report per line: a TPV with a 2D or 3D fix is a
/// location (`GPSDFixes`: the fix's own latitude and longitude, gpsd's 95% `eph` as a 68% radius, speed, course),
/// a TPV without a fix turns the dot grey (the last fix as last known), and an ATT heading (a compass, NMEA HDT,
/// an IMU) goes to `headings` and onto the following locations while fresh (`heading(at:)`). A line that is no
/// report gpsd documents is counted and skipped, its error naming the field (`statistics.lastMalformed`).
///
/// Status: `available` while connected, `unavailable` while gpsd cannot be reached, `inactive` once stopped.
/// Reconnects: with `reconnectDelaySeconds` (a daemon), whenever gpsd is unreachable or goes away (a restart, a
/// crash) the source delivers the last fix as last known, says so in `connectionState` (`disconnected`, with the
/// reason and when it tries again) and retries after the delay on the clock. Without it, a failed first connect
/// ends `run` with `GPSDError.unreachable`, and a lost link with `GPSDError.lost`.
public final class GPSDLocationSource: LocationSource, LocationProducer, HeadingSource, @unchecked Sendable {
    // @unchecked: the lets are Sendable; the mutable state is behind `state`.
    private struct State {
        var fixes: GPSDFixes
        var statistics = GPSDStatistics()
        var connection: GPSDConnectionState = .connecting
    }

    /// gpsd's default port.
    public static let defaultPort: UInt16 = 2947
    /// The longest line accepted, bytes; a longer one is counted as malformed and dropped.
    public static let maximumLineBytes = 65_536
    /// The link to gpsd.
    public let connection: any GPSDConnection
    /// Pause before reconnecting, seconds; nil: no reconnects (see the type's summary).
    public let reconnectDelaySeconds: Double?
    private let logger: Logger
    private let state: LockedValue<State>
    private let connectionBroadcast = Broadcast<GPSDConnectionState>()
    private let headingBroadcast = Broadcast<Double>(bufferLimit: 256)
    private let watching = StoppableWork()

    /// Creates a source over `connection`; locations are placed in the venue's frame through `origin`.
    public init(id: String = "gnss", connection: any GPSDConnection, origin: GeographicOrigin?,
                reconnectDelaySeconds: Double? = 2, deleteAfterSeconds: Double = 60,
                clock: any BlueDotClock = SystemClock(), logger: Logger = Logger(label: "bluedot.gpsd")) {
        self.connection = connection
        self.reconnectDelaySeconds = reconnectDelaySeconds
        self.logger = logger
        state = LockedValue(State(fixes: GPSDFixes(origin: origin)))
        super.init(id: id, deleteAfterSeconds: deleteAfterSeconds, clock: clock)
    }

    /// A source for gpsd at `host:port` (`[v6]:port`; a bare host means port 2947) over TCP.
    public convenience init(endpoint text: String, origin: GeographicOrigin?, reconnectDelaySeconds: Double? = 2,
                            clock: any BlueDotClock = SystemClock(),
                            logger: Logger = Logger(label: "bluedot.gpsd")) throws(SystemIOError) {
        let endpoint = try Self.endpoint(parsing: text)
        self.init(connection: TCPByteStream(endpoint: endpoint), origin: origin,
                  reconnectDelaySeconds: reconnectDelaySeconds, clock: clock, logger: logger)
    }

    /// A new stream of every heading gpsd reports from now on (degrees clockwise from north), for a compass that
    /// turns between fixes; a slow reader loses the oldest of 256.
    public var headings: AsyncStream<Double> { headingBroadcast.subscribe() }

    /// The last heading from gpsd while it is fresh at clock time `now` (`GPSDFixes.headingMaxAgeSeconds`).
    public func heading(at now: Double) -> Double? { state.withLock { $0.fixes.heading(at: now) } }

    /// `host:port`, `[v6]:port`, or a host alone for gpsd's port 2947.
    public static func endpoint(parsing text: String) throws(SystemIOError) -> TCPEndpoint {
        let bare = !text.contains(":") || (text.hasPrefix("[") && text.hasSuffix("]"))
        if bare {
            let host = text.hasPrefix("[") ? String(text.dropFirst().dropLast()) : text
            guard !host.isEmpty else { throw .invalidEndpoint(text, reason: "empty host") }
            return TCPEndpoint(host: host, port: defaultPort)
        }
        return try TCPEndpoint(parsing: text)
    }

    /// Counts since creation.
    public var statistics: GPSDStatistics { state.withLock { $0.statistics } }

    /// Where the link to gpsd stands now.
    public var connectionState: GPSDConnectionState { state.withLock { $0.connection } }

    /// A new stream of connection states; its first element is the state at the time of the call.
    public var connectionStates: AsyncStream<GPSDConnectionState> {
        state.withLock { connectionBroadcast.subscribe(initial: [$0.connection]) }
    }

    /// Connects, reads until the link ends, and (with reconnects) tries again until `stop()`.
    public func run() async throws {
        try await watching.run({ try await self.watch() }, onCancel: { self.watching.stop() })
    }

    /// Closes the link and ends the retries: returns once the reader has.
    public func stop() async {
        let task = watching.stop()
        await connection.close()
        _ = await task?.result
        setStatus(.inactive)
    }

    private var isStopped: Bool { watching.isStopped || Task.isCancelled }

    private func watch() async throws {
        var first = true
        while !isStopped {
            setConnection(.connecting)
            let reason: String
            do {
                let chunks = try await connection.open()
                state.withLock { $0.statistics.connections += 1 }
                try await connection.write(Array(GPSDReport.watchCommand.utf8))
                setConnection(.connected(release: nil))
                setStatus(.available)
                first = false
                try await read(chunks)
                reason = "gpsd closed the connection"
            } catch {
                reason = "\(error)"
            }
            if isStopped { break }
            goGrey()
            setStatus(.unavailable)
            guard let delay = reconnectDelaySeconds else {
                await connection.close()
                throw first ? GPSDError.unreachable(connection.name, error: reason)
                    : GPSDError.lost(connection.name, reason: reason)
            }
            let retryAt = clock.now() + delay
            state.withLock { $0.statistics.reconnects += 1 }
            logger.warning("gpsd link lost; retrying", metadata: [
                "gpsd": "\(connection.name)", "reason": "\(reason)", "delay": "\(delay)"])
            setConnection(.disconnected(reason: reason, retryAt: retryAt))
            await connection.close()
            guard (try? await clock.sleep(until: retryAt)) != nil else { break }
        }
        await connection.close()
        setConnection(.connecting)
        setStatus(.inactive)
    }

    /// Splits the chunks into lines (`LineSplitter`) and handles each.
    private func read(_ chunks: AsyncThrowingStream<[UInt8], any Error>) async throws {
        var lines = LineSplitter(maximumLineBytes: Self.maximumLineBytes)
        for try await chunk in chunks {
            lines.append(chunk)
            while let line = lines.nextComplete() {
                if line.tooLong {
                    countMalformed("a line longer than \(Self.maximumLineBytes) bytes")
                } else {
                    handle(line: lines.buffer[line.range])
                }
            }
        }
    }

    /// One line from gpsd: a report delivered, or a malformed line counted.
    func handle(line: ArraySlice<UInt8>) {
        guard line.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { return }
        state.withLock { $0.statistics.lines += 1 }
        let report: GPSDReport
        do {
            report = try GPSDReport.parse(line: line)
        } catch {
            countMalformed(error.located)
            return
        }
        let now = clock.now()
        switch report {
        case .tpv(let tpv):
            let location = state.withLock { s -> Location? in
                if tpv.mode.hasFix { s.statistics.fixes += 1 } else { s.statistics.noFix += 1 }
                return s.fixes.location(for: tpv, now: now)
            }
            if let location { update([location]) }
        case .att(let attitude):
            let heading = state.withLock { s -> Double? in
                let heading = s.fixes.heading(for: attitude, now: now)
                if heading != nil { s.statistics.headings += 1 }
                return heading
            }
            if let heading { headingBroadcast.yield(heading) }
        case .version(let release, _, _):
            setConnection(.connected(release: release))
            logger.info("gpsd", metadata: ["gpsd": "\(connection.name)", "release": "\(release)"])
        case .error(let message):
            logger.warning("gpsd refused a command", metadata: ["message": "\(message)"])
        case .other:
            break
        }
    }

    /// The last fix again as last known, when the link is lost.
    private func goGrey() {
        let location = state.withLock { s -> Location? in
            s.fixes.location(for: GPSDTPV(mode: .noFix), now: clock.now())
        }
        if let location { update([location]) }
    }

    private func countMalformed(_ message: String) {
        state.withLock {
            $0.statistics.malformed += 1
            $0.statistics.lastMalformed = message
        }
        logger.debug("gpsd: malformed line skipped", metadata: ["error": "\(message)"])
    }

    private func setConnection(_ connection: GPSDConnectionState) {
        state.withLock { s in
            guard s.connection != connection else { return }
            s.connection = connection
            connectionBroadcast.yield(connection)
        }
    }
}
