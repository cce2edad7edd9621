import BlueDotCore
import Testing

/// `BlueDotClock.wait(until:or:)`: a thread blocked on each clock until its time, or until its alarm rings.
@Suite struct ClockWaitTests {
    /// Runs `body` on a thread of its own and hands back its result.
    func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { done in
            SystemThread.detach(name: "clock-wait-test") { done.resume(returning: body()) }
        }
    }

    @Test(.timeLimit(.minutes(1))) func theSystemClockWaitsUntilTheDeadline() async {
        let clock = SystemClock()
        let deadline = clock.now() + 0.05
        let (came, after) = await onThread { (clock.wait(until: deadline, or: ThreadAlarm()), clock.now()) }
        #expect(came)
        #expect(after >= deadline)
    }

    @Test(.timeLimit(.minutes(1))) func anAlarmEndsALongWaitAtOnce() async throws {
        let clock = SystemClock(), alarm = ThreadAlarm()
        let start = clock.now()
        async let came = onThread { clock.wait(until: start + 600, or: alarm) }
        try await Task.sleep(for: .milliseconds(50))
        alarm.ring()
        #expect(await came == false)
        #expect(clock.now() - start < 30, "ended by the alarm, not by the time")
        #expect(clock.wait(until: clock.now() + 600, or: alarm) == false, "a rung alarm ends later waits too")
    }

    @Test(.timeLimit(.minutes(1))) func aManualClockWakesAThreadWhenAdvancedAndCountsItAsASleeper() async {
        let clock = ManualClock(start: 10)
        let alarm = ThreadAlarm()
        async let came = onThread { clock.wait(until: 12, or: alarm) }
        await clock.waitForSleepers(count: 1)
        clock.advance(by: 1)
        #expect(clock.sleeperCount == 1, "not yet")
        clock.advance(by: 1)
        #expect(await came)
        #expect(clock.sleeperCount == 0)
        #expect(clock.wait(until: 11, or: alarm), "a deadline already passed returns at once")

        let rung = ThreadAlarm()
        async let interrupted = onThread { clock.wait(until: 100, or: rung) }
        await clock.waitForSleepers(count: 1)
        rung.ring()
        #expect(await interrupted == false)
        #expect(clock.sleeperCount == 0, "an interrupted wait leaves no sleeper behind")
    }

    @Test func aSkippingClockMovesToTheDeadline() {
        let clock = SkippingClock(start: 5)
        #expect(clock.wait(until: 7.5, or: ThreadAlarm()))
        #expect(clock.now() == 7.5)
        #expect(clock.deadlines == [7.5])
        let alarm = ThreadAlarm()
        alarm.ring()
        #expect(clock.wait(until: 9, or: alarm) == false)
        #expect(clock.now() == 7.5)
    }
}

/// `ScaledClock`: the wall clock run fast from an epoch, for simulated days.
@Suite struct ScaledClockTests {
    @Test func itReadsTheEpochPlusTheScaledWallTimeAndMapsBack() {
        let clock = ScaledClock(rate: 60, epoch: 1_000)
        #expect(clock.scaled(wall: 1_000) == 1_000)
        #expect(clock.scaled(wall: 1_010) == 1_600)
        #expect(clock.wall(at: 1_600) == 1_010)
        let wall = SystemClock().now()
        #expect(abs(clock.now() - clock.scaled(wall: wall)) < 60 * 0.5)
    }

    @Test(.timeLimit(.minutes(1))) func itsSleepsAndWaitsTakeAFractionOfTheirLengthOnTheWallClock() async throws {
        let clock = ScaledClock(rate: 100, epoch: SystemClock().now())
        let wall0 = SystemClock().now(), start = clock.now()
        try await clock.sleep(seconds: 20)
        #expect(clock.now() >= start + 20)
        let slept = SystemClock().now() - wall0
        #expect(slept >= 0.19, "20 s at 100x is 0.2 s of wall time, got \(slept)")
        let deadline = clock.now() + 10
        #expect(clock.wait(until: deadline, or: ThreadAlarm()))
        #expect(clock.now() >= deadline)
    }
}
