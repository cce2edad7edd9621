import ArgumentParser
import Formats
import Positioning

/// `bluedot evaluate`: scores a location stream against ground truth (docs/evaluation.md).
struct EvaluateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Score a location stream against ground truth.",
        discussion: """
            Moving targets (default): each truth point is scored against the latest fix of its target at most \
            0.001 s after it and at most 5 s before it. --static: the first fix at or after the truth time, else \
            the latest earlier one. Truth points without a fix are counted as missing. See docs/evaluation.md.
            """
    )

    @Argument(help: "Location JSONL, e.g. written by `bluedot replay`.")
    var locations: String

    @Option(help: "Truth JSONL: {\"t\", \"target\", \"x\", \"y\", \"z\"} per line.")
    var truth: String

    @Flag(name: .customLong("static"), help: "Use the static-scan protocol (one scan per target).")
    var stationary = false

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    @Flag(help: """
        Also give 90% intervals of median, p90 and coverage68: a block bootstrap over the scored points (blocks of \
        --block-seconds of a moving target's truth, or a surveyed point of static scans; docs/evaluation.md).
        """)
    var intervals = false

    @Option(help: "With --intervals: seconds of a moving target's truth per block.")
    var blockSeconds = BlockBootstrap.Defaults.blockSeconds

    func run() throws {
        let fixes = try LocationReader.read(path: locations)
        let points = try TruthReader.read(path: truth)
        guard !points.isEmpty else { throw ValidationError("\(truth): no truth points") }
        guard blockSeconds > 0, blockSeconds.isFinite else {
            throw ValidationError("--block-seconds: expected a positive number of seconds")
        }
        let report = Evaluator.evaluate(fixes: fixes, truth: points, scoring: stationary ? .stationary : .movingDefault)
        let spans = intervals ? BlockBootstrap.intervals(of: report, blockSeconds: blockSeconds) : nil
        if json {
            print(spans.map { report.json(intervals: $0) } ?? report.json)
        } else {
            print(report.text, terminator: "")
            if let spans, report.scored > 0 {
                print(report.intervalsText(spans, blockSeconds: blockSeconds), terminator: "")
            }
        }
    }
}
