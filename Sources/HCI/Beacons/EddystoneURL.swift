/// An Eddystone-URL frame (frame type 0x10): a compressed URL.
///
/// google/eddystone, "eddystone-url/README.md": frame type, TX power at 0 m (signed dBm), URL scheme prefix
/// (0x00 `http://www.`, 0x01 `https://www.`, 0x02 `http://`, 0x03 `https://`), then the encoded URL, in which
/// bytes 0x00-0x0D expand to `.com/`, `.org/`, `.edu/`, `.net/`, `.info/`, `.biz/`, `.gov/`, `.com`, `.org`,
/// `.edu`, `.net`, `.info`, `.biz`, `.gov`; 0x0E-0x20 and 0x7F-0xFF are reserved. Carries no beacon id of its own.
public struct EddystoneURL: Sendable, Hashable {
    /// The scheme prefixes, by code.
    public static let schemes = ["http://www.", "https://www.", "http://", "https://"]
    /// The expansion texts, by code 0x00-0x0D.
    public static let expansions = [
        ".com/", ".org/", ".edu/", ".net/", ".info/", ".biz/", ".gov/",
        ".com", ".org", ".edu", ".net", ".info", ".biz", ".gov",
    ]

    /// The calibrated TX power at 0 m in dBm.
    public var txPowerAt0mDBm: Int8
    /// The expanded URL, such as `https://goo.gl/S6zT6P`.
    public var url: String

    /// Creates a frame; the URL is compressed when encoded.
    public init(txPowerAt0mDBm: Int8, url: String) {
        self.txPowerAt0mDBm = txPowerAt0mDBm
        self.url = url
    }

    /// Decodes the service data after the UUID, starting with the frame type.
    public init(serviceData data: ArraySlice<UInt8>) throws(HCIDecodingError) {
        var r = ByteReader(data)
        guard try r.u8("Eddystone frame type") == Eddystone.urlFrameType else {
            throw .invalid(field: "Eddystone frame type", offset: 0, reason: "not URL (0x10)")
        }
        txPowerAt0mDBm = try r.i8("Eddystone-URL TX power")
        let scheme = try r.u8("Eddystone-URL scheme prefix")
        guard Int(scheme) < Self.schemes.count else {
            throw .invalid(field: "Eddystone-URL scheme prefix", offset: 2, reason: "reserved code \(scheme)")
        }
        var text = Self.schemes[Int(scheme)]
        while !r.isAtEnd {
            let offset = r.offset
            let byte = try r.u8("Eddystone-URL encoded URL")
            if Int(byte) < Self.expansions.count {
                text += Self.expansions[Int(byte)]
            } else if byte > 0x20 && byte < 0x7F {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                throw .invalid(field: "Eddystone-URL encoded URL", offset: offset, reason: "reserved byte \(byte)")
            }
        }
        url = text
    }

    /// The service data after the UUID. Throws when the URL has no known scheme or holds characters the
    /// encoding cannot carry (outside printable ASCII).
    public func serviceData() throws(HCIDecodingError) -> [UInt8] {
        var w = ByteWriter(capacity: 20)
        w.u8(Eddystone.urlFrameType)
        w.i8(txPowerAt0mDBm)
        let text = Array(url.utf8)
        guard let scheme = Self.longestMatch(Self.schemes, in: text, at: 0) else {
            throw .invalid(field: "Eddystone-URL url", offset: 0, reason: "no http:// or https:// scheme")
        }
        w.u8(UInt8(scheme.code))
        var k = scheme.length
        while k < text.count {
            if let expansion = Self.longestMatch(Self.expansions, in: text, at: k) {
                w.u8(UInt8(expansion.code))
                k += expansion.length
            } else {
                guard text[k] > 0x20 && text[k] < 0x7F else {
                    throw .invalid(field: "Eddystone-URL url", offset: k, reason: "byte \(text[k]) cannot be sent")
                }
                w.u8(text[k])
                k += 1
            }
        }
        return w.bytes
    }

    /// The frame as an AD structure.
    public func adStructure() throws(HCIDecodingError) -> ADStructure {
        .serviceData16(uuid: Eddystone.serviceUUID, data: try serviceData())
    }

    /// The code of the longest table entry that `text` holds at `start`, and its length.
    static func longestMatch(_ table: [String], in text: [UInt8], at start: Int) -> (code: Int, length: Int)? {
        var best: (code: Int, length: Int)?
        for (code, entry) in table.enumerated() {
            let bytes = Array(entry.utf8)
            guard start + bytes.count <= text.count, text[start..<(start + bytes.count)].elementsEqual(bytes) else {
                continue
            }
            if bytes.count > (best?.length ?? 0) { best = (code, bytes.count) }
        }
        return best
    }
}
