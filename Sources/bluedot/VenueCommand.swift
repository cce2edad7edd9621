import ArgumentParser
import Formats
import Foundation
import Positioning

/// `bluedot venue`: venue files from other tools' site descriptions.
struct VenueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "venue",
        abstract: "Make venue files from other tools' site descriptions.",
        subcommands: [VenueImportCommand.self]
    )
}

/// `bluedot venue import --espresense config.yaml -o V.json`: an ESPresense-companion configuration as a venue.
struct VenueImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import a venue (anchors, floors, rooms) from another tool's configuration.",
        discussion: """
            --espresense: an ESPresense-companion config.yaml. Its nodes become anchors named as the nodes \
            publish (espresense/devices/<device>/<node>), its floors floors numbered in file order, its rooms \
            rooms. Nodes that are disabled, not stationary or without a point are left out and listed. See \
            docs/formats.md, "ESPresense". Exit code 2 when the input cannot be imported.
            """
    )

    @Option(name: .customLong("espresense"), help: ArgumentHelp("ESPresense-companion configuration (YAML).",
                                                                valueName: "config.yaml"))
    var espresense: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("Venue JSON file to write.", valueName: "venue.json"))
    var output: String

    @Option(help: "Venue name (default: the configuration's file name).")
    var name: String?

    func validate() throws {
        guard espresense != nil else { throw ValidationError("give the configuration to import: --espresense FILE") }
    }

    func run() throws {
        guard let espresense else { return }
        let imported: ESPresenseConfigImport.Imported
        do {
            imported = try ESPresenseConfigImport.load(path: espresense, venueName: name)
        } catch {
            StandardError.write("bluedot venue import: \(error)")
            throw ExitCode(2)
        }
        let directory = URL(fileURLWithPath: output).deletingLastPathComponent().path
        do {
            try VenueWriter.json(imported.venue, relativeTo: directory).write(toFile: output, atomically: true,
                                                                              encoding: .utf8)
        } catch {
            StandardError.write("bluedot venue import: cannot write \(output): \(error.localizedDescription)")
            throw ExitCode.failure
        }
        for note in imported.notes { StandardError.write("bluedot venue import: \(note)") }
        let v = imported.venue
        StandardError.write("\(output): \(v.anchors.count) anchors, \(v.floors.count) floors, \(v.rooms.count) rooms"
                            + " from \(espresense)")
    }
}
