/// A floor-plan image's format and size in pixels, read from its header: PNG's IHDR chunk (ISO/IEC 15948 §11.2.2)
/// or a JPEG's first start-of-frame segment (ITU-T T.81 §B.2.2). What the set-up page uploads is checked with it:
/// nothing else is accepted as a plan.
struct ImageSize: Sendable, Hashable {
    enum Format: Sendable, Hashable {
        case png, jpeg

        var fileExtension: String {
            switch self {
            case .png: "png"
            case .jpeg: "jpg"
            }
        }
    }

    var format: Format
    var width: Int
    var height: Int

    private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The format and size of `bytes`; nil when they are neither a PNG nor a JPEG with a frame header, or the size
    /// is zero.
    static func read(_ bytes: [UInt8]) -> ImageSize? {
        let size = bytes.starts(with: pngSignature) ? png(bytes) : bytes.starts(with: [0xFF, 0xD8]) ? jpeg(bytes) : nil
        guard let size, size.width > 0, size.height > 0 else { return nil }
        return size
    }

    private static func png(_ b: [UInt8]) -> ImageSize? {
        // Signature, then the IHDR chunk: length, type, width, height (big-endian).
        guard b.count >= 24, Array(b[12..<16]) == Array("IHDR".utf8) else { return nil }
        return ImageSize(format: .png, width: Int(be32(b, 16)), height: Int(be32(b, 20)))
    }

    private static func jpeg(_ b: [UInt8]) -> ImageSize? {
        var i = 2
        while i + 4 <= b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }  // fill bytes
            // Markers without a length: TEM and RSTn.
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard length >= 2 else { return nil }
            // Start of frame: every SOFn but DHT (C4), JPG (C8) and DAC (CC).
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard i + 9 <= b.count else { return nil }
                let height = Int(b[i + 5]) << 8 | Int(b[i + 6])
                let width = Int(b[i + 7]) << 8 | Int(b[i + 8])
                return ImageSize(format: .jpeg, width: width, height: height)
            }
            if marker == 0xDA || marker == 0xD9 { return nil }  // scan data or the end before any frame
            i += 2 + length
        }
        return nil
    }

    private static func be32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
    }
}
