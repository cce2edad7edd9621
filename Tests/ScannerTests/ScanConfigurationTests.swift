import Testing
@testable import Scanner

/// Timing ranges and the reconnect backoff policy.
@Suite struct ScanConfigurationTests {
    @Test func timingIsConvertedToUnitsAndChecked() throws {
        let config = ScanConfiguration(interval: .milliseconds(100), window: .milliseconds(30))
        let units = try config.timingUnits(extended: false)
        #expect(units.interval == 160)
        #expect(units.window == 48)
        #expect(throws: ScannerError.self) {
            try ScanConfiguration(interval: .milliseconds(10), window: .milliseconds(20)).validate()
        }
        #expect(throws: ScannerError.self) {
            try ScanConfiguration(interval: .milliseconds(2), window: .milliseconds(2)).validate()
        }
        let long = ScanConfiguration(interval: .seconds(20), window: .seconds(1))
        #expect(throws: ScannerError.self) { try long.timingUnits(extended: false) }
        #expect(try long.timingUnits(extended: true).interval == 32000)
        _ = try ScanConfiguration(interval: .milliseconds(10240), window: .milliseconds(2.5)).timingUnits(extended: false)
    }

    @Test func backoffGrowsAndCaps() {
        let policy = ReconnectBackoff(initial: .milliseconds(250), multiplier: 2, maximum: .seconds(2))
        var generator = policy.makeGenerator()
        let delays = (0..<6).map { policy.delay(attempt: $0, using: &generator) }
        #expect(delays == [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(2), .seconds(2)])
    }

    @Test func jitterIsSeededAndBounded() {
        let policy = ReconnectBackoff(initial: .seconds(1), maximum: .seconds(1), jitter: 0.2, seed: 7)
        var a = policy.makeGenerator()
        var b = policy.makeGenerator()
        let first = (0..<50).map { policy.delay(attempt: $0, using: &a) }
        let second = (0..<50).map { policy.delay(attempt: $0, using: &b) }
        #expect(first == second)
        #expect(first.allSatisfy { $0 >= .milliseconds(800) && $0 <= .milliseconds(1200) })
        #expect(Set(first).count > 40)
    }

    @Test func statusNamesFollowTheSpec() {
        #expect(ScannerError.name(of: .commandDisallowed) == "Command Disallowed (0x0C)")
        #expect(ScannerError.name(of: .init(rawValue: 0x99)) == "error 0x99")
    }
}
