import ArgumentParser
import Devices
import Formats
import FoundationEssentials
import Glibc

/// `bluedot devices`: the device registry, made from where the keys already are.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "Make device registry files (docs/formats.md, \"Devices\").",
        subcommands: [DevicesImportCommand.self]
    )
}

/// `bluedot devices import (--bluez DIR | --espresense config.yaml) [-o devices.json]`.
struct DevicesImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import devices and their IRKs from BlueZ's pairings or an ESPresense-companion configuration.",
        discussion: """
            --bluez: BlueZ's storage, /var/lib/bluetooth (every adapter) or one adapter's folder: each paired \
            device's info file gives its name and its Identity Resolving Key, which BlueZ writes least \
            significant byte first and the registry most significant first (the importer reverses it). Devices \
            paired without an IRK are imported by their address. Reading BlueZ's folder needs root.

            --espresense: the devices list of an ESPresense-companion config.yaml. irk:<hex> ids are taken as \
            written (ESPresense's order is the registry's), iBeacon ids become canonical beacon ids, other ids \
            ESPresense aliases; patterns (phone:*) are listed and skipped.

            The registry goes to --output (refused if the file exists, unless --force) or stdout. It holds keys: \
            keep it readable by the bluedot service only. Exit code 2 when the source cannot be imported.
            """
    )

    @Option(name: .customLong("bluez"), help: ArgumentHelp("BlueZ's storage folder.", valueName: "dir"))
    var bluez: String?

    @Option(name: .customLong("espresense"), help: ArgumentHelp("ESPresense-companion configuration (YAML).",
                                                                valueName: "config.yaml"))
    var espresense: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("Registry JSON file to write (default stdout).",
                                                    valueName: "devices.json"))
    var output: String?

    @Flag(help: "Overwrite --output if it exists.")
    var force = false

    func validate() throws {
        guard (bluez == nil) != (espresense == nil) else {
            throw ValidationError("give one source to import: --bluez DIR or --espresense FILE")
        }
    }

    func run() throws {
        let devices: [Device]
        let notes: [String]
        do {
            if let bluez {
                let read = try BlueZKeys.read(directory: bluez)
                (devices, notes) = (BlueZKeys.devices(read.entries), read.notes)
            } else {
                let path = espresense ?? ""
                let file = URL(fileURLWithPath: path).lastPathComponent
                (devices, notes) = try ESPresenseDevices.devices(try ESPresenseConfigDevices.load(path: path), file: file)
            }
        } catch {
            StandardError.write("bluedot devices import: \(error)")
            throw ExitCode(2)
        }
        let text: String
        do {
            let registry = try DeviceRegistry(devices: devices, file: bluez ?? espresense ?? "")
            text = DeviceRegistryWriter.text(registry)
            // What is written must load: the registry's own reader checks it.
            _ = try DeviceRegistryFile.parse(Array(text.utf8), file: output ?? "stdout")
        } catch {
            StandardError.write("bluedot devices import: the registry made does not load, not written: \(error)")
            throw ExitCode(2)
        }
        for note in notes { StandardError.write("bluedot devices import: \(note)") }
        guard let output else {
            FileOutput.writeAll(STDOUT_FILENO, text)
            StandardError.write("\(devices.count) devices from \(bluez ?? espresense ?? "")")
            return
        }
        if !force, FileManager.default.fileExists(atPath: output) {
            StandardError.write("bluedot devices import: \(output) exists (--force overwrites it)")
            throw ExitCode.failure
        }
        do {
            try text.write(toFile: output, atomically: true, encoding: .utf8)
        } catch {
            StandardError.write("bluedot devices import: cannot write \(output): \(error)")
            throw ExitCode.failure
        }
        StandardError.write("\(output): \(devices.count) devices from \(bluez ?? espresense ?? "")")
    }
}
