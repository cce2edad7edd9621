/// The type octet of an AD structure, as the Bluetooth Assigned Numbers (§2.3, Common Data Types) list them.
///
/// An open set: any octet is a valid `ADType`; the constants below name the ones this module decodes.
/// Layout of the structures: Core Spec Supplement v11, Part A, §1; Core Spec 5.4, Vol 3, Part C, §11.
public struct ADType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The type octet.
    public var rawValue: UInt8

    /// Wraps a type octet.
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Flags (CSS v11, Part A, §1.3).
    public static let flags = ADType(rawValue: 0x01)
    /// Incomplete List of 16-bit Service UUIDs (CSS v11, Part A, §1.1).
    public static let incompleteServiceUUIDs16 = ADType(rawValue: 0x02)
    /// Complete List of 16-bit Service UUIDs (CSS v11, Part A, §1.1).
    public static let completeServiceUUIDs16 = ADType(rawValue: 0x03)
    /// Incomplete List of 32-bit Service UUIDs (CSS v11, Part A, §1.1).
    public static let incompleteServiceUUIDs32 = ADType(rawValue: 0x04)
    /// Complete List of 32-bit Service UUIDs (CSS v11, Part A, §1.1).
    public static let completeServiceUUIDs32 = ADType(rawValue: 0x05)
    /// Incomplete List of 128-bit Service UUIDs (CSS v11, Part A, §1.1).
    public static let incompleteServiceUUIDs128 = ADType(rawValue: 0x06)
    /// Complete List of 128-bit Service UUIDs (CSS v11, Part A, §1.1).
    public static let completeServiceUUIDs128 = ADType(rawValue: 0x07)
    /// Shortened Local Name (CSS v11, Part A, §1.2).
    public static let shortenedLocalName = ADType(rawValue: 0x08)
    /// Complete Local Name (CSS v11, Part A, §1.2).
    public static let completeLocalName = ADType(rawValue: 0x09)
    /// Tx Power Level (CSS v11, Part A, §1.5).
    public static let txPowerLevel = ADType(rawValue: 0x0A)
    /// Service Data - 16-bit UUID (CSS v11, Part A, §1.11).
    public static let serviceData16 = ADType(rawValue: 0x16)
    /// Service Data - 32-bit UUID (CSS v11, Part A, §1.11).
    public static let serviceData32 = ADType(rawValue: 0x20)
    /// Service Data - 128-bit UUID (CSS v11, Part A, §1.11).
    public static let serviceData128 = ADType(rawValue: 0x21)
    /// Manufacturer Specific Data (CSS v11, Part A, §1.4).
    public static let manufacturerSpecificData = ADType(rawValue: 0xFF)

    /// The type as `0xNN`.
    public var description: String {
        let text = String(rawValue, radix: 16, uppercase: false)
        return "0x" + (text.count < 2 ? "0" + text : text)
    }
}
