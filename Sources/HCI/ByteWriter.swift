/// Builds little-endian byte buffers: the encoding side of `ByteReader`.
public struct ByteWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8]

    /// Creates an empty writer, optionally reserving capacity.
    public init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Appends one byte.
    public mutating func u8(_ value: UInt8) { bytes.append(value) }

    /// Appends one signed byte (two's complement).
    public mutating func i8(_ value: Int8) { bytes.append(UInt8(bitPattern: value)) }

    /// Appends a little-endian 16-bit value.
    public mutating func u16(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    }

    /// Appends a little-endian 24-bit value (the top byte of `value` must be zero).
    public mutating func u24(_ value: UInt32) {
        for k in 0..<3 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * k))) }
    }

    /// Appends a little-endian 32-bit value.
    public mutating func u32(_ value: UInt32) {
        for k in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * k))) }
    }

    /// Appends a little-endian 64-bit value.
    public mutating func u64(_ value: UInt64) {
        for k in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * k))) }
    }

    /// Appends a big-endian 16-bit value.
    public mutating func u16BigEndian(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    /// Appends a big-endian 32-bit value.
    public mutating func u32BigEndian(_ value: UInt32) {
        for k in (0..<4).reversed() { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * k))) }
    }

    /// Appends raw bytes.
    public mutating func append<Bytes: Sequence>(_ other: Bytes) where Bytes.Element == UInt8 {
        bytes.append(contentsOf: other)
    }
}
