import FoundationEssentials

/// Reads a file the venue names (a floor plan): a regular file, at most 32 MiB.
enum FileManagerReader {
    static func read(_ path: String) -> [UInt8]? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let size = attributes[.size] as? Int, size <= 32 << 20,
            let data = FileManager.default.contents(atPath: path)
        else { return nil }
        return Array(data)
    }
}
