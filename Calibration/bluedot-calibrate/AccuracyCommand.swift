import ArgumentParser
import CalibrationKit
import Foundation
import Positioning

/// `bluedot-calibrate accuracy`: replays the scenario's test sets and compares with the checked-in baseline.
struct AccuracyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accuracy",
        abstract: "Score the scenario's test sets held out; fail when accuracy is worse than the baseline.",
        discussion: """
            Leave one fold out: each set's surveys are split into folds (tracks, runs apart in time, or surveyed \
            points for static scans); each fold is replayed by an engine calibrated on the other folds only, as \
            `bluedot replay --calibrate` calibrates, with the radius scaled by the conformal calibration of the \
            other folds' held-out scores; the set's fixes are scored against its truth. A set fails when median or p90 exceed the baseline by more than 10% + 0.05 m, when \
            coverage68 leaves [0.60, 0.76] (widened to baseline +/- 0.05), or when its scored share drops by more \
            than 0.02. Exit 1 with one line per failure. --write-baseline records the current figures instead. \
            --survey none replays the same survey lines on the venue as given, --survey learned with self-calibration \
            (each against its own baseline, Calibration/accuracy-baseline-no-survey.json and -learned.json).
            """
    )

    /// The package root (three folders up from this source file).
    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    @Option(help: "Data folder (default: ../shared/data relative to the package root).")
    var data: String?

    @Option(help: "Scenario file (default: DATA/sets.json).")
    var scenario: String?

    @Option(help: "Baseline file (default: Calibration/accuracy-baseline.json in the package).")
    var baseline: String?

    @Option(name: .customLong("set"), help: "Only this set (repeatable).")
    var only: [String] = []

    @Option(help: ArgumentHelp(
        "What the replays know of the survey: held-out (calibrated on the other folds), none (the venue as given), "
            + "learned (no survey; the engine learns the models from the replay's traffic).",
        valueName: "use"))
    var survey: String = AccuracyCheck.SurveyUse.heldOut.rawValue

    @Flag(help: "The engine's radius without the anchors' model uncertainty (as before the prior).")
    var noModelUncertainty = false

    @Flag(help: """
        With the survey: the engine applies no site bias field (the survey's place-dependent departures from the \
        log-distance models), its plain models only.
        """)
    var noResidualField = false

    @Flag(help: "Write the current figures as the new baseline instead of comparing.")
    var writeBaseline = false

    @Option(name: .customLong("rooms"), help: ArgumentHelp(
        "Add the rooms and openings of this rooms file (Tools/rooms) to the venue it names (repeatable).",
        valueName: "file"))
    var roomsFiles: [String] = []

    @Option(help: """
        Write each held-out run's scored fixes (with no survey: each set's) as CSV into this folder (for \
        Tools/analysis).
        """)
    var scores: String?

    @Flag(help: """
        Also print 90% intervals of each set's median and coverage68 (a block bootstrap: 10 s of a moving target, \
        a surveyed point of static scans); with --survey none or learned, also the ratio of the median to the \
        held-out run's, paired on the same blocks.
        """)
    var intervals = false

    @Option(help: "With --intervals: seconds of a moving target's truth per block.")
    var blockSeconds = BlockBootstrap.Defaults.blockSeconds

    @Flag(help: "Also score each fold of a set of several (WUT's runs) on its own.")
    var perFold = false

    @Option(help: ArgumentHelp(
        "Also score apart each set's points less than this long after its first truth point, and the rest (UJI's "
            + "two passes: 44200).",
        valueName: "seconds"))
    var splitAfter: Double?

    @Flag(help: "Moving targets keep to paths through the venues' openings (a wall-bound particle filter).")
    var walls = false

    @Option(help: "Walls in the measurement model: dB lost per wall between anchor and target (with --rooms).")
    var wallLoss: Double?

    @Flag(help: """
        Fit a loss per wall with the models on each fold's survey (with --rooms): the venue's walls in the \
        measurement model.
        """)
    var fitWalls = false

    @Option(help: "With --walls: particles per target.")
    var wallParticles: Int?

    @Option(help: "With --walls: factor on each tick's log-likelihood, in (0, 1].")
    var wallTemper: Double?

    func run() throws {
        guard blockSeconds > 0, blockSeconds.isFinite else {
            throw ValidationError("--block-seconds: expected a positive number of seconds")
        }
        let dataFolder = data ?? (Self.packageRoot as NSString).appendingPathComponent("../shared/data")
        let scenarioPath = scenario ?? (dataFolder as NSString).appendingPathComponent("sets.json")
        guard let use = AccuracyCheck.SurveyUse(rawValue: survey) else {
            throw ValidationError("--survey: expected one of "
                                  + AccuracyCheck.SurveyUse.allCases.map(\.rawValue).joined(separator: ", "))
        }
        if use != .heldOut, perFold || splitAfter != nil {
            throw ValidationError("--per-fold and --split-after score the held-out folds: not with --survey \(use.rawValue)")
        }
        let baselinePath = baseline ?? Self.packageRoot + "/Calibration/" + use.baselineName
        let sets = try AccuracyScenario(path: scenarioPath).sets.filter { only.isEmpty || only.contains($0.name) }
        var stored: AccuracyBaseline?
        if !writeBaseline {
            do {
                stored = try AccuracyBaseline.load(path: baselinePath)
            } catch {
                throw ValidationError("cannot read the baseline \(baselinePath): \(error.localizedDescription) "
                                      + "(write one with --write-baseline)")
            }
        }
        let check = AccuracyCheck()
        check.surveyUse = use
        check.usesModelUncertainty = !noModelUncertainty
        check.roomsFiles = roomsFiles
        check.calibrator.fitsWallLoss = fitWalls
        check.scoresDirectory = scores
        let (walls, particles, temper, wallLoss, noResidualField) = (walls, wallParticles, wallTemper, wallLoss,
                                                                     noResidualField)
        check.overrides = { c in
            c.usesWalls = walls
            if let wallLoss { c.wallLossDB = wallLoss }
            if let particles { c.wallParticles = particles }
            if let temper { c.wallLikelihoodTemper = temper }
            if noResidualField { c.usesResidualField = false }
        }
        if let stored, stored.protocolNote != use.protocolNote {
            throw ValidationError("baseline was made with \"\(stored.protocolNote)\", this run is \"\(use.protocolNote)\"")
        }
        // With intervals and no survey, the held-out run the medians are compared with, on the same blocks.
        let surveyed: AccuracyCheck? = intervals && use != .heldOut ? AccuracyCheck() : nil
        if let surveyed {
            surveyed.usesModelUncertainty = !noModelUncertainty
            surveyed.roomsFiles = roomsFiles
            surveyed.calibrator.fitsWallLoss = fitWalls
            surveyed.overrides = check.overrides
        }
        var results: [AccuracyBaseline.SetResult] = []
        print("set                         median    p90  cov68 radius   (engine's own: cov68 radius)  scored  folds")
        for set in sets {
            let (r, points, scoring) = try check.runScored(set)
            results.append(r)
            print(String(format: "%@ %6.2f %6.2f  %5.3f %6.2f   %5.3f %6.2f  %5.3f  %d %@",
                         set.name.padding(toLength: 26, withPad: " ", startingAt: 0), r.median, r.p90, r.coverage68,
                         r.meanRadius ?? .nan, r.uncalibratedCoverage68 ?? .nan, r.uncalibratedMeanRadius ?? .nan,
                         r.scoredShare, r.folds ?? 0, r.foldKind ?? ""))
            if let level = r.learnedLevelRMS, let exponent = r.learnedExponentRMS {
                print(String(format: "  learned against the survey's fit: level %.2f dB rms, exponent %.3f rms, %d updates; "
                             + "site bias field %d taken, %d refused held out",
                             level, exponent, r.learnedUpdates ?? 0, r.learnedFieldUpdates ?? 0,
                             r.learnedFieldsRefused ?? 0))
                if let seconds = r.scoredSeconds {
                    print(r.learnedFirstUpdateSeconds.map {
                        String(format: "  first update during the scored traffic: %.0f s into its %.0f s", $0, seconds)
                    } ?? String(format: "  no update during the scored traffic (%.0f s)", seconds))
                }
            }
            if intervals {
                try printIntervals(points, scoring: scoring, against: surveyed.map { try $0.runScored(set).points })
            }
            func show(_ parts: [AccuracyCheck.FoldResult], _ label: (Int) -> String) {
                for f in parts {
                    let name = label(f.number).padding(toLength: 24, withPad: " ", startingAt: 0)
                    guard f.scored > 0 else {
                        print("  \(name)   no points scored")
                        continue
                    }
                    print(String(format: "  %@ %6.2f %6.2f  %5.3f %6.2f   %d scored", name, f.median, f.p90,
                                 f.coverage68, f.meanRadius, f.scored))
                }
            }
            if perFold, let folds = r.folds, (2...8).contains(folds) {
                show(try check.folds(of: set)) { "\(r.foldKind ?? "fold") \($0)" }
            }
            if let splitAfter {
                show(try check.split(set, after: splitAfter)) { $0 == 1 ? "first \(Int(splitAfter)) s" : "after" }
            }
        }
        if intervals {
            print("intervals: 90%, block bootstrap (\(blockSeconds) s of a moving target, a "
                  + "surveyed point of static scans), \(BlockBootstrap.Defaults.resamples) resamples")
        }
        if writeBaseline {
            let new = AccuracyBaseline(protocolNote: use.protocolNote, sets: results)
            try new.json().write(toFile: baselinePath, atomically: true, encoding: .utf8)
            print("wrote \(baselinePath)")
            return
        }
        guard var stored else { return }
        if !only.isEmpty { stored.sets = stored.sets.filter { only.contains($0.name) } }
        let failures = stored.failures(of: results)
        for f in failures { FileHandle.standardError.write(Data("FAIL \(f)\n".utf8)) }
        guard failures.isEmpty else { throw ExitCode.failure }
        print("accuracy: \(results.count) sets within tolerance of the baseline")
    }

    /// One set's intervals: its median and coverage68, and the median's ratio to the held-out run's on the same
    /// truth points when there is one.
    private func printIntervals(_ points: [ScoredPoint], scoring: ScoringProtocol, against heldOut: [ScoredPoint]?) {
        func text(_ i: BlockBootstrap.Interval?, _ format: String) -> String {
            guard let i else { return "n/a" }
            return String(format: format + "-" + format, i.low, i.high)
        }
        let b = blockSeconds
        let median = BlockBootstrap.interval([points], scoring: scoring, blockSeconds: b) {
            BlockBootstrap.median($0[0])
        }
        let coverage = BlockBootstrap.interval([points], scoring: scoring, blockSeconds: b) {
            BlockBootstrap.coverage($0[0])
        }
        var line = "  90% intervals: median \(text(median, "%.2f")) m, cov68 \(text(coverage, "%.2f"))"
        if let heldOut, let mine = BlockBootstrap.median(points), let theirs = BlockBootstrap.median(heldOut) {
            let ratio = BlockBootstrap.interval([points, heldOut], scoring: scoring, blockSeconds: b) { runs in
                guard let mine = BlockBootstrap.median(runs[0]), let theirs = BlockBootstrap.median(runs[1]),
                      theirs > 0 else { return nil }
                return mine / theirs - 1
            }
            line += String(format: "; median against held-out %+.0f%%", (mine / theirs - 1) * 100)
            if let ratio { line += String(format: " (%+.0f%% to %+.0f%%)", ratio.low * 100, ratio.high * 100) }
        }
        print(line)
    }
}
