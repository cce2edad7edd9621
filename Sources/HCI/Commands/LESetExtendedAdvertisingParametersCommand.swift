/// HCI_LE_Set_Extended_Advertising_Parameters (version 1): one advertising set's PDU properties, interval, own
/// address, power and PHYs.
///
/// Core Spec 5.4, Vol 4, Part E, §7.8.53. Opcode 0x2036 (OGF 0x08, OCF 0x036). Returns a status and the
/// Selected_TX_Power. Primary intervals count units of 0.625 ms in three octets (0x000020 and up).
public struct LESetExtendedAdvertisingParametersCommand: HCICommand {
    /// OGF 0x08 (LE Controller), OCF 0x036.
    public static let opcode = Opcode(ogf: Opcode.leControllerGroup, ocf: 0x036)

    /// Advertising_Event_Properties bits (§7.8.53).
    public struct Properties: OptionSet, Sendable, Hashable {
        public let rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }
        /// Connectable advertising.
        public static let connectable = Properties(rawValue: 1 << 0)
        /// Scannable advertising.
        public static let scannable = Properties(rawValue: 1 << 1)
        /// Directed advertising.
        public static let directed = Properties(rawValue: 1 << 2)
        /// High duty cycle directed connectable advertising.
        public static let highDutyCycle = Properties(rawValue: 1 << 3)
        /// Legacy advertising PDUs, which every scanner (4.x ones too) hears.
        public static let legacy = Properties(rawValue: 1 << 4)
        /// Omit the advertiser's address from all PDUs (anonymous).
        public static let anonymous = Properties(rawValue: 1 << 5)
        /// Include TxPower in the extended header.
        public static let includeTxPower = Properties(rawValue: 1 << 6)
    }

    /// Advertising_TX_Power meaning "the host has no preference".
    public static let noTxPowerPreference: Int8 = 0x7F

    /// Advertising_Handle: the set (0x00...0xEF).
    public var handle: UInt8
    /// Advertising_Event_Properties.
    public var properties: Properties
    /// Primary_Advertising_Interval_Min, in units of 0.625 ms (24 bits).
    public var intervalMinUnits: UInt32
    /// Primary_Advertising_Interval_Max, in units of 0.625 ms (24 bits).
    public var intervalMaxUnits: UInt32
    /// Primary_Advertising_Channel_Map: bit 0 channel 37, bit 1 channel 38, bit 2 channel 39.
    public var channelMap: UInt8
    /// Own_Address_Type: 0x00 public, 0x01 random, 0x02/0x03 resolvable private with fallback.
    public var ownAddressType: UInt8
    /// Peer_Address_Type (directed advertising only).
    public var peerAddressType: UInt8
    /// Peer_Address (directed advertising only).
    public var peerAddress: BDAddress
    /// Advertising_Filter_Policy.
    public var filterPolicy: UInt8
    /// Advertising_TX_Power, dBm, or `noTxPowerPreference`.
    public var txPower: Int8
    /// Primary_Advertising_PHY: 0x01 LE 1M, 0x03 LE Coded.
    public var primaryPHY: UInt8
    /// Secondary_Advertising_Max_Skip.
    public var secondaryMaxSkip: UInt8
    /// Secondary_Advertising_PHY: 0x01 LE 1M, 0x02 LE 2M, 0x03 LE Coded.
    public var secondaryPHY: UInt8
    /// Advertising_SID (0x00...0x0F).
    public var sid: UInt8
    /// Scan_Request_Notification_Enable.
    public var scanRequestNotifications: Bool

    /// Creates the command; the defaults advertise undirected from the public address on the LE 1M PHY, on all
    /// three channels, with no power preference.
    public init(handle: UInt8 = 0, properties: Properties, intervalMinUnits: UInt32, intervalMaxUnits: UInt32,
                channelMap: UInt8 = 0x07, ownAddressType: UInt8 = 0x00, peerAddressType: UInt8 = 0x00,
                peerAddress: BDAddress = .zero, filterPolicy: UInt8 = 0x00, txPower: Int8 = noTxPowerPreference,
                primaryPHY: UInt8 = 0x01, secondaryMaxSkip: UInt8 = 0, secondaryPHY: UInt8 = 0x01, sid: UInt8 = 0,
                scanRequestNotifications: Bool = false) {
        self.handle = handle
        self.properties = properties
        self.intervalMinUnits = intervalMinUnits
        self.intervalMaxUnits = intervalMaxUnits
        self.channelMap = channelMap
        self.ownAddressType = ownAddressType
        self.peerAddressType = peerAddressType
        self.peerAddress = peerAddress
        self.filterPolicy = filterPolicy
        self.txPower = txPower
        self.primaryPHY = primaryPHY
        self.secondaryMaxSkip = secondaryMaxSkip
        self.secondaryPHY = secondaryPHY
        self.sid = sid
        self.scanRequestNotifications = scanRequestNotifications
    }

    /// Writes the fifteen parameters (25 octets) in order.
    public func encodeParameters(into writer: inout ByteWriter) {
        writer.u8(handle)
        writer.u16(properties.rawValue)
        writer.u24(intervalMinUnits)
        writer.u24(intervalMaxUnits)
        writer.u8(channelMap)
        writer.u8(ownAddressType)
        writer.u8(peerAddressType)
        peerAddress.encode(into: &writer)
        writer.u8(filterPolicy)
        writer.i8(txPower)
        writer.u8(primaryPHY)
        writer.u8(secondaryMaxSkip)
        writer.u8(secondaryPHY)
        writer.u8(sid)
        writer.u8(scanRequestNotifications ? 1 : 0)
    }

    /// Reads the fifteen parameters.
    public static func decode(
        parameters: ArraySlice<UInt8>
    ) throws(HCIDecodingError) -> LESetExtendedAdvertisingParametersCommand {
        var reader = ByteReader(parameters)
        let handle = try reader.u8("Advertising_Handle")
        let properties = Properties(rawValue: try reader.u16("Advertising_Event_Properties"))
        let minimum = try reader.u24("Primary_Advertising_Interval_Min")
        let maximum = try reader.u24("Primary_Advertising_Interval_Max")
        let channels = try reader.u8("Primary_Advertising_Channel_Map")
        let own = try reader.u8("Own_Address_Type")
        let peerType = try reader.u8("Peer_Address_Type")
        let peer = try BDAddress.decode(from: &reader, "Peer_Address")
        let policy = try reader.u8("Advertising_Filter_Policy")
        let power = try reader.i8("Advertising_TX_Power")
        let primary = try reader.u8("Primary_Advertising_PHY")
        let skip = try reader.u8("Secondary_Advertising_Max_Skip")
        let secondary = try reader.u8("Secondary_Advertising_PHY")
        let sid = try reader.u8("Advertising_SID")
        let notify = try reader.flag("Scan_Request_Notification_Enable")
        try reader.expectEnd("HCI_LE_Set_Extended_Advertising_Parameters")
        return LESetExtendedAdvertisingParametersCommand(
            handle: handle, properties: properties, intervalMinUnits: minimum, intervalMaxUnits: maximum,
            channelMap: channels, ownAddressType: own, peerAddressType: peerType, peerAddress: peer,
            filterPolicy: policy, txPower: power, primaryPHY: primary, secondaryMaxSkip: skip, secondaryPHY: secondary,
            sid: sid, scanRequestNotifications: notify)
    }
}
