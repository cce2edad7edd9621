/// HCI_LE_Set_Extended_Scan_Enable: starts or stops extended scanning, with optional duration and period.
///
/// Core Spec 5.4, Vol 4, Part E, §7.8.65. Opcode 0x2042 (OGF 0x08, OCF 0x042). Returns only a status.
public struct LESetExtendedScanEnableCommand: HCICommand {
    /// OGF 0x08 (LE Controller), OCF 0x042.
    public static let opcode = Opcode(ogf: Opcode.leControllerGroup, ocf: 0x042)

    /// Enable: true to scan, false to stop.
    public var enable: Bool
    /// Filter_Duplicates as sent: 0x00 off, 0x01 on, 0x02 on and reset each period.
    public var filterDuplicates: UInt8
    /// Duration, in units of 10 ms; 0 scans until disabled.
    public var durationUnits: UInt16
    /// Period, in units of 1.28 s; 0 scans continuously.
    public var periodUnits: UInt16

    /// Creates the command.
    public init(enable: Bool, filterDuplicates: UInt8 = 0x00, durationUnits: UInt16 = 0, periodUnits: UInt16 = 0) {
        self.enable = enable
        self.filterDuplicates = filterDuplicates
        self.durationUnits = durationUnits
        self.periodUnits = periodUnits
    }

    /// Writes Enable, Filter_Duplicates, Duration and Period.
    public func encodeParameters(into writer: inout ByteWriter) {
        writer.u8(enable ? 1 : 0)
        writer.u8(filterDuplicates)
        writer.u16(durationUnits)
        writer.u16(periodUnits)
    }

    /// Reads the four parameters.
    public static func decode(parameters: ArraySlice<UInt8>) throws(HCIDecodingError) -> LESetExtendedScanEnableCommand {
        var reader = ByteReader(parameters)
        let enable = try reader.flag("Enable")
        let filter = try reader.u8("Filter_Duplicates")
        let duration = try reader.u16("Duration")
        let period = try reader.u16("Period")
        try reader.expectEnd("HCI_LE_Set_Extended_Scan_Enable")
        return LESetExtendedScanEnableCommand(enable: enable, filterDuplicates: filter,
                                              durationUnits: duration, periodUnits: period)
    }
}
