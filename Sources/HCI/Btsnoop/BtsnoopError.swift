/// Why a btsnoop stream stopped: the record and byte offset where it happened, and the reason.
///
/// Records before the damage have already been returned; the decoder stays failed after throwing.
public struct BtsnoopError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    public enum Reason: Sendable, Hashable, CustomStringConvertible {
        /// The file does not start with `btsnoop\0`.
        case badMagic
        /// The header's version is not 1.
        case unsupportedVersion(UInt32)
        /// The header's datalink is neither 1002 (H4) nor 2001 (Linux monitor).
        case unsupportedDatalink(UInt32)
        /// A record's included length exceeds its original length.
        case includedLengthExceedsOriginal(included: UInt32, original: UInt32)
        /// A record's included length exceeds the largest HCI packet plus its framing (65,535 + 4).
        case implausibleLength(UInt32)
        /// An H4 record starts with a byte that is no packet indicator (or has no byte at all).
        case unknownH4Indicator(UInt8?)
        /// The input ended inside the 16-byte file header.
        case truncatedHeader(needs: Int, has: Int)
        /// The input ended inside a record.
        case truncatedRecord(needs: Int, has: Int)

        public var description: String {
            switch self {
            case .badMagic: "bad magic (not a btsnoop file)"
            case let .unsupportedVersion(v): "unsupported btsnoop version \(v) (expected 1)"
            case let .unsupportedDatalink(d): "unsupported datalink \(d) (expected 1002 or 2001)"
            case let .includedLengthExceedsOriginal(i, o): "included length \(i) exceeds original length \(o)"
            case let .implausibleLength(i): "implausible included length \(i) (more than 65539)"
            case let .unknownH4Indicator(byte?): "unknown H4 packet indicator 0x\(String(byte, radix: 16))"
            case .unknownH4Indicator(nil): "empty H4 record (no packet indicator)"
            case let .truncatedHeader(needs, has): "truncated header (needs \(needs) bytes, has \(has))"
            case let .truncatedRecord(needs, has): "truncated record (needs \(needs) bytes, has \(has))"
            }
        }
    }

    /// The 1-based number of the record being read; 0 for the file header.
    public var recordNumber: Int
    /// The file offset where the faulty header or record starts.
    public var byteOffset: Int
    /// What was wrong.
    public var reason: Reason

    /// Creates an error.
    public init(recordNumber: Int, byteOffset: Int, reason: Reason) {
        self.recordNumber = recordNumber
        self.byteOffset = byteOffset
        self.reason = reason
    }

    /// Such as `stopped at record 7, byte offset 312: truncated record (needs 30 bytes, has 11)`.
    public var description: String {
        let place = recordNumber == 0 ? "the file header" : "record \(recordNumber)"
        return "stopped at \(place), byte offset \(byteOffset): \(reason)"
    }
}
