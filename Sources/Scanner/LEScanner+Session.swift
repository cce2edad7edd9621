import BlueDotCore
import HCI
import Logging

extension LEScanner {
    /// How one pass of the connection loop ended.
    private enum Outcome {
        case stopped
        case dropped(String)
        /// The scanner closed the link to open it again at once (`ScanRecovery.Action.reopen`).
        case reopen(ScanRecovery.Reason, String)
    }

    /// Connects, scans and reconnects until stopped; see `run`.
    func connectLoop(
        onScanning: @escaping @Sendable () -> Void, _ onSighting: @escaping @Sendable (Sighting) -> Void
    ) async throws(ScannerError) {
        var iterator = signals.makeAsyncIterator()
        var generator = backoff.makeGenerator()
        var generation = 0
        var failedAttempts = 0
        var everConnected = false
        var reopening = false
        var lastReason: String?
        var wakeToken = 0
        while true {
            generation += 1
            let outcome: Outcome
            do {
                let stream = try await transport.open()
                if everConnected && !reopening {
                    let count = state.withLock { state in
                        state.reconnects += 1
                        return state.reconnects
                    }
                    var metadata: Logger.Metadata = ["transport": "\(transport.name)", "reconnects": "\(count)"]
                    if let adapter = transport.openedDescription { metadata["adapter"] = "\(adapter)" }
                    logger.notice("link back", metadata: metadata)
                }
                everConnected = true
                outcome = try await scan(
                    stream: stream, generation: generation, iterator: &iterator, failedAttempts: &failedAttempts,
                    onScanning: onScanning, onSighting)
            } catch let error as ScannerError {
                throw error
            } catch {
                guard everConnected else {
                    throw .transportUnavailable(transport: transport.name, reason: "\(error)")
                }
                outcome = .dropped("cannot reopen: \(error)")
            }
            reopening = false
            switch outcome {
            case .stopped:
                return
            case let .reopen(reason, detail):
                count(ScanRecovery(.reopen, reason))
                logger.debug("reopening the link", metadata: [
                    "transport": "\(transport.name)", "reason": "\(reason.rawValue)", "detail": "\(detail)",
                ])
                reopening = true
            case let .dropped(reason):
                note(error: reason)
                let delay = min(backoff.delay(attempt: failedAttempts, using: &generator),
                                transport.longestReopenWait ?? .seconds(Int64.max))
                failedAttempts += 1
                // Once per outage, and again when the reason changes (the adapter gone, then back under another
                // name); each retry besides at debug level.
                let metadata: Logger.Metadata = [
                    "transport": "\(transport.name)", "reason": "\(reason)", "retryIn": "\(delay)",
                ]
                if failedAttempts == 1 || reason != lastReason {
                    logger.warning("link down, retrying", metadata: metadata)
                } else {
                    logger.debug("link still down, retrying", metadata: metadata)
                }
                lastReason = reason
                wakeToken += 1
                let token = wakeToken
                let sink = signalSink
                Task { [clock] in
                    try? await clock.sleep(for: delay)
                    sink.yield(.wake(token: token))
                }
                waiting: while true {
                    switch await iterator.next() {
                    case .stop?, nil: return
                    case let .wake(token: woken)? where woken == token: break waiting
                    default: continue
                    }
                }
            }
        }
    }

    /// Runs one connection: init, scan, and wait for a stop, a drop or a hardware error.
    private func scan(
        stream: AsyncThrowingStream<HCIPacket, any Error>, generation: Int,
        iterator: inout AsyncStream<ScannerSignal>.Iterator, failedAttempts: inout Int,
        onScanning: @escaping @Sendable () -> Void, _ onSighting: @escaping @Sendable (Sighting) -> Void
    ) async throws(ScannerError) -> Outcome {
        let channel = CommandChannel(transportName: transport.name, clock: clock)
        let reader = startReader(stream: stream, channel: channel, generation: generation, onSighting)
        // Looks at the scan for a stall once a `watchInterval`, from the first time it runs on this link.
        var watcher: Task<Void, Never>?
        func watch() {
            guard watcher == nil, supervision != nil else { return }
            watcher = Task { [clock, signalSink] in
                while !Task.isCancelled {
                    do { try await clock.sleep(for: Self.watchInterval) } catch { return }
                    signalSink.yield(.watch(generation: generation))
                }
            }
        }
        let session = ControllerSession(
            transport: transport, channel: channel, configuration: configuration, recorder: recorder, clock: clock,
            logger: logger)
        func shutDown() async {
            watcher?.cancel()
            state.withLock {
                $0.scanning = false
                $0.advertising = false
            }
            await transport.close()
            await reader.value
        }
        // A command that failed while setting the scan up: a dead link is dropped (and reopened), anything else ends
        // the run.
        func failed(_ error: ScannerError) async throws(ScannerError) -> Outcome {
            await shutDown()
            if error.isTransportFailure { return .dropped("\(error)") }
            note(error: "\(error)")
            throw error
        }
        // A re-arm that failed: the link is reopened and the controller set up from its Reset, unless the link is
        // gone (reopened after the backoff) or refuses for good (a missing capability ends the run).
        func rearmFailed(_ error: ScannerError) async throws(ScannerError) -> Outcome {
            if case .transportRefused = error { return try await failed(error) }
            await shutDown()
            if error.isTransportFailure { return .dropped("\(error)") }
            note(error: "\(error)")
            logger.warning("could not set the scan up again; reopening the link", metadata: [
                "transport": "\(transport.name)", "error": "\(error)",
            ])
            return .reopen(.failed, "\(error)")
        }
        // Scan disable, parameters and enable on this link.
        func rearm(_ capabilities: ControllerCapabilities, extended: Bool) async throws(ScannerError) {
            state.withLock { $0.scanning = false }
            try await session.disableScanning(extended: extended, ignoringDisallowed: true)
            _ = try await session.startScanning(capabilities)
            scanning()
        }
        func scanning() {
            state.withLock { $0.scanning = true }
            onScanning()
            watch()
        }
        var elsewhere = ElsewhereEpisode()
        while true {
            let extended: Bool
            let capabilities: ControllerCapabilities
            var advertising = false
            do {
                capabilities = try await session.initialize()
                extended = try await session.startScanning(capabilities)
                if let advertisement = configuration.advertisement {
                    advertising = try await session.startAdvertising(advertisement, extended: extended)
                    if !advertising { note(error: "the controller refused to advertise") }
                }
                state.withLock { $0.advertising = advertising }
            } catch {
                return try await failed(error)
            }
            scanning()
            failedAttempts = 0
            waiting: while true {
                switch await iterator.next() {
                case .stop?, nil:
                    if advertising { await session.stopAdvertising(extended: extended) }
                    do {
                        try await session.disableScanning(extended: extended, ignoringDisallowed: true)
                    } catch {
                        logger.warning("could not disable scanning", metadata: ["error": "\(error)"])
                    }
                    await shutDown()
                    return .stopped
                case let .dropped(generation: dropped, reason)? where dropped == generation:
                    await shutDown()
                    return .dropped(reason)
                case let .scanChangedElsewhere(generation: changed)? where changed == generation:
                    // Another program's scan command: the controller scans no more, or with its parameters. Once its
                    // own command sequence is done, ours are set again on the same link.
                    count(ScanRecovery(.rearm, .elsewhere))
                    let delay = elsewhere.next(at: clock.now())
                    if elsewhere.changes == 1 {
                        logger.warning("another program changed the scan; setting it up again", metadata: [
                            "transport": "\(transport.name)", "in": "\(delay)",
                        ])
                    } else {
                        logger.debug("another program changed the scan again", metadata: [
                            "transport": "\(transport.name)", "changes": "\(elsewhere.changes)", "in": "\(delay)",
                        ])
                    }
                    state.withLock { $0.scanning = false }
                    try? await clock.sleep(for: delay)
                    do throws(ScannerError) {
                        try await rearm(capabilities, extended: extended)
                    } catch {
                        return try await rearmFailed(error)
                    }
                case let .resetElsewhere(generation: reset)? where reset == generation:
                    // The kernel's set-up after a power-up (or another program's Reset): the controller forgot the
                    // scan and our event masks. Once the kernel's sequence is done, the whole set-up runs again.
                    count(ScanRecovery(.rearm, .reset))
                    state.withLock {
                        $0.scanning = false
                        $0.advertising = false
                    }
                    logger.warning("the controller was reset by another program (powered up again?); setting it up again",
                                   metadata: ["transport": "\(transport.name)"])
                    try? await clock.sleep(for: Self.rearmDelay)
                    break waiting
                case let .watch(generation: watched)? where watched == generation:
                    let now = clock.now()
                    guard let (action, episode) = state.withLock({ s -> (ScanRecovery.Action, ScanWatch.Episode)? in
                        guard let action = s.watch.nextAction(at: now), let episode = s.watch.episode else { return nil }
                        return (action, episode)
                    }) else { continue }
                    switch action {
                    case .rearm:
                        count(ScanRecovery(.rearm, .stall))
                        logger.warning("no advertising report for longer than the scan's rate explains; setting it up again", metadata: [
                            "transport": "\(transport.name)", "silentFor": "\(Self.seconds(now - episode.since))",
                            "rate": "\(Self.seconds(episode.rate))/s", "limit": "\(Self.seconds(episode.limit))",
                        ])
                        do throws(ScannerError) {
                            try await rearm(capabilities, extended: extended)
                        } catch {
                            return try await rearmFailed(error)
                        }
                    case .reopen:
                        logger.debug("still no report; reopening the link", metadata: [
                            "transport": "\(transport.name)", "silentFor": "\(Self.seconds(now - episode.since))",
                        ])
                        await shutDown()
                        return .reopen(.stall, "silent for \(Self.seconds(now - episode.since)) s")
                    }
                case let .hardwareError(generation: failed, code)? where failed == generation:
                    state.withLock { $0.scanning = false }
                    note(error: "hardware error 0x\(String(code, radix: 16))")
                    logger.error("controller hardware error, re-initialising", metadata: ["code": "\(code)"])
                    break waiting
                default:
                    continue
                }
            }
        }
    }

    /// Reads the link's packets: records them, decodes sightings, hands command replies to `channel` and signals
    /// hardware errors and the end of the link.
    private func startReader(
        stream: AsyncThrowingStream<HCIPacket, any Error>, channel: CommandChannel, generation: Int,
        _ onSighting: @escaping @Sendable (Sighting) -> Void
    ) -> Task<Void, Never> {
        Task { [recorder, clock, signalSink, logger] in
            var reason = "link closed by the controller"
            do {
                for try await packet in stream {
                    let timestamp = clock.now()
                    recorder?.record(packet, direction: .controllerToHost, timestamp: timestamp)
                    let sightings = state.withLock { state in
                        let malformed = state.decoder.malformedCount
                        let sightings = state.decoder.decode(packet, timestamp: timestamp)
                        if state.decoder.malformedCount != malformed {
                            state.lastError = state.decoder.statistics.lastError
                            logger.warning("skipped malformed report", metadata: ["error": "\(state.lastError ?? "")"])
                        }
                        if let ended = state.watch.heard(sightings.count, at: timestamp) {
                            logger.notice("advertising reports again", metadata: [
                                "silentFor": "\(Self.seconds(timestamp - ended.since))", "actions": "\(ended.actions)",
                            ])
                        }
                        return sightings
                    }
                    for sighting in sightings { onSighting(sighting) }
                    guard packet.type == .event, let code = packet.bytes.first,
                          code == CommandCompleteEvent.code || code == CommandStatusEvent.code
                            || code == HardwareErrorEvent.code
                    else { continue }
                    switch try? HCIEvent.decode(packet) {
                    case let .commandComplete(event)?:
                        // A reply no command of ours waits for, to a scan enable: another program's.
                        guard !channel.deliver(.complete(event)) else { break }
                        if event.opcode == LESetScanEnableCommand.opcode
                            || event.opcode == LESetExtendedScanEnableCommand.opcode {
                            signalSink.yield(.scanChangedElsewhere(generation: generation))
                        } else if event.opcode == ResetCommand.opcode {
                            signalSink.yield(.resetElsewhere(generation: generation))
                        }
                    case let .commandStatus(event)?: channel.deliver(.status(event))
                    case let .hardwareError(event)?:
                        signalSink.yield(.hardwareError(generation: generation, code: event.hardwareCode))
                    default:
                        logger.warning("skipped malformed control event", metadata: ["code": "\(code)"])
                    }
                }
            } catch {
                reason = "\(error)"
            }
            channel.close(reason: reason)
            signalSink.yield(.dropped(generation: generation, reason: reason))
        }
    }
}

extension LEScanner {
    /// Counts one recovery.
    func count(_ recovery: ScanRecovery) {
        state.withLock { $0.recoveries[recovery, default: 0] += 1 }
    }

    /// `seconds` to one decimal, for logs.
    static func seconds(_ seconds: Double) -> String {
        String(Double((seconds * 10).rounded()) / 10)
    }
}

/// Another program's scan commands, one episode of them (`LEScanner.elsewhereEpisodeSeconds`): how many, and how
/// long to wait before the next re-arm.
struct ElsewhereEpisode {
    /// Changes in the episode so far, this one included.
    private(set) var changes = 0
    private var last: Double?

    /// Counts a change at clock time `now` and returns the wait before re-arming: `LEScanner.rearmDelay`, doubled
    /// for each earlier change of the episode, at most `LEScanner.longestRearmDelay`.
    mutating func next(at now: Double) -> Duration {
        if let last, now - last <= LEScanner.elsewhereEpisodeSeconds { changes += 1 } else { changes = 1 }
        last = now
        let factor = Double(1 << min(changes - 1, 16))
        return min(LEScanner.rearmDelay * factor, LEScanner.longestRearmDelay)
    }
}
