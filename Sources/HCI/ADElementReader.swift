/// Walks the AD structures of advertising or scan response data without allocating.
///
/// Core Spec 5.4, Vol 3, Part C, §11: a sequence of `length, type, data[length - 1]`. A zero length octet ends the
/// significant part early (the rest is padding, which is legal). A length that runs past the end of the data is
/// malformed: `next()` returns every structure before it, then throws an `HCIDecodingError` naming the offset,
/// and afterwards returns nil, so callers can count the damage and carry on with the next report.
///
/// ```swift
/// var reader = ADElementReader(report.data)
/// while let element = try reader.next() { ... }
/// ```
public struct ADElementReader: Sendable {
    @usableFromInline var reader: ByteReader
    @usableFromInline var finished = false

    /// Creates a reader over advertising data.
    @inlinable public init(_ data: ArraySlice<UInt8>) {
        reader = ByteReader(data)
    }

    /// Creates a reader over advertising data.
    @inlinable public init(_ data: [UInt8]) {
        self.init(data[...])
    }

    /// Returns the next AD structure, nil at the end (or at zero-length padding), or throws on an overrun.
    @inlinable public mutating func next() throws(HCIDecodingError) -> ADElement? {
        guard !finished, !reader.isAtEnd else { return nil }
        let offset = reader.offset
        let length: UInt8
        do { length = try reader.u8("AD length") } catch { finished = true; throw error }
        guard length > 0 else {
            finished = true
            return nil
        }
        guard Int(length) <= reader.remaining else {
            finished = true
            throw .truncated(
                field: "AD structure at byte \(offset)", offset: offset + 1, needed: Int(length),
                available: reader.remaining)
        }
        do {
            let type = try reader.u8("AD type")
            let data = try reader.bytes(Int(length) - 1, "AD data")
            return ADElement(type: ADType(rawValue: type), data: data, offset: offset)
        } catch {
            finished = true
            throw error
        }
    }
}
