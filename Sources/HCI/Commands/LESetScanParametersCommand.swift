/// HCI_LE_Set_Scan_Parameters: legacy scan type, interval and window, own address type, filter policy.
///
/// Core Spec 5.4, Vol 4, Part E, §7.8.10. Opcode 0x200B (OGF 0x08, OCF 0x00B). Returns only a status.
/// Interval and window are counted in units of 0.625 ms (0x0004...0x4000), window <= interval.
public struct LESetScanParametersCommand: HCICommand {
    /// OGF 0x08 (LE Controller), OCF 0x00B.
    public static let opcode = Opcode(ogf: Opcode.leControllerGroup, ocf: 0x00B)

    /// LE_Scan_Type: passive or active.
    public var scanType: LEScanType
    /// LE_Scan_Interval, in units of 0.625 ms.
    public var scanIntervalUnits: UInt16
    /// LE_Scan_Window, in units of 0.625 ms.
    public var scanWindowUnits: UInt16
    /// Own_Address_Type: 0x00 public, 0x01 random, 0x02/0x03 resolvable private address with fallback.
    public var ownAddressType: UInt8
    /// Scanning_Filter_Policy: 0x00 accept all advertisements (except directed ones not to us), others per spec.
    public var filterPolicy: UInt8

    /// Creates the command.
    public init(scanType: LEScanType, scanIntervalUnits: UInt16, scanWindowUnits: UInt16,
                ownAddressType: UInt8 = 0x00, filterPolicy: UInt8 = 0x00) {
        self.scanType = scanType
        self.scanIntervalUnits = scanIntervalUnits
        self.scanWindowUnits = scanWindowUnits
        self.ownAddressType = ownAddressType
        self.filterPolicy = filterPolicy
    }

    /// Writes the five parameters in order.
    public func encodeParameters(into writer: inout ByteWriter) {
        writer.u8(scanType.rawValue)
        writer.u16(scanIntervalUnits)
        writer.u16(scanWindowUnits)
        writer.u8(ownAddressType)
        writer.u8(filterPolicy)
    }

    /// Reads the five parameters.
    public static func decode(parameters: ArraySlice<UInt8>) throws(HCIDecodingError) -> LESetScanParametersCommand {
        var reader = ByteReader(parameters)
        let type = LEScanType(rawValue: try reader.u8("LE_Scan_Type"))
        let interval = try reader.u16("LE_Scan_Interval")
        let window = try reader.u16("LE_Scan_Window")
        let own = try reader.u8("Own_Address_Type")
        let policy = try reader.u8("Scanning_Filter_Policy")
        try reader.expectEnd("HCI_LE_Set_Scan_Parameters")
        return LESetScanParametersCommand(scanType: type, scanIntervalUnits: interval, scanWindowUnits: window,
                                          ownAddressType: own, filterPolicy: policy)
    }
}
