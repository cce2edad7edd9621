/// HCI_LE_Set_Advertising_Parameters: legacy advertising's interval, PDU type, own address and channels.
///
/// Core Spec 5.4, Vol 4, Part E, §7.8.5. Opcode 0x2006 (OGF 0x08, OCF 0x006). Returns only a status. Intervals
/// count units of 0.625 ms (0x0020...0x4000, 20 ms to 10.24 s).
public struct LESetAdvertisingParametersCommand: HCICommand {
    /// OGF 0x08 (LE Controller), OCF 0x006.
    public static let opcode = Opcode(ogf: Opcode.leControllerGroup, ocf: 0x006)

    /// Advertising_Type values (§7.8.5).
    public enum AdvertisingType: UInt8, Sendable, Hashable {
        /// ADV_IND: connectable and scannable.
        case connectableUndirected = 0x00
        /// ADV_DIRECT_IND, high duty cycle.
        case connectableDirectedHighDuty = 0x01
        /// ADV_SCAN_IND: scannable, not connectable.
        case scannableUndirected = 0x02
        /// ADV_NONCONN_IND: neither: a beacon.
        case nonConnectableUndirected = 0x03
        /// ADV_DIRECT_IND, low duty cycle.
        case connectableDirectedLowDuty = 0x04
    }

    /// Advertising_Interval_Min, in units of 0.625 ms.
    public var intervalMinUnits: UInt16
    /// Advertising_Interval_Max, in units of 0.625 ms.
    public var intervalMaxUnits: UInt16
    /// Advertising_Type, as sent (values outside `AdvertisingType` survive a round trip).
    public var advertisingType: UInt8
    /// Own_Address_Type: 0x00 public, 0x01 random, 0x02/0x03 resolvable private with fallback.
    public var ownAddressType: UInt8
    /// Peer_Address_Type (directed advertising only).
    public var peerAddressType: UInt8
    /// Peer_Address (directed advertising only).
    public var peerAddress: BDAddress
    /// Advertising_Channel_Map: bit 0 channel 37, bit 1 channel 38, bit 2 channel 39.
    public var channelMap: UInt8
    /// Advertising_Filter_Policy: 0x00 answers every scanner and initiator.
    public var filterPolicy: UInt8

    /// Creates the command; the defaults advertise undirected from the public address on all three channels.
    public init(intervalMinUnits: UInt16, intervalMaxUnits: UInt16, advertisingType: AdvertisingType,
                ownAddressType: UInt8 = 0x00, peerAddressType: UInt8 = 0x00, peerAddress: BDAddress = .zero,
                channelMap: UInt8 = 0x07, filterPolicy: UInt8 = 0x00) {
        self.init(intervalMinUnits: intervalMinUnits, intervalMaxUnits: intervalMaxUnits,
                  rawAdvertisingType: advertisingType.rawValue, ownAddressType: ownAddressType,
                  peerAddressType: peerAddressType, peerAddress: peerAddress, channelMap: channelMap,
                  filterPolicy: filterPolicy)
    }

    init(intervalMinUnits: UInt16, intervalMaxUnits: UInt16, rawAdvertisingType: UInt8, ownAddressType: UInt8,
         peerAddressType: UInt8, peerAddress: BDAddress, channelMap: UInt8, filterPolicy: UInt8) {
        self.intervalMinUnits = intervalMinUnits
        self.intervalMaxUnits = intervalMaxUnits
        advertisingType = rawAdvertisingType
        self.ownAddressType = ownAddressType
        self.peerAddressType = peerAddressType
        self.peerAddress = peerAddress
        self.channelMap = channelMap
        self.filterPolicy = filterPolicy
    }

    /// Writes the eight parameters (15 octets) in order.
    public func encodeParameters(into writer: inout ByteWriter) {
        writer.u16(intervalMinUnits)
        writer.u16(intervalMaxUnits)
        writer.u8(advertisingType)
        writer.u8(ownAddressType)
        writer.u8(peerAddressType)
        peerAddress.encode(into: &writer)
        writer.u8(channelMap)
        writer.u8(filterPolicy)
    }

    /// Reads the eight parameters.
    public static func decode(parameters: ArraySlice<UInt8>) throws(HCIDecodingError) -> LESetAdvertisingParametersCommand {
        var reader = ByteReader(parameters)
        let minimum = try reader.u16("Advertising_Interval_Min")
        let maximum = try reader.u16("Advertising_Interval_Max")
        let type = try reader.u8("Advertising_Type")
        let own = try reader.u8("Own_Address_Type")
        let peerType = try reader.u8("Peer_Address_Type")
        let peer = try BDAddress.decode(from: &reader, "Peer_Address")
        let channels = try reader.u8("Advertising_Channel_Map")
        let policy = try reader.u8("Advertising_Filter_Policy")
        try reader.expectEnd("HCI_LE_Set_Advertising_Parameters")
        return LESetAdvertisingParametersCommand(
            intervalMinUnits: minimum, intervalMaxUnits: maximum, rawAdvertisingType: type, ownAddressType: own,
            peerAddressType: peerType, peerAddress: peer, channelMap: channels, filterPolicy: policy)
    }
}
