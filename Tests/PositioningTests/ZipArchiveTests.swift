import Foundation
import Formats
import Testing

/// `ZipArchive` against a zip made by another program (the IMDF fixture, zipped with Info-ZIP) and against that zip
/// damaged the ways that hung or crashed the zip library BlueDot used before (found by `Tools/fuzz`, target
/// imdf-zip): every damage is an error naming the entry, at once.
struct ZipArchiveTests {
    static let zipBytes: [UInt8] = {
        (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.path("imdf-vegalsa-excerpt.zip"))))) ?? []
    }()

    /// Where central directory entry `name` starts in `bytes`.
    static func centralEntry(_ name: String, in bytes: [UInt8]) throws -> Int {
        let signature: [UInt8] = [0x50, 0x4B, 0x01, 0x02]
        for i in 0..<(bytes.count - 46) where Array(bytes[i..<(i + 4)]) == signature {
            let length = Int(bytes[i + 28]) | Int(bytes[i + 29]) << 8
            if String(decoding: bytes[(i + 46)..<(i + 46 + length)], as: UTF8.self).hasSuffix(name) { return i }
        }
        throw ZipArchive.Error(entry: name, message: "not in the fixture")
    }

    static func put32(_ value: UInt32, at offset: Int, in bytes: inout [UInt8]) {
        for k in 0..<4 { bytes[offset + k] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(k))) }
    }

    static func get32(_ offset: Int, in bytes: [UInt8]) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) }
    }

    @Test func everyEntryInflatesToTheFolderCopy() throws {
        let archive = try ZipArchive(bytes: Self.zipBytes)
        let files = archive.entries.filter { !$0.isFolder }
        #expect(files.count == 5)
        for entry in files {
            let name = String(entry.path.split(separator: "/").last!)
            let folderCopy = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.path("imdf-vegalsa-excerpt/\(name)"))))
            #expect(try archive.contents(of: entry, limit: 1 << 20) == folderCopy, "\(entry.path)")
        }
    }

    @Test func aDeflateStreamCutShortIsAnErrorNotAHang() throws {
        var bytes = Self.zipBytes
        let entry = try Self.centralEntry("unit.geojson", in: bytes)
        Self.put32(Self.get32(entry + 20, in: bytes) - 40, at: entry + 20, in: &bytes)  // compressed size
        let archive = try ZipArchive(bytes: bytes)
        let unit = try #require(archive.entries.first { $0.path.hasSuffix("unit.geojson") })
        #expect(throws: ZipArchive.Error(entry: unit.path, message: "its deflate stream ends early")) {
            try archive.contents(of: unit, limit: 1 << 20)
        }
    }

    @Test func sizesChecksumsAndMethodsMustAgree() throws {
        let entry = try Self.centralEntry("level.geojson", in: Self.zipBytes)
        func message(_ damage: (inout [UInt8]) -> Void) throws -> String {
            var bytes = Self.zipBytes
            damage(&bytes)
            let archive = try ZipArchive(bytes: bytes)
            let level = try #require(archive.entries.first { $0.path.hasSuffix("level.geojson") })
            do {
                _ = try archive.contents(of: level, limit: 1 << 20)
                return "no error"
            } catch {
                return error.message
            }
        }
        #expect(try message { Self.put32(Self.get32(entry + 24, in: $0) + 1, at: entry + 24, in: &$0) }
                .contains("inflates to 8162 bytes, not the 8163 the directory says"))
        #expect(try message { Self.put32(Self.get32(entry + 24, in: $0) - 1, at: entry + 24, in: &$0) }
                .contains("inflates to more than"))
        #expect(try message { Self.put32(Self.get32(entry + 16, in: $0) ^ 1, at: entry + 16, in: &$0) }
                .contains("CRC-32 mismatch"))
        #expect(try message { $0[entry + 10] = 0x08; $0[entry + 11] = 0x02 }.contains("disagree on the compression method"))
        #expect(try message { Self.put32(0xFFFF_FF00, at: entry + 20, in: &$0) }.contains("run past the end"))
        #expect(try message { Self.put32(UInt32($0.count - 10), at: entry + 42, in: &$0) }.contains("no local file header"))
        #expect(try message { _ in } == "no error")
    }

    @Test func notAZipAndTruncatedZipsAreRefusedWithAReason() {
        for bytes in [[UInt8](), Array("PK not really".utf8), Array(Self.zipBytes.prefix(3000))] {
            #expect(throws: ZipArchive.Error.self) { try ZipArchive(bytes: bytes) }
        }
    }

    /// A liveness check, not a speed target: these inputs hung or crashed the earlier library.
    @Test func theArchivesTheFuzzerFoundFailFast() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Tools/fuzz/regressions/imdf-zip")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(names.count >= 2)
        for name in names {
            let bytes = try [UInt8](Data(contentsOf: folder.appendingPathComponent(name)))
            let started = ContinuousClock.now
            _ = try? IMDFArchive.zip(bytes: bytes, name: name)
            #expect(ContinuousClock.now - started < .seconds(5), "\(name) took too long")
        }
    }
}
