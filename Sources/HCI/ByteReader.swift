/// Reads little-endian fields from a byte buffer, checking every length before it reads.
///
/// The one way wire types in this module take bytes apart: no literal offsets, and a short buffer is an
/// `HCIDecodingError` naming the field, never a trap. Offsets in errors are relative to the reader's start.
public struct ByteReader: Sendable {
    @usableFromInline let storage: ArraySlice<UInt8>
    @usableFromInline var index: Int

    /// Creates a reader over all of `bytes`.
    @inlinable public init(_ bytes: [UInt8]) {
        self.init(bytes[...])
    }

    /// Creates a reader over a slice; offsets are counted from the slice's start.
    @inlinable public init(_ bytes: ArraySlice<UInt8>) {
        storage = bytes
        index = bytes.startIndex
    }

    /// How many bytes have been read.
    @inlinable public var offset: Int { index - storage.startIndex }

    /// How many bytes are left.
    @inlinable public var remaining: Int { storage.endIndex - index }

    /// True when every byte has been read.
    @inlinable public var isAtEnd: Bool { index == storage.endIndex }

    @inlinable mutating func need(_ count: Int, _ field: String) throws(HCIDecodingError) {
        guard count <= remaining else {
            throw .truncated(field: field, offset: offset, needed: count, available: remaining)
        }
    }

    /// Reads one unsigned byte.
    @inlinable public mutating func u8(_ field: String) throws(HCIDecodingError) -> UInt8 {
        try need(1, field)
        defer { index += 1 }
        return storage[index]
    }

    /// Reads one signed byte (two's complement), as RSSI and TX power are sent.
    @inlinable public mutating func i8(_ field: String) throws(HCIDecodingError) -> Int8 {
        Int8(bitPattern: try u8(field))
    }

    /// Reads a little-endian 16-bit value.
    @inlinable public mutating func u16(_ field: String) throws(HCIDecodingError) -> UInt16 {
        try need(2, field)
        defer { index += 2 }
        return UInt16(storage[index]) | UInt16(storage[index + 1]) << 8
    }

    /// Reads a little-endian 24-bit value.
    @inlinable public mutating func u24(_ field: String) throws(HCIDecodingError) -> UInt32 {
        try need(3, field)
        defer { index += 3 }
        return UInt32(storage[index]) | UInt32(storage[index + 1]) << 8 | UInt32(storage[index + 2]) << 16
    }

    /// Reads a little-endian 32-bit value.
    @inlinable public mutating func u32(_ field: String) throws(HCIDecodingError) -> UInt32 {
        try need(4, field)
        var value: UInt32 = 0
        for k in 0..<4 { value |= UInt32(storage[index + k]) << (8 * k) }
        index += 4
        return value
    }

    /// Reads a little-endian 64-bit value.
    @inlinable public mutating func u64(_ field: String) throws(HCIDecodingError) -> UInt64 {
        try need(8, field)
        var value: UInt64 = 0
        for k in 0..<8 { value |= UInt64(storage[index + k]) << (8 * k) }
        index += 8
        return value
    }

    /// Reads a big-endian 16-bit value (beacon frames carry major, minor and similar fields big-endian).
    @inlinable public mutating func u16BigEndian(_ field: String) throws(HCIDecodingError) -> UInt16 {
        try need(2, field)
        defer { index += 2 }
        return UInt16(storage[index]) << 8 | UInt16(storage[index + 1])
    }

    /// Reads a big-endian 32-bit value.
    @inlinable public mutating func u32BigEndian(_ field: String) throws(HCIDecodingError) -> UInt32 {
        try need(4, field)
        var value: UInt32 = 0
        for k in 0..<4 { value = value << 8 | UInt32(storage[index + k]) }
        index += 4
        return value
    }

    /// Reads `count` bytes as a slice of the underlying buffer (no copy).
    @inlinable public mutating func bytes(_ count: Int, _ field: String) throws(HCIDecodingError) -> ArraySlice<UInt8> {
        guard count >= 0 else { throw .invalid(field: field, offset: offset, reason: "negative length \(count)") }
        try need(count, field)
        defer { index += count }
        return storage[index..<(index + count)]
    }

    /// Reads all remaining bytes.
    @inlinable public mutating func rest() -> ArraySlice<UInt8> {
        defer { index = storage.endIndex }
        return storage[index...]
    }

    /// Takes the next `count` bytes as a reader of their own, for a length-prefixed structure.
    @inlinable public mutating func subReader(_ count: Int, _ field: String) throws(HCIDecodingError) -> ByteReader {
        ByteReader(try bytes(count, field))
    }

    /// Throws unless every byte has been read.
    @inlinable public func expectEnd(_ type: String) throws(HCIDecodingError) {
        guard isAtEnd else { throw .trailingBytes(type: type, count: remaining) }
    }
}
