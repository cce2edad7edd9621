import Testing
@testable import Scanner

/// The stall rule on its own: evidence, limit, episode and its pacing.
@Suite struct ScanWatchTests {
    /// A scan that never heard enough is never stalled: an empty room is silent.
    @Test func withoutEvidenceNothingIsAStall() {
        var watch = ScanWatch()
        for t in 0..<19 { _ = watch.heard(at: Double(t)) }
        #expect(watch.rate == nil && watch.silenceLimit == nil)
        #expect(!watch.isStalled(at: 10_000))
        #expect(watch.nextAction(at: 10_000) == nil)
    }

    /// The limit follows the rate over the last minute, never under the minimum.
    @Test func theLimitFollowsTheRate() {
        var fast = ScanWatch()
        for i in 0..<600 { _ = fast.heard(at: Double(i) / 10) }  // 10 per second for 60 s
        #expect(fast.rate == 10)
        #expect(fast.silenceLimit == fast.minimumSilenceSeconds, "20 gaps of 0.1 s are under the minimum")
        var slow = ScanWatch()
        for i in 0..<30 { _ = slow.heard(at: Double(i) * 2) }  // one every 2 s
        #expect(slow.rate == 0.5)
        #expect(slow.silenceLimit == 40)
        #expect(!slow.isStalled(at: 58 + 40))
        #expect(slow.isStalled(at: 58 + 40.5))
        // Reports older than the window no longer count.
        _ = slow.heard(at: 200)
        #expect(slow.rate == nil)
    }

    /// An episode: re-arm at the stall, then reopen after the limit, then after twice as long, up to the longest
    /// wait; the next report ends it and says how long it lasted.
    @Test func anEpisodeIsPacedAndEndsAtTheNextReport() {
        var watch = ScanWatch()
        watch.minimumSilenceSeconds = 10
        watch.longestWaitSeconds = 50
        for i in 0..<600 { _ = watch.heard(at: Double(i) / 10) }
        let last = 59.9
        #expect(watch.nextAction(at: last + 9) == nil)
        #expect(watch.nextAction(at: last + 10.5) == .rearm)
        #expect(watch.nextAction(at: last + 11) == nil)
        #expect(watch.nextAction(at: last + 20.5) == .reopen)  // the limit, 10 s, after the re-arm
        #expect(watch.nextAction(at: last + 35) == nil)
        #expect(watch.nextAction(at: last + 40.5) == .reopen)  // 20 s later
        #expect(watch.nextAction(at: last + 80.5) == .reopen)  // 40 s later
        #expect(watch.nextAction(at: last + 125) == nil)
        #expect(watch.nextAction(at: last + 130.5) == .reopen)  // 50 s: the longest wait
        #expect(watch.episode?.actions == 5)
        let ended = watch.heard(at: 200)
        #expect(ended?.since == last && ended?.actions == 5)
        #expect(watch.episode == nil)
    }
}
