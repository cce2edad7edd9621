/// Splits an H4 byte stream (UART transport) into whole HCI packets, incrementally.
///
/// Feed it bytes as they arrive, in chunks of any size, and take packets out with `next()`. It is pure: no I/O,
/// no clock. Header lengths per packet type: Core Spec 5.4, Vol 4, Part E, §5.4 (HCI data formats).
///
/// A byte that is not a known packet indicator where a packet should start is a framing error: the stream has lost
/// sync and cannot be trusted further, so the framer throws and stays failed until `reset()`.
public struct H4Framer: Sendable {
    /// Why an H4 stream cannot be framed.
    public enum Error: Swift.Error, Sendable, Hashable, CustomStringConvertible {
        /// An unknown packet indicator at the given offset of the stream (bytes consumed so far).
        case unknownPacketIndicator(UInt8, streamOffset: Int)

        public var description: String {
            switch self {
            case let .unknownPacketIndicator(byte, offset):
                let hex = String(byte, radix: 16, uppercase: false)
                return "H4 stream out of sync: unknown packet indicator 0x\(hex) at byte \(offset)"
            }
        }
    }

    private var buffer: [UInt8] = []
    private var start = 0
    private var consumed = 0
    private var failure: Error?

    /// Creates an empty framer.
    public init() {}

    /// Bytes received but not yet returned as a packet.
    public var pendingByteCount: Int { buffer.count - start }

    /// Appends bytes from the stream.
    public mutating func append<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        if start > 4096 && start * 2 > buffer.count {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Returns the next whole packet, or nil when more bytes are needed.
    public mutating func next() throws(Error) -> HCIPacket? {
        if let failure { throw failure }
        guard pendingByteCount >= 1 else { return nil }
        let indicator = buffer[start]
        guard let type = HCIPacketType(rawValue: indicator) else {
            let error = Error.unknownPacketIndicator(indicator, streamOffset: consumed)
            failure = error
            throw error
        }
        let headerLength = Self.headerLength(of: type)
        guard pendingByteCount >= 1 + headerLength else { return nil }
        let parameterLength = Self.parameterLength(of: type, header: buffer[(start + 1)...])
        let total = 1 + headerLength + parameterLength
        guard pendingByteCount >= total else { return nil }
        let packet = HCIPacket(type: type, bytes: Array(buffer[(start + 1)..<(start + total)]))
        start += total
        consumed += total
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        return packet
    }

    /// Drops all buffered bytes and any framing failure, as after reconnecting to the controller.
    public mutating func reset() {
        buffer.removeAll(keepingCapacity: true)
        start = 0
        consumed = 0
        failure = nil
    }

    /// The header length after the indicator, in bytes.
    static func headerLength(of type: HCIPacketType) -> Int {
        switch type {
        case .command: 3  // opcode (2), parameter total length (1)
        case .acl: 4  // handle and flags (2), data total length (2)
        case .sco: 3  // handle and flags (2), data total length (1)
        case .event: 2  // event code (1), parameter total length (1)
        case .iso: 4  // handle and flags (2), data load length (14 bits of 2)
        }
    }

    /// The parameter (payload) length a header announces.
    static func parameterLength(of type: HCIPacketType, header: ArraySlice<UInt8>) -> Int {
        let h = header.startIndex
        switch type {
        case .command: return Int(header[h + 2])
        case .acl: return Int(header[h + 2]) | Int(header[h + 3]) << 8
        case .sco: return Int(header[h + 2])
        case .event: return Int(header[h + 1])
        case .iso: return (Int(header[h + 2]) | Int(header[h + 3]) << 8) & 0x3FFF
        }
    }
}
