/// HCI_LE_Set_Scan_Enable: starts or stops legacy scanning, with or without duplicate filtering.
///
/// Core Spec 5.4, Vol 4, Part E, §7.8.11. Opcode 0x200C (OGF 0x08, OCF 0x00C). Returns only a status.
public struct LESetScanEnableCommand: HCICommand {
    /// OGF 0x08 (LE Controller), OCF 0x00C.
    public static let opcode = Opcode(ogf: Opcode.leControllerGroup, ocf: 0x00C)

    /// LE_Scan_Enable: 0x01 to scan, 0x00 to stop.
    public var enable: Bool
    /// Filter_Duplicates: when true the controller reports each advertiser once (useless for ranging).
    public var filterDuplicates: Bool

    /// Creates the command.
    public init(enable: Bool, filterDuplicates: Bool = false) {
        self.enable = enable
        self.filterDuplicates = filterDuplicates
    }

    /// Writes LE_Scan_Enable and Filter_Duplicates.
    public func encodeParameters(into writer: inout ByteWriter) {
        writer.u8(enable ? 1 : 0)
        writer.u8(filterDuplicates ? 1 : 0)
    }

    /// Reads both flags; values other than 0x00 and 0x01 are invalid.
    public static func decode(parameters: ArraySlice<UInt8>) throws(HCIDecodingError) -> LESetScanEnableCommand {
        var reader = ByteReader(parameters)
        let enable = try reader.flag("LE_Scan_Enable")
        let filter = try reader.flag("Filter_Duplicates")
        try reader.expectEnd("HCI_LE_Set_Scan_Enable")
        return LESetScanEnableCommand(enable: enable, filterDuplicates: filter)
    }
}
