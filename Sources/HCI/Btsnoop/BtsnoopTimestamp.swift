/// A btsnoop record timestamp: microseconds since midnight, 1 January of year 0 (proleptic Gregorian), signed 64-bit.
///
/// The Unix epoch is 0x00DCDDB30F2F8000 microseconds after that origin (BlueZ `src/shared/btsnoop.c`).
public struct BtsnoopTimestamp: Sendable, Hashable, Comparable {
    /// Microseconds from year 0 to 1970-01-01T00:00:00Z.
    public static let unixEpochMicroseconds: Int64 = 0x00DC_DDB3_0F2F_8000

    /// The raw value as stored in the file.
    public var microsecondsSinceYear0: Int64

    /// Wraps a raw file value.
    @inlinable public init(microsecondsSinceYear0: Int64) {
        self.microsecondsSinceYear0 = microsecondsSinceYear0
    }

    /// Creates a timestamp from microseconds since the Unix epoch.
    @inlinable public init(unixMicroseconds: Int64) {
        microsecondsSinceYear0 = unixMicroseconds &+ Self.unixEpochMicroseconds
    }

    /// Creates a timestamp from seconds since the Unix epoch, rounded to the microsecond.
    public init(unixSeconds: Double) {
        self.init(unixMicroseconds: Int64((unixSeconds * 1_000_000).rounded()))
    }

    /// Microseconds since the Unix epoch.
    @inlinable public var unixMicroseconds: Int64 { microsecondsSinceYear0 &- Self.unixEpochMicroseconds }

    /// Seconds since the Unix epoch (microsecond resolution survives a Double until the year 2255).
    @inlinable public var unixSeconds: Double { Double(unixMicroseconds) / 1_000_000 }

    public static func < (a: BtsnoopTimestamp, b: BtsnoopTimestamp) -> Bool {
        a.microsecondsSinceYear0 < b.microsecondsSinceYear0
    }
}
