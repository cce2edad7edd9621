/// HCI_Hardware_Error: the controller hit a hardware failure; the host should reset it.
///
/// Core Spec 5.4, Vol 4, Part E, §7.7.16. Event code 0x10. Parameter: Hardware_Code (vendor-defined).
public struct HardwareErrorEvent: Sendable, Hashable {
    /// The event code, 0x10.
    public static let code: UInt8 = 0x10

    /// Hardware_Code: what failed, in the manufacturer's terms.
    public var hardwareCode: UInt8

    /// Creates the event.
    public init(hardwareCode: UInt8) {
        self.hardwareCode = hardwareCode
    }

    /// Writes Hardware_Code.
    public func encodeParameters(into writer: inout ByteWriter) {
        writer.u8(hardwareCode)
    }

    /// Reads Hardware_Code.
    public static func decode(parameters: ArraySlice<UInt8>) throws(HCIDecodingError) -> HardwareErrorEvent {
        var reader = ByteReader(parameters)
        let code = try reader.u8("Hardware_Code")
        try reader.expectEnd("HCI_Hardware_Error")
        return HardwareErrorEvent(hardwareCode: code)
    }
}
