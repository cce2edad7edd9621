import BlueDotCore
import Formats
import Foundation
import LocationDisplay
import Testing

@testable import History

/// GPX 1.1 out of the history: read back by BlueDot's GPX reader (`Formats`, expat) and by Debian's gpsbabel.
@Suite struct GPXExportTests {
    static let requireTools = ProcessInfo.processInfo.environment["BLUEDOT_REQUIRE_TOOLS"] == "1"

    /// Two targets' fixes (one without coordinates) as a GPX file.
    func written() throws -> (path: String, fixes: [Location], skipped: Int) {
        var fixes = (0..<20).map { k in fix("tag & <1>", 1_795_500_000 + Double(k) * 1.5) }
        fixes += (0..<5).map { k in fix("tag-2", 1_795_500_000 + Double(k)) }
        var local = fix("local", 1_795_500_100)
        local.latitude = nil
        local.longitude = nil
        let (text, skipped) = GPXWriter.document(fixes + [local])
        let path = try scratchDatabase("history.gpx")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return (path, fixes, skipped)
    }

    /// Both tracks come back through BlueDot's GPX reader, named after their targets: the same coordinates to
    /// 1e-7 degrees and the same times (to the millisecond).
    @Test func bluedotsOwnGPXReaderReadsIt() throws {
        let (path, fixes, skipped) = try written()
        #expect(skipped == 1, "a fix without coordinates is left out")
        let document = try GPXParser.parse(path: path)
        #expect(document.tracks.map(\.name) == ["tag & <1>", "tag-2"])
        for track in document.tracks {
            let read = track.segments.joined()
            let written = fixes.filter { $0.targetID == track.name }
            #expect(read.count == written.count)
            for (a, b) in zip(read, written) {
                #expect(abs(a.latitude - (b.latitude ?? 0)) < 1e-7 && abs(a.longitude - (b.longitude ?? 0)) < 1e-7)
                #expect(abs((a.time ?? 0) - b.timestamp) < 1e-3)
            }
        }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("<name>tag &amp; &lt;1&gt;</name>"))
        #expect(text.contains("<time>2026-11-24T06:00:01.500Z</time>"))
    }

    /// gpsbabel (Debian's) reads every point of both tracks with their times.
    @Test func gpsbabelReadsIt() throws {
        let gpsbabel = ["/usr/bin/gpsbabel", "/usr/local/bin/gpsbabel"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let gpsbabel else {
            if Self.requireTools { Issue.record("gpsbabel is missing and BLUEDOT_REQUIRE_TOOLS=1 requires it (apt-get install gpsbabel)") }
            return
        }
        let (path, fixes, _) = try written()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gpsbabel)
        process.arguments = ["-t", "-i", "gpx", "-f", path, "-o", "unicsv,utc=0", "-F", "-"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let lines = output.split(whereSeparator: \.isNewline).map(String.init)  // gpsbabel ends lines with CR LF
        #expect(lines.first?.hasPrefix("No,Latitude,Longitude") == true, "\(lines.first ?? "")")
        #expect(lines.count == fixes.count + 1, "\(output.prefix(500))")
        #expect(lines.contains { $0.contains("52.0000000") || $0.contains("52.000000") })
        #expect(lines.contains { $0.contains("2026/11/24") || $0.contains("2026-11-24") }, "times read: \(lines.prefix(3))")
    }
}
