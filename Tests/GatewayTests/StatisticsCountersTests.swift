@testable import Gateway
import Testing

/// Counters that follow a source's running totals (the device identifier's, gpsd's): each record adds what a total
/// grew by, and a total that did not grow adds nothing.
@Suite struct StatisticsCountersTests {
    struct Totals: Sendable {
        var lines = 0
        var fixes = 0
    }

    @Test func eachCounterAddsWhatItsTotalGrewBy() {
        let metrics = GatewayMetrics()
        let rows: [StatisticsCounters<Totals>.Row] = [
            ("test_lines", "Lines.", { $0.lines }),
            ("test_fixes", "Fixes.", { $0.fixes }),
        ]
        let counters = StatisticsCounters(registry: metrics.registry, initial: Totals(), rows: rows)
        counters.record(Totals(lines: 3, fixes: 0))
        counters.record(Totals(lines: 3, fixes: 2))
        counters.record(Totals(lines: 10, fixes: 2))
        let text = metrics.exposition()
        #expect(text.contains("bluedot_test_lines_total 10\n"), "\(text)")
        #expect(text.contains("bluedot_test_fixes_total 2\n"), "\(text)")
        #expect(text.contains("# HELP bluedot_test_lines_total Lines."), "\(text)")
    }
}
