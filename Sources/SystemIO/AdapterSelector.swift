/// Which local Bluetooth adapter to open: by kernel name (`hci0`) or by its address (`AA:BB:CC:DD:EE:FF`).
public enum AdapterSelector: Sendable, Hashable, CustomStringConvertible {
    /// The adapter with this kernel index (`hciN`).
    case index(UInt16)
    /// The adapter with this public address, most significant byte first as written.
    case address([UInt8])

    /// Parses `hciN` (N in 0...65535) or six colon-separated hex bytes; anything else is
    /// `SystemIOError.invalidAdapter`.
    public init(parsing text: String) throws(SystemIOError) {
        if text.hasPrefix("hci") {
            let digits = text.dropFirst(3)
            guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
                  let index = UInt16(digits) else { throw .invalidAdapter(text) }
            self = .index(index)
            return
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6 else { throw .invalidAdapter(text) }
        var bytes: [UInt8] = []
        for part in parts {
            guard part.count == 2, part.allSatisfy(\.isHexDigit), let byte = UInt8(part, radix: 16) else {
                throw .invalidAdapter(text)
            }
            bytes.append(byte)
        }
        self = .address(bytes)
    }

    /// `hciN`, or the address in upper-case hex.
    public var description: String {
        switch self {
        case let .index(index): "hci\(index)"
        case let .address(bytes): Self.format(bytes)
        }
    }

    /// Formats address bytes (most significant first) as `AA:BB:CC:DD:EE:FF`.
    static func format(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return hex.count == 1 ? "0" + hex : hex
        }.joined(separator: ":")
    }
}
