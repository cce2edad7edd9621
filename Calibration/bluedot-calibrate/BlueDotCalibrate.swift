import ArgumentParser
import BlueDotCore

/// `bluedot-calibrate`: from beacons on walls to good positions — survey, fit, plan, accuracy.
@main
struct BlueDotCalibrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bluedot-calibrate",
        abstract: "Survey a site, fit each beacon's path loss, plan beacon placement, check engine accuracy.",
        discussion: "See Calibration/README.md for the installer's walkthrough.",
        version: BuildInfo.versionLine,
        subcommands: [SurveyCommand.self, FitCommand.self, PlanCommand.self, AccuracyCommand.self, LearnedCommand.self]
    )
}
