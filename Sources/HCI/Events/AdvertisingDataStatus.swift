/// Whether a report's advertising data is whole or a fragment; unknown values (3 is reserved) are kept.
///
/// Core Spec 5.4, Vol 4, Part E, §7.7.65.13 (Event_Type bits 5-6). Legacy reports are always complete.
public struct AdvertisingDataStatus: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The two-bit value.
    public let rawValue: UInt8

    /// Creates a status from its two-bit value.
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0: the data is complete.
    public static let complete = AdvertisingDataStatus(rawValue: 0)
    /// 1: incomplete, more data will follow in further reports.
    public static let incomplete = AdvertisingDataStatus(rawValue: 1)
    /// 2: incomplete and truncated: no more data will come.
    public static let truncated = AdvertisingDataStatus(rawValue: 2)

    /// `complete`, `incomplete`, `truncated` or `reserved(3)`.
    public var description: String {
        switch rawValue {
        case 0: "complete"
        case 1: "incomplete"
        case 2: "truncated"
        default: "reserved(\(rawValue))"
        }
    }
}
