import BlueDotCore
import Testing
@testable import Positioning

/// The intervals of `bluedot-calibrate accuracy --intervals`: whole blocks are resampled, runs are paired on them.
@Suite struct BlockBootstrapTests {
    /// A scored point of a moving target at time t: covered or not (error 1 m on a radius of 2 m or 0.5 m).
    func point(t: Double, error: Double = 1, covered: Bool, x: Double = 0, y: Double = 0) -> ScoredPoint {
        ScoredPoint(truth: TruthPoint(t: t, target: "tag", x: x, y: y),
                    fix: Location(timestamp: t, targetID: "tag", x: x + error, y: y,
                                  horizontalAccuracyMeters: covered ? 2 : 0.5),
                    errorMeters: error)
    }

    @Test func twoBlocksSpanTheWholeRange() throws {
        // 10 s covered, then 10 s not: resampling two blocks gives 0, 1/2 or 1 with chances 1/4, 1/2, 1/4.
        let points = (0..<200).map { point(t: Double($0) / 10, covered: $0 < 100) }
        let i = try #require(BlockBootstrap.interval([points], scoring: .movingDefault) {
            BlockBootstrap.coverage($0[0])
        })
        #expect(i.low == 0 && i.high == 1)
    }

    @Test func correlatedPointsGetWiderIntervalsThanMixedOnes() throws {
        // The same 2/3 share covered over 60 s at 10 Hz: in whole 10 s blocks (4 of 6 covered), or mixed within
        // every block. Resampling points one by one would give both the same narrow interval.
        let blocked = (0..<600).map { point(t: Double($0) / 10, covered: ($0 / 100) % 3 != 2) }
        let mixed = (0..<600).map { point(t: Double($0) / 10, covered: $0 % 3 != 2) }
        func coverage(_ points: [ScoredPoint]) -> BlockBootstrap.Interval? {
            BlockBootstrap.interval([points], scoring: .movingDefault) { BlockBootstrap.coverage($0[0]) }
        }
        let a = try #require(coverage(blocked)), b = try #require(coverage(mixed))
        #expect(a.high - a.low > 0.3)
        #expect(b.high - b.low < 0.02)
        #expect(a.low < 2.0 / 3 && 2.0 / 3 < a.high)
    }

    @Test func staticScansAreResampledByTheirPoint() throws {
        // Ten scans at each of two points (interleaved in time): one point's scans all covered, the other's not.
        var points: [ScoredPoint] = []
        for k in 0..<20 { points.append(point(t: Double(k) * 100, covered: k % 2 == 0, x: k % 2 == 0 ? 1 : 5)) }
        let i = try #require(BlockBootstrap.interval([points], scoring: .stationary) { BlockBootstrap.coverage($0[0]) })
        #expect(i.low == 0 && i.high == 1)
        // Seen as a moving target, the same scans fall in blocks of one each: a narrower interval.
        let moving = try #require(BlockBootstrap.interval([points], scoring: .movingDefault) {
            BlockBootstrap.coverage($0[0])
        })
        #expect(moving.high - moving.low < 0.5)
        // One point alone is one block: no interval.
        let one = points.filter { $0.truth.x == 1 }
        #expect(BlockBootstrap.interval([one], scoring: .stationary) { BlockBootstrap.coverage($0[0]) } == nil)
    }

    @Test func runsArePairedOnTheSameBlocks() throws {
        // Errors that vary from block to block, and a second run 10% worse everywhere: unpaired, the medians'
        // ratio would scatter with the blocks drawn; paired, it is 1.1 in every resample.
        let first = (0..<300).map { point(t: Double($0) / 10, error: 1 + Double($0 / 100), covered: true) }
        let second = first.map { p in
            ScoredPoint(truth: p.truth, fix: p.fix, errorMeters: p.errorMeters * 1.1)
        }
        let ratio = try #require(BlockBootstrap.interval([second, first], scoring: .movingDefault) { runs in
            guard let a = BlockBootstrap.median(runs[0]), let b = BlockBootstrap.median(runs[1]) else { return nil }
            return a / b
        })
        #expect(abs(ratio.low - 1.1) < 1e-9 && abs(ratio.high - 1.1) < 1e-9)
        // And the same points give the same interval (the generator is seeded).
        let again = BlockBootstrap.interval([first], scoring: .movingDefault) { BlockBootstrap.median($0[0]) }
        let once = BlockBootstrap.interval([first], scoring: .movingDefault) { BlockBootstrap.median($0[0]) }
        #expect(again == once && again != nil)
    }

    @Test func aReportsIntervalsAreItsFiguresResampled() throws {
        // 10 s with errors of 1 m, covered; 10 s with errors of 3 m, not. Two blocks: every figure's interval runs
        // from the first block's value to the second's.
        let points = (0..<200).map { k in
            point(t: Double(k) / 10, error: k < 100 ? 1 : 3, covered: k < 100)
        }
        let report = EvaluationReport(scoring: .movingDefault, total: 200, points: points)
        let i = BlockBootstrap.intervals(of: report)
        #expect(i.median == .init(low: 1, high: 3) && i.p90 == .init(low: 1, high: 3))
        #expect(i.coverage68 == .init(low: 0, high: 1))
        #expect(report.intervalsText(i, blockSeconds: 10)
            == "90% intervals (block bootstrap, blocks of 10.0 s): median 1.000-3.000, p90 1.000-3.000, "
            + "coverage68 0.0-100.0%\n")
        #expect(report.json(intervals: i).hasSuffix(
            "\"coverage68\": 0.5000, \"medianInterval\": [1.0000, 3.0000], \"p90Interval\": [1.0000, 3.0000], "
                + "\"coverage68Interval\": [0.0000, 1.0000]}"))
        // One block: no intervals, and JSON says so.
        let short = EvaluationReport(scoring: .movingDefault, total: 50, points: Array(points.prefix(50)))
        #expect(short.json(intervals: BlockBootstrap.intervals(of: short)).hasSuffix(
            "\"medianInterval\": null, \"p90Interval\": null, \"coverage68Interval\": null}"))
    }
}

