import FoundationEssentials
import SystemIO

/// The files of an IMDF archive (`manifest.json`, `venue.geojson`, `level.geojson`, `unit.geojson`, ...), read
/// from a folder or from the `.zip` IMDF is distributed as. Only the files the import reads are kept.
///
/// In a zip the files may sit at the top or inside one folder (a zipped folder): each name is taken from the
/// shallowest entry of that name, macOS's `__MACOSX/` shadows are skipped, and an entry larger than
/// `maximumFileBytes` once inflated is refused rather than read.
public struct IMDFArchive: Sendable, Hashable {
    /// The files the import reads.
    public static let fileNames = ["manifest.json", "venue.geojson", "footprint.geojson", "level.geojson",
                                   "unit.geojson", "opening.geojson"]
    /// The largest file read, inflated (a guard against zip bombs): 256 MiB.
    public static let maximumFileBytes = 256 << 20

    /// The archive's name as given (the folder's or the zip's last path component).
    public var name: String
    /// Bytes of each file present, by file name (`unit.geojson`).
    public var files: [String: [UInt8]]
    /// How errors name each file, when not by its name: `IMDF.zip/unit.geojson` for an entry of a zip.
    public var labels: [String: String]

    /// An archive from files already in memory.
    public init(name: String, files: [String: [UInt8]], labels: [String: String] = [:]) {
        self.name = name
        self.files = files
        self.labels = labels
    }

    /// How errors name `file`: `unit.geojson` in a folder, `IMDF.zip/unit.geojson` (the entry's path) in a zip.
    func label(_ file: String) -> String { labels[file] ?? file }

    /// Reads the archive at `path`: a folder, or a zip file.
    public static func open(path: String) throws(VenueImportError) -> IMDFArchive {
        let url = URL(fileURLWithPath: path)
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw VenueImportError(file: url.lastPathComponent, message: "cannot read \(path): no such file or folder")
        }
        return isDirectory ? try folder(url) : try zip(url)
    }

    /// The files of a folder.
    private static func folder(_ url: URL) throws(VenueImportError) -> IMDFArchive {
        var files: [String: [UInt8]] = [:]
        for name in fileNames {
            let file = url.appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: file.path) else { continue }
            do { files[name] = try WholeFile.read(file.path) } catch {
                throw VenueImportError(file: name, message: "\(error)")
            }
        }
        return IMDFArchive(name: url.lastPathComponent, files: files)
    }

    /// The files of a zip archive file.
    private static func zip(_ url: URL) throws(VenueImportError) -> IMDFArchive {
        let zipName = url.lastPathComponent
        let data: [UInt8]
        do { data = try WholeFile.read(url.path) } catch { throw VenueImportError(file: zipName, message: "\(error)") }
        return try zip(bytes: data, name: zipName)
    }

    /// The files of a zip archive in memory; `name` names it in errors.
    public static func zip(bytes: [UInt8], name zipName: String) throws(VenueImportError) -> IMDFArchive {
        let archive: ZipArchive
        do {
            archive = try ZipArchive(bytes: bytes)
        } catch {
            throw VenueImportError(file: zipName, message: "not a readable zip archive (\(error))")
        }
        var chosen: [String: ZipArchive.Entry] = [:]
        for entry in archive.entries where !entry.isFolder {
            let parts = entry.path.split(separator: "/")
            guard let last = parts.last, !parts.contains("__MACOSX") else { continue }
            let name = String(last)
            guard fileNames.contains(name) else { continue }
            if let earlier = chosen[name], earlier.path.split(separator: "/").count <= parts.count { continue }
            chosen[name] = entry
        }
        var files: [String: [UInt8]] = [:]
        var labels: [String: String] = [:]
        for (name, entry) in chosen {
            let label = "\(zipName)/\(entry.path)"
            do {
                files[name] = try archive.contents(of: entry, limit: maximumFileBytes)
            } catch {
                throw VenueImportError(file: label, message: "cannot inflate (\(error.message))")
            }
            labels[name] = label
        }
        return IMDFArchive(name: zipName, files: files, labels: labels)
    }
}
