/// What HCI_Read_Local_Version_Information returns: HCI and LMP versions, revisions and the manufacturer.
///
/// Core Spec 5.4, Vol 4, Part E, §7.4.1 (return parameters after Status). Version numbers are the Assigned
/// Numbers' codes (0x0D = Core 5.4); the manufacturer is a Bluetooth SIG company identifier.
public struct LocalVersionInformation: HCIReturnParameters {
    /// Answers HCI_Read_Local_Version_Information.
    public static let commandOpcode = ReadLocalVersionInformationCommand.opcode

    /// HCI_Version.
    public var hciVersion: UInt8
    /// HCI_Subversion (HCI_Revision in older editions).
    public var hciRevision: UInt16
    /// LMP_Version (LL version for LE-only controllers).
    public var lmpVersion: UInt8
    /// Company_Identifier of the controller's manufacturer.
    public var manufacturer: UInt16
    /// LMP_Subversion.
    public var lmpSubversion: UInt16

    /// Creates the value.
    public init(hciVersion: UInt8, hciRevision: UInt16, lmpVersion: UInt8, manufacturer: UInt16, lmpSubversion: UInt16) {
        self.hciVersion = hciVersion
        self.hciRevision = hciRevision
        self.lmpVersion = lmpVersion
        self.manufacturer = manufacturer
        self.lmpSubversion = lmpSubversion
    }

    /// Writes the five fields in wire order.
    public func encode(into writer: inout ByteWriter) {
        writer.u8(hciVersion)
        writer.u16(hciRevision)
        writer.u8(lmpVersion)
        writer.u16(manufacturer)
        writer.u16(lmpSubversion)
    }

    /// Reads the five fields.
    public static func decode(afterStatus bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> LocalVersionInformation {
        var reader = ByteReader(bytes)
        let hciVersion = try reader.u8("HCI_Version")
        let hciRevision = try reader.u16("HCI_Subversion")
        let lmpVersion = try reader.u8("LMP_Version")
        let manufacturer = try reader.u16("Company_Identifier")
        let lmpSubversion = try reader.u16("LMP_Subversion")
        try reader.expectEnd("Read_Local_Version_Information return parameters")
        return LocalVersionInformation(hciVersion: hciVersion, hciRevision: hciRevision, lmpVersion: lmpVersion,
                                       manufacturer: manufacturer, lmpSubversion: lmpSubversion)
    }
}
