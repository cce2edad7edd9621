import ArgumentParser
import Formats
import Foundation
import Positioning

/// `bluedot-calibrate learned`: writes what a gateway's self-calibration learned into a venue file.
struct LearnedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "learned",
        abstract: "Write the models a gateway learned (its learned-calibration.json) into a venue.",
        discussion: """
            Each anchor the gateway learned with at least --min-confidence gets the learned model (measuredPower, \
            pathLossExponent) and a calibration with source "learned", its samples and its sigmas (the site's and \
            its own together): the engine then takes it as known that well, and learning goes on from there. \
            Anchors below the confidence keep what the venue gave them. A radius calibration belongs to the models \
            it was measured with, so the written venue has none. docs/positioning.md, "Self-calibration".
            """
    )

    @Option(help: "The venue file the gateway runs with.")
    var venue: String

    @Option(help: "What the gateway learned: its state directory's learned-calibration.json, or GET /api/calibration.")
    var learned: String

    @Option(help: "Where to write the venue with the learned models.")
    var out: String

    @Option(help: "Only anchors learned at least this well (0 to 1; default 0.3).")
    var minConfidence: Double = 0.3

    func run() throws {
        guard (0...1).contains(minConfidence) else { throw ValidationError("--min-confidence must be from 0 to 1") }
        var site = try VenueLoader.load(path: venue)
        let (file, learnedVenue) = try LearnedCalibrationFile.load(path: learned)
        if learnedVenue != site.name {
            throw ValidationError("\(learned) was learned in venue \"\(learnedVenue)\", not \"\(site.name)\"")
        }
        var index: [String: Int] = [:]
        for (i, a) in site.anchors.enumerated() { index[a.id] = i }
        var written = 0
        print("anchor                measuredPower  exponent  level sigma  samples  confidence")
        for e in file.anchors {
            guard let i = index[e.id] else {
                FileHandle.standardError.write(Data("\(e.id): not in \(venue), left out\n".utf8))
                continue
            }
            let taken = e.samples > 0 && e.confidence >= minConfidence
            let site2 = e.sharesSite ? file.site.uncertainty : .none
            let sigma = ModelUncertainty(
                levelSigmaDB: (site2.levelSigmaDB * site2.levelSigmaDB + e.uncertainty.levelSigmaDB * e.uncertainty.levelSigmaDB)
                    .squareRoot(),
                exponentSigma: (site2.exponentSigma * site2.exponentSigma + e.uncertainty.exponentSigma * e.uncertainty.exponentSigma)
                    .squareRoot())
            print(String(format: "%@ %13.1f  %8.2f  %8.2f dB  %7d  %10.2f  %@",
                         e.id.padding(toLength: 20, withPad: " ", startingAt: 0), e.measuredPowerDBm, e.pathLossExponent,
                         sigma.levelSigmaDB, e.samples, e.confidence, taken ? "written" : "kept as it was"))
            guard taken else { continue }
            site.anchors[i].measuredPowerDBm = e.measuredPowerDBm
            site.anchors[i].pathLossExponent = e.pathLossExponent
            site.anchors[i].calibration = AnchorCalibration(source: .learned, samples: e.samples, uncertainty: sigma)
            written += 1
        }
        site.radius = RadiusCalibrations()
        let directory = (out as NSString).deletingLastPathComponent
        try VenueWriter.json(site, relativeTo: directory.isEmpty ? nil : directory)
            .write(toFile: out, atomically: true, encoding: .utf8)
        print("wrote \(out): \(written) of \(site.anchors.count) anchors with learned models")
    }
}
