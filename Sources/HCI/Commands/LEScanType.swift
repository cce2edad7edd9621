/// Passive or active LE scanning; unknown values are kept as received.
///
/// Core Spec 5.4, Vol 4, Part E, §7.8.10 (LE_Scan_Type) and §7.8.64 (Scan_Type[i]).
public struct LEScanType: RawRepresentable, Sendable, Hashable {
    /// The byte as sent on the wire.
    public let rawValue: UInt8

    /// Creates a scan type from its wire value.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Passive scanning: listen only, send no scan requests (0x00).
    public static let passive = LEScanType(rawValue: 0x00)
    /// Active scanning: send scan requests and receive scan responses (0x01).
    public static let active = LEScanType(rawValue: 0x01)
}
