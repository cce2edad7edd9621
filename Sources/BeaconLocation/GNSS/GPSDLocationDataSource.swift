import BlueDotCore
import Formats
import HCILinux
import LocationDisplay
import Logging

/// The system's GNSS through gpsd: a `LocationDataSource` that speaks gpsd's JSON protocol (`gpsd_json(5)`) over
/// TCP, the way ArcGIS Runtime's system location source follows Core Location.
///
/// It sends `?WATCH={"enable":true,"json":true}` and reads one report per line: a TPV with a 2D or 3D fix is a
/// location (`GPSDFixes`: the fix's own latitude and longitude, gpsd's 95% `eph` as a 68% radius, speed, course),
/// a TPV without a fix turns the dot grey (the last fix as last known), and an ATT heading (a compass, NMEA HDT,
/// an IMU) goes to `didUpdateHeading` and onto the following locations. A line that is no report gpsd documents is
/// counted and skipped, its error naming the field (`statistics.lastMalformed`).
///
/// Reconnects: with `reconnectDelaySeconds` (a daemon) the source reports started at once and connects, and
/// whenever gpsd is unreachable or goes away (a restart, a crash) it delivers the last fix as last known, says so
/// in `connectionState` (`disconnected`, with the reason and when it tries again) and retries after the delay on
/// the clock. Without it, a failed first connect fails the start (`GPSDError.unreachable`) and a lost link stops
/// the source with that error.
public final class GPSDLocationDataSource: LocationDataSource, @unchecked Sendable {
    // @unchecked: the lets are Sendable; the mutable state is behind `state`.
    private struct State {
        var fixes: GPSDFixes
        var statistics = GPSDStatistics()
        var connection: GPSDConnectionState = .connecting
        var task: Task<Void, Never>?
    }

    /// gpsd's default port.
    public static let defaultPort: UInt16 = 2947
    /// The longest line accepted, bytes; a longer one is counted as malformed and dropped.
    public static let maximumLineBytes = 65_536
    /// The link to gpsd.
    public let connection: any GPSDConnection
    /// Pause before reconnecting, seconds; nil: no reconnects (see the type's summary).
    public let reconnectDelaySeconds: Double?
    private let clock: any BlueDotClock
    private let logger: Logger
    private let state: LockedValue<State>
    private let connectionBroadcast = Broadcast<GPSDConnectionState>()

    /// Creates a source over `connection`; locations are placed in the venue's frame through `origin`.
    public init(connection: any GPSDConnection, origin: GeographicOrigin?, reconnectDelaySeconds: Double? = 2,
                clock: any BlueDotClock = SystemClock(), logger: Logger = Logger(label: "bluedot.gpsd")) {
        self.connection = connection
        self.reconnectDelaySeconds = reconnectDelaySeconds
        self.clock = clock
        self.logger = logger
        state = LockedValue(State(fixes: GPSDFixes(origin: origin)))
        super.init()
    }

    /// A source for gpsd at `host:port` (`[v6]:port`; a bare host means port 2947) over TCP.
    public convenience init(endpoint text: String, origin: GeographicOrigin?, reconnectDelaySeconds: Double? = 2,
                            clock: any BlueDotClock = SystemClock(),
                            logger: Logger = Logger(label: "bluedot.gpsd")) throws(HCILinuxError) {
        let endpoint = try Self.endpoint(parsing: text)
        self.init(connection: TCPByteStream(endpoint: endpoint), origin: origin,
                  reconnectDelaySeconds: reconnectDelaySeconds, clock: clock, logger: logger)
    }

    /// `host:port`, `[v6]:port`, or a host alone for gpsd's port 2947.
    public static func endpoint(parsing text: String) throws(HCILinuxError) -> TCPEndpoint {
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

    /// Connects and watches; see the type's summary for when it reports started.
    override public func doStart() async {
        let task = Task { await self.run() }
        state.withLock { $0.task = task }
        if reconnectDelaySeconds != nil { didStartOrFailWithError(nil) }
    }

    /// Closes the link, waits for the reader, and reports stopped.
    override public func doStop() async {
        let task = state.withLock { $0.task }
        task?.cancel()
        await connection.close()
        await task?.value
        setConnection(.connecting)
        didStop()
    }

    /// Connects, reads until the link ends, and (with reconnects) tries again until cancelled.
    private func run() async {
        var first = true
        while !Task.isCancelled {
            setConnection(.connecting)
            let reason: String
            do {
                let chunks = try await connection.open()
                state.withLock { $0.statistics.connections += 1 }
                try await connection.write(Array(GPSDReport.watchCommand.utf8))
                setConnection(.connected(release: nil))
                if first { didStartOrFailWithError(nil) }
                first = false
                try await read(chunks)
                reason = "gpsd closed the connection"
            } catch {
                reason = "\(error)"
            }
            if Task.isCancelled { break }
            goGrey()
            guard let delay = reconnectDelaySeconds else {
                let error = first ? GPSDError.unreachable(connection.name, error: reason)
                    : GPSDError.lost(connection.name, reason: reason)
                didStartOrFailWithError(error)  // ignored unless still starting
                didStop(error: error)           // ignored unless started
                return
            }
            let retryAt = clock.now() + delay
            state.withLock { $0.statistics.reconnects += 1 }
            logger.warning("gpsd link lost; retrying", metadata: [
                "gpsd": "\(connection.name)", "reason": "\(reason)", "delay": "\(delay)"])
            setConnection(.disconnected(reason: reason, retryAt: retryAt))
            await connection.close()
            guard (try? await clock.sleep(until: retryAt)) != nil else { break }
        }
    }

    /// Splits the chunks into lines and handles each.
    private func read(_ chunks: AsyncThrowingStream<[UInt8], any Error>) async throws {
        var pending: [UInt8] = []
        var discarding = false
        for try await chunk in chunks {
            pending.append(contentsOf: chunk)
            while let newline = pending.firstIndex(of: 0x0A) {
                if discarding {
                    discarding = false
                } else {
                    var end = newline
                    if end > 0, pending[end - 1] == 0x0D { end -= 1 }
                    handle(line: pending[..<end])
                }
                pending.removeSubrange(...newline)
            }
            if pending.count > Self.maximumLineBytes {
                pending.removeAll(keepingCapacity: true)
                if !discarding { countMalformed("a line longer than \(Self.maximumLineBytes) bytes") }
                discarding = true
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
            if let location { didUpdate(location) }
        case .att(let attitude):
            let heading = state.withLock { s -> Double? in
                let heading = s.fixes.heading(for: attitude, now: now)
                if heading != nil { s.statistics.headings += 1 }
                return heading
            }
            if let heading { didUpdateHeading(heading) }
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
        if let location { didUpdate(location) }
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
