import ArgumentParser
import BlueDotCore

/// The `bluedot` command: scan, decode, replay, simulate, evaluate, the gateway (run, demo) and venue imports.
@main
struct BlueDot: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bluedot",
        abstract: "Indoor location from Bluetooth LE beacons.",
        version: BuildInfo.versionLine,
        subcommands: [
            ScanCommand.self, DecodeCommand.self, ReplayCommand.self, SimulateCommand.self, EvaluateCommand.self,
            RunCommand.self, DemoCommand.self, VenueCommand.self, DevicesCommand.self,
        ]
    )
}
