/// One advertising report entry, from a legacy or an extended LE advertising report event.
///
/// Core Spec 5.4, Vol 4, Part E, §7.7.65.2 (LE Advertising Report) and §7.7.65.13 (LE Extended Advertising
/// Report). Sentinels become nil: RSSI and TX power 127 ("not available"), SID 0xFF, secondary PHY 0x00. `data`
/// is a slice of the event's bytes, so decoding copies no advertising data.
public struct AdvertisingReport: Sendable, Hashable {
    /// The PDU type (legacy) or property bits (extended), as received.
    public var eventType: AdvertisingEventType
    /// The advertiser's address type.
    public var addressType: BDAddressType
    /// The advertiser's address.
    public var address: BDAddress
    /// Received signal strength in dBm (-127...20), nil when the controller sent 127 (not available).
    public var rssiDBm: Int8?
    /// Advertised transmit power in dBm (-127...126), nil when 127 (not available) or in a legacy report.
    public var txPowerDBm: Int8?
    /// The PHY of the primary advertising channel (always LE 1M for legacy reports).
    public var primaryPHY: LEPHY
    /// The PHY of the secondary channel, nil when nothing was sent on it (0x00) and for legacy reports.
    public var secondaryPHY: LEPHY?
    /// Advertising_SID (0x00...0x0F), nil when none was sent (0xFF) and for legacy reports.
    public var sid: UInt8?
    /// Periodic advertising interval in units of 1.25 ms; 0 when there is none (always 0 for legacy reports).
    public var periodicAdvertisingIntervalUnits: UInt16
    /// The target address type of directed advertising (extended reports only; nil for legacy reports).
    public var directAddressType: BDAddressType?
    /// The target address of directed advertising (extended reports only; nil for legacy reports).
    public var directAddress: BDAddress?
    /// The advertising data (AD structures) or scan response data.
    public var data: ArraySlice<UInt8>

    /// Creates a report entry; defaults are those of a legacy report.
    public init(eventType: AdvertisingEventType, addressType: BDAddressType, address: BDAddress,
                rssiDBm: Int8?, txPowerDBm: Int8? = nil, primaryPHY: LEPHY = .le1M, secondaryPHY: LEPHY? = nil,
                sid: UInt8? = nil, periodicAdvertisingIntervalUnits: UInt16 = 0,
                directAddressType: BDAddressType? = nil, directAddress: BDAddress? = nil, data: ArraySlice<UInt8>) {
        self.eventType = eventType
        self.addressType = addressType
        self.address = address
        self.rssiDBm = rssiDBm
        self.txPowerDBm = txPowerDBm
        self.primaryPHY = primaryPHY
        self.secondaryPHY = secondaryPHY
        self.sid = sid
        self.periodicAdvertisingIntervalUnits = periodicAdvertisingIntervalUnits
        self.directAddressType = directAddressType
        self.directAddress = directAddress
        self.data = data
    }

    /// The "not available" value of RSSI and TX power fields.
    public static let notAvailable: Int8 = 127

    /// True for a scan response.
    @inlinable public var isScanResponse: Bool { eventType.isScanResponse }
    /// True when the advertisement used legacy PDUs.
    @inlinable public var isLegacy: Bool { eventType.isLegacy }
    /// Whether `data` is complete or a fragment (always complete for legacy reports).
    @inlinable public var dataStatus: AdvertisingDataStatus { eventType.dataStatus }

    /// Equal when every field is equal; the data compares by content, not by where it is stored.
    public static func == (lhs: AdvertisingReport, rhs: AdvertisingReport) -> Bool {
        lhs.eventType == rhs.eventType && lhs.addressType == rhs.addressType && lhs.address == rhs.address
            && lhs.rssiDBm == rhs.rssiDBm && lhs.txPowerDBm == rhs.txPowerDBm && lhs.primaryPHY == rhs.primaryPHY
            && lhs.secondaryPHY == rhs.secondaryPHY && lhs.sid == rhs.sid
            && lhs.periodicAdvertisingIntervalUnits == rhs.periodicAdvertisingIntervalUnits
            && lhs.directAddressType == rhs.directAddressType && lhs.directAddress == rhs.directAddress
            && lhs.data.elementsEqual(rhs.data)
    }

    /// Hashes every field, the data by content.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(eventType)
        hasher.combine(address)
        hasher.combine(addressType)
        hasher.combine(rssiDBm)
        for byte in data { hasher.combine(byte) }
    }

    /// Maps the wire's 127 to nil.
    @inlinable static func available(_ value: Int8) -> Int8? {
        value == notAvailable ? nil : value
    }
}
