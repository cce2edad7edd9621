import ArgumentParser
import BlueDotCore
import FoundationEssentials
import HCI
import Scanner
import SystemIO

/// `bluedot decode FILE`: prints the sightings in a btsnoop recording, the same JSON lines `scan` prints.
struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Print the sightings in a btsnoop recording (datalink 1002 or 2001) as JSON lines.",
        discussion: """
            A summary goes to stderr: packets, advertising reports, beacons by type, malformed reports, and where a \
            damaged file stopped. A damaged file decodes up to the damage and exits 0; a file that cannot be read \
            at all exits 1. The file is read and decoded on one thread and the lines are written on another.
            """
    )

    @Argument(help: "The btsnoop file.")
    var file: String

    /// Sightings handed to the writing thread at a time.
    static let batchSize = 2048

    func run() throws {
        let output = LineOutput(flushEachLine: false)
        // Lines are written on their own thread while this one reads and decodes: the two halves cost about the
        // same, so a recording decodes at nearly twice the pace on two cores.
        let handoff = BatchHandoff<Sighting>(depth: 4)
        SystemThread.detach(name: "bluedot-write") {
            while let batch = handoff.take() {
                output.writeEach(batch.count) { k, buffer in batch[k].appendJSON(to: &buffer) }
            }
            handoff.consumerDone()
        }
        var decoder = SightingDecoder()
        var records = 0
        var stoppedBy: BtsnoopFileError?
        var batch: [Sighting] = []
        batch.reserveCapacity(Self.batchSize)
        do {
            let cursor = try BtsnoopFileReader(path: file).makeCursor()
            while let record = try cursor.next() {
                records += 1
                guard let packet = record.packet else { continue }
                decoder.decode(packet, timestamp: record.unixSeconds) { sighting in batch.append(sighting) }
                if batch.count >= Self.batchSize {
                    handoff.put(batch)
                    batch.removeAll(keepingCapacity: true)
                }
            }
        } catch {
            stoppedBy = error
        }
        handoff.put(batch)
        handoff.finish()
        handoff.waitForConsumer()
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
