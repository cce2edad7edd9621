/// HCI_LE_Set_Extended_Advertising_Enable: starts or stops advertising sets.
///
/// Core Spec 5.4, Vol 4, Part E, §7.8.56. Opcode 0x2039 (OGF 0x08, OCF 0x039). Returns only a status. Disabling
/// with no set listed disables every set.
public struct LESetExtendedAdvertisingEnableCommand: HCICommand {
    /// OGF 0x08 (LE Controller), OCF 0x039.
    public static let opcode = Opcode(ogf: Opcode.leControllerGroup, ocf: 0x039)

    /// One set to start or stop.
    public struct Set: Sendable, Hashable {
        /// Advertising_Handle.
        public var handle: UInt8
        /// Duration, in units of 10 ms; 0 advertises until disabled.
        public var durationUnits: UInt16
        /// Max_Extended_Advertising_Events; 0 for no limit.
        public var maximumEvents: UInt8

        /// Creates the entry; the defaults advertise until disabled.
        public init(handle: UInt8, durationUnits: UInt16 = 0, maximumEvents: UInt8 = 0) {
            self.handle = handle
            self.durationUnits = durationUnits
            self.maximumEvents = maximumEvents
        }
    }

    /// Enable: true to advertise, false to stop.
    public var enable: Bool
    /// The sets.
    public var sets: [Set]

    /// Creates the command.
    public init(enable: Bool, sets: [Set]) {
        self.enable = enable
        self.sets = sets
    }

    /// Writes Enable, Num_Sets and each set's three parameters.
    public func encodeParameters(into writer: inout ByteWriter) {
        writer.u8(enable ? 1 : 0)
        writer.u8(UInt8(truncatingIfNeeded: sets.count))
        for set in sets {
            writer.u8(set.handle)
            writer.u16(set.durationUnits)
            writer.u8(set.maximumEvents)
        }
    }

    /// Reads Enable, Num_Sets and the sets.
    public static func decode(
        parameters: ArraySlice<UInt8>
    ) throws(HCIDecodingError) -> LESetExtendedAdvertisingEnableCommand {
        var reader = ByteReader(parameters)
        let enable = try reader.flag("Enable")
        let count = Int(try reader.u8("Num_Sets"))
        var sets: [Set] = []
        for _ in 0..<count {
            let handle = try reader.u8("Advertising_Handle")
            let duration = try reader.u16("Duration")
            let events = try reader.u8("Max_Extended_Advertising_Events")
            sets.append(Set(handle: handle, durationUnits: duration, maximumEvents: events))
        }
        try reader.expectEnd("HCI_LE_Set_Extended_Advertising_Enable")
        return LESetExtendedAdvertisingEnableCommand(enable: enable, sets: sets)
    }
}
