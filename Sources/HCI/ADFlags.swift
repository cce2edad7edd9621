/// The bits of the Flags AD structure (CSS v11, Part A, §1.3).
///
/// The Flags data may be longer than one octet (the extra octets are reserved); only the first is decoded.
public struct ADFlags: OptionSet, Sendable, Hashable {
    /// The first Flags octet.
    public var rawValue: UInt8

    /// Wraps a Flags octet.
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// LE Limited Discoverable Mode (bit 0).
    public static let leLimitedDiscoverable = ADFlags(rawValue: 1 << 0)
    /// LE General Discoverable Mode (bit 1).
    public static let leGeneralDiscoverable = ADFlags(rawValue: 1 << 1)
    /// BR/EDR Not Supported (bit 2).
    public static let brEdrNotSupported = ADFlags(rawValue: 1 << 2)
    /// Simultaneous LE and BR/EDR to Same Device Capable, Controller (bit 3).
    public static let simultaneousLEAndBrEdrController = ADFlags(rawValue: 1 << 3)
    /// Simultaneous LE and BR/EDR to Same Device Capable, Host (bit 4, deprecated in later supplements).
    public static let simultaneousLEAndBrEdrHost = ADFlags(rawValue: 1 << 4)
}
