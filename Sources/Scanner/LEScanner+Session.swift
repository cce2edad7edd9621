import BlueDotCore
import HCI
import Logging

extension LEScanner {
    /// How one pass of the connection loop ended.
    private enum Outcome {
        case stopped
        case dropped(String)
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
        var wakeToken = 0
        while true {
            generation += 1
            let outcome: Outcome
            do {
                let stream = try await transport.open()
                if everConnected {
                    let count = state.withLock { state in
                        state.reconnects += 1
                        return state.reconnects
                    }
                    logger.notice("link back", metadata: ["transport": "\(transport.name)", "reconnects": "\(count)"])
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
            switch outcome {
            case .stopped:
                return
            case let .dropped(reason):
                note(error: reason)
                let delay = backoff.delay(attempt: failedAttempts, using: &generator)
                failedAttempts += 1
                logger.warning("link down, retrying", metadata: [
                    "transport": "\(transport.name)", "reason": "\(reason)", "retryIn": "\(delay)",
                ])
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
        let session = ControllerSession(
            transport: transport, channel: channel, configuration: configuration, recorder: recorder, clock: clock,
            logger: logger)
        func shutDown() async {
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
        func scanning() {
            state.withLock { $0.scanning = true }
            onScanning()
        }
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
                    // Another program's scan command: the controller scans no more, or with its parameters. After
                    // `rearmDelay` (its own command sequence done), ours are set again on the same link.
                    let count = state.withLock { state in
                        state.scanning = false
                        state.scanRearms += 1
                        return state.scanRearms
                    }
                    logger.warning("another program changed the scan; setting it up again", metadata: [
                        "transport": "\(transport.name)", "rearms": "\(count)",
                    ])
                    try? await clock.sleep(for: Self.rearmDelay)
                    do {
                        try await session.disableScanning(extended: extended, ignoringDisallowed: true)
                        _ = try await session.startScanning(capabilities)
                    } catch {
                        return try await failed(error)
                    }
                    scanning()
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
                        if !channel.deliver(.complete(event)),
                           event.opcode == LESetScanEnableCommand.opcode
                            || event.opcode == LESetExtendedScanEnableCommand.opcode {
                            signalSink.yield(.scanChangedElsewhere(generation: generation))
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
