import BlueDotCore
import JSON

/// A 128-bit Bluetooth UUID, held in the canonical big-endian order in which it is printed.
///
/// Module HCI imports no Foundation, so this stands in for `Foundation.UUID`. It prints as 8-4-4-4-12 lower-case
/// hex. Take care with byte order: 128-bit UUIDs inside AD structures (service UUID lists, service data) are sent
/// little-endian (Core Spec Supplement v11, Part A, §1.1), while beacon payloads such as the iBeacon proximity UUID
/// and the AltBeacon id1 are sent big-endian; use the initializer that matches the wire.
public struct BluetoothUUID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The first (most significant) eight bytes, as printed.
    public var high: UInt64
    /// The last (least significant) eight bytes, as printed.
    public var low: UInt64

    /// Creates a UUID from its two printed halves.
    @inlinable public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The Bluetooth Base UUID, 00000000-0000-1000-8000-00805f9b34fb (Core Spec 5.4, Vol 3, Part B, §2.5.1).
    public static let base = BluetoothUUID(high: 0x0000_0000_0000_1000, low: 0x8000_0080_5F9B_34FB)

    /// Expands a 16-bit or 32-bit assigned UUID onto the Bluetooth Base UUID (Core Spec 5.4, Vol 3, Part B, §2.5.1).
    @inlinable public init(shortUUID: UInt32) {
        self.init(high: UInt64(shortUUID) << 32 | BluetoothUUID.base.high, low: BluetoothUUID.base.low)
    }

    /// Reads sixteen bytes in big-endian (printed) order, as beacon payloads carry them.
    @inlinable public init(bigEndianBytes bytes: some Collection<UInt8>) throws(HCIDecodingError) {
        guard bytes.count == 16 else {
            throw .invalid(field: "UUID", offset: 0, reason: "expected 16 bytes, got \(bytes.count)")
        }
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (k, byte) in bytes.enumerated() {
            if k < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
        }
        self.init(high: high, low: low)
    }

    /// Reads sixteen bytes in little-endian order, as AD structures carry 128-bit UUIDs.
    @inlinable public init(littleEndianBytes bytes: some Collection<UInt8>) throws(HCIDecodingError) {
        try self.init(bigEndianBytes: bytes.reversed())
    }

    /// Parses the 8-4-4-4-12 form (either case), or 32 hex digits without dashes.
    public init?(_ text: some StringProtocol) {
        var digits = 0
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (position, character) in text.utf8.enumerated() {
            if character == UInt8(ascii: "-") {
                guard text.utf8.count == 36, [8, 13, 18, 23].contains(position) else { return nil }
                continue
            }
            guard let nibble = Self.nibble(character), digits < 32 else { return nil }
            if digits < 16 { high = high << 4 | UInt64(nibble) } else { low = low << 4 | UInt64(nibble) }
            digits += 1
        }
        guard digits == 32, text.utf8.count == 32 || text.utf8.count == 36 else { return nil }
        self.init(high: high, low: low)
    }

    /// The sixteen bytes in big-endian (printed) order.
    public var bigEndianBytes: [UInt8] {
        (0..<16).map { k in
            let half = k < 8 ? high : low
            return UInt8(truncatingIfNeeded: half >> (8 * (7 - k % 8)))
        }
    }

    /// The sixteen bytes in little-endian order, as AD structures send them.
    public var littleEndianBytes: [UInt8] { bigEndianBytes.reversed() }

    /// The 32 lower-case hex digits without dashes.
    public var hexDigits: String { JSONText.text(estimatedBytes: 32) { writeHexDigits(to: &$0) } }

    /// Writes the 32 lower-case hex digits.
    public func writeHexDigits(to w: inout JSONWriter) {
        w.hex(high, digits: 16)
        w.hex(low, digits: 16)
    }

    /// The 8-4-4-4-12 lower-case form, such as `f7826da6-4fa2-4e98-8024-bc5b71e0893e`.
    public var description: String { JSONText.text(estimatedBytes: 36) { writeDescription(to: &$0) } }

    /// Writes the 8-4-4-4-12 lower-case form.
    public func writeDescription(to w: inout JSONWriter) {
        w.hex(high >> 32, digits: 8)
        w.byte(UInt8(ascii: "-"))
        w.hex(high >> 16, digits: 4)
        w.byte(UInt8(ascii: "-"))
        w.hex(high, digits: 4)
        w.byte(UInt8(ascii: "-"))
        w.hex(low >> 48, digits: 4)
        w.byte(UInt8(ascii: "-"))
        w.hex(low, digits: 12)
    }

    public static func < (a: BluetoothUUID, b: BluetoothUUID) -> Bool {
        (a.high, a.low) < (b.high, b.low)
    }

    static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
