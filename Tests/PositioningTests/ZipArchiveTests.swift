import Foundation
import Formats
import Testing

/// `ZipArchive` (libzip) against a zip made by another program (the IMDF fixture, zipped with Info-ZIP) and against
/// that zip damaged the ways that hung or crashed the zip libraries BlueDot used before (found by `Tools/fuzz`, target
/// imdf-zip): every damage is an error, naming the entry where it is the entry's, at once.
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

    /// The error the fixture gives once damaged, as `entry: message` (or the archive's message), reading every
    /// file in it; "no error" when all read.
    static func failure(_ damage: (inout [UInt8]) -> Void) -> String {
        var bytes = zipBytes
        damage(&bytes)
        do {
            let archive = try ZipArchive(bytes: bytes)
            for entry in archive.entries where !entry.isFolder {
                _ = try archive.contents(of: entry, limit: 1 << 20)
            }
            return "no error"
        } catch {
            return error.description
        }
    }

    /// Damage the earlier libraries hung or trapped on, and damage to sizes, checksums and methods: the entry's
    /// read fails naming it. A compressed size past the end is no damage to libzip, which reads the deflate
    /// stream to its own end and checks the result's size and CRC-32.
    @Test func damagedArchivesAreErrorsNamingTheEntry() throws {
        let entry = try Self.centralEntry("level.geojson", in: Self.zipBytes)
        let unit = try Self.centralEntry("unit.geojson", in: Self.zipBytes)
        let cases: [(String, (inout [UInt8]) -> Void, String)] = [
            ("a deflate stream cut short", { Self.put32(Self.get32(unit + 20, in: $0) - 40, at: unit + 20, in: &$0) },
             "imdf-vegalsa-excerpt/unit.geojson: cannot read it: CRC error"),
            ("one byte more declared", { Self.put32(Self.get32(entry + 24, in: $0) + 1, at: entry + 24, in: &$0) },
             "imdf-vegalsa-excerpt/level.geojson: inflates to 8162 bytes, not the 8163 the directory says"),
            ("one byte less declared", { Self.put32(Self.get32(entry + 24, in: $0) - 1, at: entry + 24, in: &$0) },
             "imdf-vegalsa-excerpt/level.geojson: inflates to more than the 8161 bytes the directory says"),
            ("a wrong CRC-32", { Self.put32(Self.get32(entry + 16, in: $0) ^ 1, at: entry + 16, in: &$0) },
             "imdf-vegalsa-excerpt/level.geojson: cannot read it: CRC error"),
            ("another method", { $0[entry + 10] = 0x08; $0[entry + 11] = 0x02 },
             "imdf-vegalsa-excerpt/level.geojson: cannot open it: compression method not supported"),
            ("a size past the end", { Self.put32(0xFFFF_FF00, at: entry + 20, in: &$0) }, "no error"),
            ("a local header nowhere", { Self.put32(UInt32($0.count - 10), at: entry + 42, in: &$0) },
             "imdf-vegalsa-excerpt/level.geojson: cannot open it: invalid argument"),
            ("nothing", { _ in }, "no error"),
        ]
        for (what, damage, expected) in cases {
            #expect(Self.failure(damage) == expected, "\(what)")
        }
    }

    /// An entry is held to the limit by the size it declares, before a byte of it is inflated.
    @Test func entriesOverTheLimitAreRefusedUnread() throws {
        let archive = try ZipArchive(bytes: Self.zipBytes)
        let level = try #require(archive.entries.first { $0.path.hasSuffix("level.geojson") })
        #expect(throws: ZipArchive.Error(entry: level.path, message: "declares 8162 bytes inflated, over the limit of 8000")) {
            try archive.contents(of: level, limit: 8000)
        }
        #expect(try archive.contents(of: level, limit: 8162).count == 8162)
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
