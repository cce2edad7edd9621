import ArgumentParser
import HCI
import HCILinux
import Scanner

/// `bluedot decode FILE`: prints the sightings in a btsnoop recording, the same JSON lines `scan` prints.
struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Print the sightings in a btsnoop recording (datalink 1002 or 2001) as JSON lines.",
        discussion: """
            A summary goes to stderr: packets, advertising reports, beacons by type, malformed reports, and where a \
            damaged file stopped. A damaged file decodes up to the damage and exits 0; a file that cannot be read \
            at all exits 1.
            """
    )

    @Argument(help: "The btsnoop file.")
    var file: String

    func run() throws {
        let output = LineOutput(flushEachLine: false)
        var decoder = SightingDecoder()
        var records = 0
        var stoppedBy: BtsnoopFileError?
        do {
            let cursor = try BtsnoopFileReader(path: file).makeCursor()
            while let record = try cursor.next() {
                records += 1
                guard let packet = record.packet else { continue }
                decoder.decode(packet, timestamp: record.unixSeconds) { sighting in
                    output.write { sighting.appendJSON(to: &$0) }
                }
            }
        } catch {
            stoppedBy = error
        }
        output.flush()
        let statistics = decoder.statistics
        let types = statistics.beaconsByType.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        var summary = "\(file): records \(records), packets \(statistics.packets), "
            + "advertising reports \(statistics.advertisingReports), beacons \(statistics.beacons)"
        if !types.isEmpty { summary += " (\(types.joined(separator: ", ")))" }
        summary += ", malformed \(statistics.malformed)"
        StandardError.write(summary)
        guard let stoppedBy else { return }
        if Self.isUnreadable(stoppedBy, records: records) {
            StandardError.write("bluedot decode: \(stoppedBy)")
            throw ExitCode.failure
        }
        StandardError.write("stopped early after \(records) record(s): \(stoppedBy)")
    }

    /// True when nothing of the file could be used: it would not open or read, or its header is bad.
    static func isUnreadable(_ error: BtsnoopFileError, records: Int) -> Bool {
        switch error {
        case .open, .closed, .write: true
        case .read: records == 0
        case let .damaged(_, damage): records == 0 && damage.byteOffset < BtsnoopWriter.fileHeader().count
        }
    }
}
