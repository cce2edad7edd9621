import ArgumentParser
import CalibrationKit
import CalibrationRuns
import Formats
import Foundation
import Positioning

/// `bluedot-calibrate fit`: per-anchor path-loss calibration from surveys, with flags, a calibrated venue and a
/// report.
struct FitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fit",
        abstract: "Fit each anchor's measuredPower and pathLossExponent on surveys; flag dead, moved, blocked anchors.",
        discussion: """
            Robust (Huber) regression of rssi = P0 - 10 n log10(d) per anchor, pulled toward the site-wide fit by \
            --shrinkage samples' worth of prior, with n in [1.2, 5] and P0 in [-100, -20] dBm. Prints a table and \
            the flags' evidence; writes the calibrated venue to --out and the JSON report to --report.
            """
    )

    @Option(help: "Venue JSON file.")
    var venue: String

    @Option(name: .customLong("survey"), help: "Survey JSONL file (repeatable).")
    var surveys: [String]

    @Option(help: "Calibrated venue JSON to write.")
    var out: String

    @Option(help: "JSON report to write.")
    var report: String?

    @Option(help: "Weight of the site-wide prior per anchor, in samples.")
    var shrinkage: Double = 30

    @Option(help: "Anchors with fewer samples are flagged dead.")
    var minimumSamples: Int = 10

    @Flag(help: "Exit 2 when any anchor is flagged.")
    var failOnFlags = false

    @Option(help: """
        Target model whose accuracy radius is calibrated: moving (walkers, robots) or static (scans of a device \
        that stays put). The survey is split into folds (its files; else runs apart in time; else, static, its \
        surveyed points), each replayed held out, and the radius scale that makes 68% of held-out fixes fall \
        inside it is written into the venue (`radius`).
        """)
    var mode: RadiusCalibration.Mode = .moving

    @Flag(help: """
        Also fit a loss per wall between anchor and target (a venue with rooms and openings), written as the \
        venue's wallLoss.
        """)
    var fitWalls = false

    @Flag(inversion: .prefixedNo, help: "Calibrate the accuracy radius on held-out replays of the survey.")
    var radiusCalibration = true

    func validate() throws {
        guard !surveys.isEmpty else { throw ValidationError("give at least one --survey") }
        guard shrinkage >= 0 else { throw ValidationError("--shrinkage must be >= 0") }
    }

    func run() throws {
        let site = try VenueLoader.load(path: venue)
        let survey = try SurveyCalibration.readSurveys(surveys)
        for (path, report) in zip(surveys, survey.reports) {
            FileHandle.standardError.write(Data("\(path): \(report)\n".utf8))
        }
        if survey.withoutTruth > 0 {
            FileHandle.standardError.write(Data("\(survey.withoutTruth) survey line(s) without truth skipped\n".utf8))
        }
        let samples = survey.files.flatMap(\.samples)
        var fitter = SurveyFitter()
        fitter.calibrator.shrinkageSamples = shrinkage
        fitter.thresholds.minimumSamples = minimumSamples
        fitter.calibrator.fitsWallLoss = fitWalls
        var (calibrated, fit) = fitter.fit(samples, venue: site)
        print(fit.text, terminator: "")
        if radiusCalibration {
            // Held out as `bluedot run` will use the venue written here: its models only.
            let known = Set(site.anchors.map(\.id))
            let files = survey.files.map { ($0.file, $0.samples.filter { known.contains($0.anchor) }) }
            do {
                let heldOut = try HeldOutCalibration(venue: site, surveys: files, mode: mode,
                                                     configuration: mode == .static ? .stationary : .moving,
                                                     calibrator: fitter.calibrator, venueOnly: true)
                calibrated.radius[mode] = heldOut.calibration()
                fit.radius = heldOut.summary
                print(heldOut.summary.text)
            } catch {
                FileHandle.standardError.write(Data("radius not calibrated: \(error)\n".utf8))
            }
        }
        let directory = (out as NSString).deletingLastPathComponent
        try VenueWriter.json(calibrated, relativeTo: directory.isEmpty ? nil : directory)
            .write(toFile: out, atomically: true, encoding: .utf8)
        if let report { try fit.json().write(toFile: report, atomically: true, encoding: .utf8) }
        if failOnFlags && !fit.flagged.isEmpty { throw ExitCode(2) }
    }
}

extension RadiusCalibration.Mode: ExpressibleByArgument {}
