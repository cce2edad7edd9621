import BlueDotCore
import HCI
import Testing
@testable import Scanner

/// Dropped links, malformed reports and hardware errors: the scan goes on.
@Suite struct ScannerFaultTests {
    @Test func sightingsFlowAndMalformedEntryIsCountedAndSkipped() async throws {
        let controller = FakeController()
        let scanner = Fixture.scanner(controller)
        let sink = SightingSink()
        let run = Task { try await scanner.run { sink.append($0) } }
        #expect(await eventually { scanner.isScanning })
        controller.inject(SightingDecoderTests.threeEntriesSecondMalformed())
        controller.inject(Fixture.advertisingEvent([Fixture.report(rssi: -70)]))
        #expect(await eventually { sink.sightings.count == 2 })
        scanner.stop()
        try await run.value
        #expect(sink.sightings.map(\.rssiDBm) == [-61, -70])
        let statistics = scanner.statistics
        #expect(statistics.malformed == 1)
        #expect(statistics.advertisingReports == 2)
        #expect(statistics.beaconsByType == ["ibeacon": 2])
        #expect(statistics.lastError?.contains("reports[1]") == true)
    }

    @Test(.timeLimit(.minutes(1))) func droppedLinkIsReopenedAndScanningResumes() async throws {
        let controller = FakeController(.init(failedReopens: 2))
        let clock = ManualClock(start: 0)
        let scanner = Fixture.scanner(controller, clock: clock)
        let sink = SightingSink()
        let run = Task { try await scanner.run { sink.append($0) } }
        #expect(await eventually { scanner.isScanning })
        controller.inject(Fixture.advertisingEvent([Fixture.report(rssi: -50)]))
        #expect(await eventually { sink.sightings.count == 1 })
        controller.dropLink()
        // Three backoffs (5, 10, 20 ms: before each of two failed reopens and the one that succeeds) on the scanner's
        // clock, which the test moves; until the link is back nothing else sleeps on it (no command is pending).
        for _ in 0..<3 {
            await clock.waitForSleepers()
            clock.advance(by: 0.02)
        }
        #expect(await eventually { controller.opens == 2 && scanner.isScanning })
        #expect(clock.now() >= 0.015 && clock.now() < 10, "the backoffs (5 + 10 + 20 ms) passed on the clock, no command deadline: \(clock.now())")
        controller.inject(Fixture.advertisingEvent([Fixture.report(rssi: -51)]))
        #expect(await eventually { sink.sightings.count == 2 })
        scanner.stop()
        try await run.value
        #expect(scanner.statistics.reconnects == 1)
        #expect(scanner.statistics.lastError?.contains("cannot reopen") == true)
        #expect(controller.sentOpcodes.filter { $0 == ResetCommand.opcode }.count == 2)
        #expect(controller.sentOpcodes.last == LESetScanEnableCommand.opcode)
        #expect(!controller.scanning)
    }

    /// Another program turns the scan off (issue 45: the gateway stayed deaf for good). The scanner sees the reply to
    /// a command it did not send, waits a second, and sets its scan up again on the same link, without a Reset; its
    /// own commands' replies never count.
    @Test(.timeLimit(.minutes(1))) func aScanTurnedOffByAnotherProgramIsSetUpAgain() async throws {
        let controller = FakeController()
        let clock = ManualClock(start: 0)
        let scanner = Fixture.scanner(controller, clock: clock)
        let sink = SightingSink()
        let run = Task { try await scanner.run { sink.append($0) } }
        #expect(await eventually { scanner.isScanning })
        #expect(scanner.statistics.scanRecoveries.isEmpty, "its own scan enable is not another program's")
        let before = controller.sent.count
        controller.foreignScanEnable(false)
        #expect(await eventually { !scanner.isScanning })
        #expect(!controller.scanning)
        await clock.waitForSleepers()
        clock.advance(by: 1)
        #expect(await eventually { scanner.isScanning && controller.scanning })
        #expect(Array(controller.sentOpcodes.dropFirst(before))
            == [LESetScanEnableCommand.opcode, LESetScanParametersCommand.opcode, LESetScanEnableCommand.opcode])
        controller.inject(Fixture.advertisingEvent([Fixture.report(rssi: -50)]))
        #expect(await eventually { sink.sightings.count == 1 })
        #expect(scanner.statistics.scanRecoveries == [ScanRecovery(.rearm, .elsewhere): 1] && controller.opens == 1)
        // A second change within the episode waits twice as long: a program that keeps changing the scan is not
        // fought once a second.
        controller.foreignScanEnable(false)
        #expect(await eventually { !scanner.isScanning })
        await clock.waitForSleepers()
        clock.advance(by: 1)
        try await Task.sleep(for: .milliseconds(50))
        #expect(!controller.scanning, "not re-armed after 1 s")
        clock.advance(by: 1)
        #expect(await eventually { scanner.isScanning && controller.scanning })
        #expect(scanner.statistics.scanRecoveries == [ScanRecovery(.rearm, .elsewhere): 2])
        scanner.stop()
        try await run.value
    }

    /// The kernel sets the controller up again after a power cycle (`hciconfig hci0 down`, `up`): its Reset, which
    /// this scanner did not send, wipes the scan and the event masks. A second later the whole set-up runs again on
    /// the same link.
    @Test(.timeLimit(.minutes(1))) func aControllerResetByAnotherProgramIsSetUpAgain() async throws {
        let controller = FakeController()
        let clock = ManualClock(start: 0)
        let scanner = Fixture.scanner(controller, clock: clock)
        let run = Task { try await scanner.run { _ in } }
        #expect(await eventually { scanner.isScanning })
        let before = controller.sent.count
        controller.foreignReset()
        #expect(await eventually { !scanner.isScanning })
        await clock.waitForSleepers()
        clock.advance(by: 1)
        #expect(await eventually { scanner.isScanning && controller.scanning })
        let again = Array(controller.sentOpcodes.dropFirst(before))
        #expect(again.first == ResetCommand.opcode && again.contains(LESetEventMaskCommand.opcode))
        #expect(scanner.statistics.scanRecoveries == [ScanRecovery(.rearm, .reset): 1] && controller.opens == 1)
        scanner.stop()
        try await run.value
    }

    /// A re-arm whose command fails (a controller still busy with another program's scan) reopens the link and sets
    /// the controller up from its Reset, instead of ending the run.
    @Test(.timeLimit(.minutes(1))) func aRearmThatFailsReopensTheLink() async throws {
        let controller = FakeController()
        let clock = ManualClock(start: 0)
        let scanner = Fixture.scanner(controller, clock: clock)
        let run = Task { try await scanner.run { _ in } }
        #expect(await eventually { scanner.isScanning })
        controller.update { $0.failingOnce[LESetScanParametersCommand.opcode.rawValue] = .commandDisallowed }
        controller.foreignScanEnable(false)
        await clock.waitForSleepers()
        clock.advance(by: 1)
        #expect(await eventually { controller.opens == 2 && scanner.isScanning && controller.scanning })
        #expect(scanner.statistics.scanRecoveries
            == [ScanRecovery(.rearm, .elsewhere): 1, ScanRecovery(.reopen, .failed): 1])
        #expect(scanner.statistics.reconnects == 0, "a reopen the scanner chose is no dropped link")
        scanner.stop()
        try await run.value
    }

    /// The stall rule, live: reports at a steady rate, then none. Past the silence limit the scan is re-armed on the
    /// same link; still silent after as long again, the link is reopened; the next report ends the episode.
    @Test(.timeLimit(.minutes(1))) func aStalledScanIsRearmedThenReopened() async throws {
        let controller = FakeController()
        let clock = ManualClock(start: 0)
        var watch = ScanWatch()
        watch.minimumReports = 6
        watch.rateFactor = 1
        watch.minimumSilenceSeconds = 2
        let scanner = Fixture.scanner(controller, clock: clock, supervision: watch)
        let sink = SightingSink()
        let run = Task { try await scanner.run { sink.append($0) } }
        #expect(await eventually { scanner.isScanning })
        // 60 reports over the first 6 s: 1 per second over the 60 s window, a limit of max(2, 1 / 1) = 2 s.
        for second in 0..<6 {
            for _ in 0..<10 { controller.inject(Fixture.advertisingEvent([Fixture.report(rssi: -50)])) }
            #expect(await eventually { sink.sightings.count == 10 * (second + 1) })
            await clock.waitForSleepers()
            clock.advance(by: 1)
        }
        let lastReport = clock.now() - 1
        #expect(!scanner.isStalled)
        var opensSeen = controller.opens
        func tick() async {
            await clock.waitForSleepers()
            clock.advance(by: 1)
            try? await Task.sleep(for: .milliseconds(20))
        }
        while scanner.statistics.scanRecoveries.isEmpty && clock.now() < lastReport + 10 { await tick() }
        #expect(scanner.statistics.scanRecoveries == [ScanRecovery(.rearm, .stall): 1])
        #expect(clock.now() - lastReport > 2 && clock.now() - lastReport <= 4, "re-armed past the 2 s limit")
        #expect(scanner.isStalled && scanner.isScanning)
        #expect(controller.opens == 1 && controller.scanning)
        let rearmedAt = clock.now()
        while controller.opens == opensSeen && clock.now() < rearmedAt + 10 { await tick() }
        opensSeen = controller.opens
        #expect(opensSeen == 2, "reopened after another limit")
        #expect(clock.now() - rearmedAt >= 2 && clock.now() - rearmedAt <= 4)
        #expect(await eventually {
            scanner.statistics.scanRecoveries == [ScanRecovery(.rearm, .stall): 1, ScanRecovery(.reopen, .stall): 1]
                && scanner.isScanning
        })
        #expect(scanner.isStalled, "still silent: the episode goes on")
        controller.inject(Fixture.advertisingEvent([Fixture.report(rssi: -52)]))
        #expect(await eventually { !scanner.isStalled })
        #expect(scanner.statistics.reconnects == 0)
        scanner.stop()
        try await run.value
    }

    /// A transport that wants to be looked for often (a local adapter: `longestReopenWait` 1 s) caps the backoff:
    /// a controller back after a long absence is heard within that, not after the backoff's 30 s.
    @Test(.timeLimit(.minutes(1))) func aTransportsLongestReopenWaitCapsTheBackoff() async throws {
        var behaviour = FakeController.Behaviour(failedReopens: 3)
        behaviour.longestReopenWait = .seconds(1)
        let controller = FakeController(behaviour)
        let clock = ManualClock(start: 0)
        let scanner = LEScanner(
            transport: controller, backoff: ReconnectBackoff(initial: .seconds(30)), clock: clock, supervision: nil,
            logger: Fixture.logger)
        let run = Task { try await scanner.run { _ in } }
        #expect(await eventually { scanner.isScanning })
        controller.dropLink()
        for _ in 0..<4 {
            await clock.waitForSleepers()
            clock.advance(by: 1)
        }
        #expect(await eventually { controller.opens == 2 && scanner.isScanning })
        #expect(clock.now() == 4, "four waits of 1 s, not 30 s")
        scanner.stop()
        try await run.value
    }

    /// The backoff waits on the scanner's clock, which never moves here: the run ending proves `stop()` cut the
    /// 30 s backoff short (a hang would run into the time limit).
    @Test(.timeLimit(.minutes(1))) func stopDuringBackoffEndsRun() async throws {
        let controller = FakeController(.init(failedReopens: 1_000))
        let clock = ManualClock(start: 0)
        let scanner = LEScanner(
            transport: controller, configuration: ScanConfiguration(commandTimeout: .seconds(10)),
            backoff: ReconnectBackoff(initial: .seconds(30)), clock: clock, logger: Fixture.logger)
        let run = Task { try await scanner.run { _ in } }
        #expect(await eventually { scanner.isScanning })
        controller.dropLink()
        #expect(await eventually { !scanner.isScanning })
        await clock.waitForSleepers()  // the backoff
        scanner.stop()
        try await run.value
        #expect(clock.now() == 0, "no time passed: the backoff did not run out")
    }

    /// A write refused for good (a kernel refusing the scan's commands without `CAP_NET_RAW`) ends the run with
    /// that error at once: no reconnect, no backoff, however long the scan was meant to last.
    @Test(.timeLimit(.minutes(1))) func permanentRefusalStopsTheRunWithoutRetrying() async throws {
        let refused = LESetScanParametersCommand.opcode.rawValue
        let controller = FakeController(.init(refusedOpcodes: [refused: FakeRefusal(isPermanent: true)]))
        let clock = ManualClock(start: 0)
        let scanner = Fixture.scanner(controller, clock: clock)
        await #expect(throws: ScannerError.transportRefused(
            transport: "fake", reason: "permission denied: missing CAP_NET_RAW")) {
            try await scanner.run { _ in }
        }
        #expect(controller.opens == 1)
        #expect(scanner.statistics.reconnects == 0)
        #expect(clock.now() == 0, "no backoff ran")
        #expect("\(ScannerError.transportRefused(transport: "hci0", reason: "permission denied"))"
                == "cannot scan on hci0: permission denied")
    }

    /// The same write refused for a reason a reconnect may cure is a dropped link: the scanner reopens and tries
    /// again.
    @Test(.timeLimit(.minutes(1))) func passingRefusalIsADroppedLink() async throws {
        let refused = LESetScanParametersCommand.opcode.rawValue
        let controller = FakeController(.init(refusedOpcodes: [refused: FakeRefusal(isPermanent: false)]))
        let clock = ManualClock(start: 0)
        let scanner = Fixture.scanner(controller, clock: clock)
        let run = Task { try await scanner.run { _ in } }
        #expect(await eventually { scanner.statistics.lastError?.contains("ENETDOWN") == true })
        controller.update { $0.refusedOpcodes = [:] }
        await clock.waitForSleepers()  // the backoff
        clock.advance(by: 0.02)
        #expect(await eventually { controller.opens == 2 && scanner.isScanning })
        scanner.stop()
        try await run.value
        #expect(scanner.statistics.reconnects == 1)
    }

    @Test func hardwareErrorReRunsInitSequence() async throws {
        let controller = FakeController()
        let scanner = Fixture.scanner(controller)
        let run = Task { try await scanner.run { _ in } }
        #expect(await eventually { scanner.isScanning })
        controller.inject(HCIEvent.hardwareError(HardwareErrorEvent(hardwareCode: 0x42)).packet)
        #expect(await eventually {
            controller.sentOpcodes.filter { $0 == ResetCommand.opcode }.count == 2 && scanner.isScanning
        })
        scanner.stop()
        try await run.value
        #expect(controller.opens == 1)
        #expect(scanner.statistics.lastError == "hardware error 0x42")
    }

    @Test func cancellingTheRunStopsCleanly() async throws {
        let controller = FakeController()
        let scanner = Fixture.scanner(controller)
        let run = Task { try await scanner.run { _ in } }
        #expect(await eventually { scanner.isScanning })
        run.cancel()
        try await run.value
        #expect(!controller.scanning)
        #expect(controller.closes == 1)
    }

    @Test func sightingsSequenceEndsWithCleanStop() async throws {
        let controller = FakeController()
        let scanner = Fixture.scanner(controller)
        let feeder = Task {
            _ = await eventually { scanner.isScanning }
            controller.inject(Fixture.advertisingEvent([Fixture.report(rssi: -40), Fixture.report(rssi: -41)]))
        }
        var received: [Int?] = []
        for try await sighting in scanner.sightings() {
            received.append(sighting.rssiDBm)
            if received.count == 2 { break }
        }
        await feeder.value
        #expect(received == [-40, -41])
        #expect(await eventually { controller.closes == 1 })
        #expect(!controller.scanning)
    }
}
