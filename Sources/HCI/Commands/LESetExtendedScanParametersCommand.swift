/// HCI_LE_Set_Extended_Scan_Parameters: scan parameters per primary PHY (LE 1M and/or LE Coded).
///
/// Core Spec 5.4, Vol 4, Part E, §7.8.64. Opcode 0x2041 (OGF 0x08, OCF 0x041). Returns only a status.
/// After Own_Address_Type, Scanning_Filter_Policy and the Scanning_PHYs bit set (bit 0 LE 1M, bit 2 LE Coded)
/// come Scan_Type, Scan_Interval and Scan_Window for each set bit, lowest bit first, one PHY after the other
/// (as BlueZ and Bumble send them).
public struct LESetExtendedScanParametersCommand: HCICommand {
    /// OGF 0x08 (LE Controller), OCF 0x041.
    public static let opcode = Opcode(ogf: Opcode.leControllerGroup, ocf: 0x041)

    /// The scan parameters for one PHY.
    public struct PHYParameters: Sendable, Hashable {
        /// Scan_Type: passive or active.
        public var scanType: LEScanType
        /// Scan_Interval, in units of 0.625 ms.
        public var scanIntervalUnits: UInt16
        /// Scan_Window, in units of 0.625 ms.
        public var scanWindowUnits: UInt16

        /// Creates one PHY's parameters.
        public init(scanType: LEScanType, scanIntervalUnits: UInt16, scanWindowUnits: UInt16) {
            self.scanType = scanType
            self.scanIntervalUnits = scanIntervalUnits
            self.scanWindowUnits = scanWindowUnits
        }
    }

    /// Own_Address_Type: 0x00 public, 0x01 random, 0x02/0x03 resolvable private address with fallback.
    public var ownAddressType: UInt8
    /// Scanning_Filter_Policy.
    public var filterPolicy: UInt8
    /// Parameters for scanning on LE 1M (Scanning_PHYs bit 0); nil to not scan on it.
    public var le1M: PHYParameters?
    /// Parameters for scanning on LE Coded (Scanning_PHYs bit 2); nil to not scan on it.
    public var leCoded: PHYParameters?

    static let le1MBit: UInt8 = 1 << 0
    static let leCodedBit: UInt8 = 1 << 2

    /// Creates the command.
    public init(ownAddressType: UInt8 = 0x00, filterPolicy: UInt8 = 0x00,
                le1M: PHYParameters?, leCoded: PHYParameters? = nil) {
        self.ownAddressType = ownAddressType
        self.filterPolicy = filterPolicy
        self.le1M = le1M
        self.leCoded = leCoded
    }

    /// Writes the header parameters, then each present PHY's set.
    public func encodeParameters(into writer: inout ByteWriter) {
        writer.u8(ownAddressType)
        writer.u8(filterPolicy)
        writer.u8((le1M == nil ? 0 : Self.le1MBit) | (leCoded == nil ? 0 : Self.leCodedBit))
        for set in [le1M, leCoded].compactMap({ $0 }) {
            writer.u8(set.scanType.rawValue)
            writer.u16(set.scanIntervalUnits)
            writer.u16(set.scanWindowUnits)
        }
    }

    /// Reads the parameters; Scanning_PHYs bits other than 0 and 2 are invalid.
    public static func decode(parameters: ArraySlice<UInt8>) throws(HCIDecodingError) -> LESetExtendedScanParametersCommand {
        var reader = ByteReader(parameters)
        let own = try reader.u8("Own_Address_Type")
        let policy = try reader.u8("Scanning_Filter_Policy")
        let physAt = reader.offset
        let phys = try reader.u8("Scanning_PHYs")
        guard phys & ~(le1MBit | leCodedBit) == 0 else {
            throw .invalid(field: "Scanning_PHYs", offset: physAt, reason: "reserved bits set in 0x\(String(phys, radix: 16))")
        }
        let le1M = phys & le1MBit != 0 ? try readSet(&reader) : nil
        let leCoded = phys & leCodedBit != 0 ? try readSet(&reader) : nil
        try reader.expectEnd("HCI_LE_Set_Extended_Scan_Parameters")
        return LESetExtendedScanParametersCommand(ownAddressType: own, filterPolicy: policy, le1M: le1M, leCoded: leCoded)
    }

    static func readSet(_ reader: inout ByteReader) throws(HCIDecodingError) -> PHYParameters {
        let type = LEScanType(rawValue: try reader.u8("Scan_Type"))
        let interval = try reader.u16("Scan_Interval")
        let window = try reader.u16("Scan_Window")
        return PHYParameters(scanType: type, scanIntervalUnits: interval, scanWindowUnits: window)
    }
}
