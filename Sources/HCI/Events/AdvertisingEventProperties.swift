/// The 16-bit Event_Type of an LE Extended Advertising Report: property bits and the data status.
///
/// Core Spec 5.4, Vol 4, Part E, §7.7.65.13: bit 0 connectable, 1 scannable, 2 directed, 3 scan response,
/// 4 legacy PDU, bits 5-6 data status (0 complete, 1 incomplete with more to come, 2 incomplete and truncated).
public struct AdvertisingEventProperties: RawRepresentable, Sendable, Hashable {
    /// The 16 bits as sent on the wire (reserved bits kept).
    public let rawValue: UInt16

    /// Creates properties from their wire value.
    @inlinable public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Creates properties from flags and a data status.
    public init(connectable: Bool = false, scannable: Bool = false, directed: Bool = false,
                scanResponse: Bool = false, legacy: Bool = false, dataStatus: AdvertisingDataStatus = .complete) {
        var value: UInt16 = 0
        if connectable { value |= 1 << 0 }
        if scannable { value |= 1 << 1 }
        if directed { value |= 1 << 2 }
        if scanResponse { value |= 1 << 3 }
        if legacy { value |= 1 << 4 }
        value |= UInt16(dataStatus.rawValue & 0b11) << 5
        rawValue = value
    }

    /// Bit 0: connectable advertising.
    @inlinable public var isConnectable: Bool { rawValue & (1 << 0) != 0 }
    /// Bit 1: scannable advertising.
    @inlinable public var isScannable: Bool { rawValue & (1 << 1) != 0 }
    /// Bit 2: directed advertising.
    @inlinable public var isDirected: Bool { rawValue & (1 << 2) != 0 }
    /// Bit 3: a scan response.
    @inlinable public var isScanResponse: Bool { rawValue & (1 << 3) != 0 }
    /// Bit 4: sent with legacy advertising PDUs.
    @inlinable public var isLegacy: Bool { rawValue & (1 << 4) != 0 }

    /// Bits 5-6: whether the data is complete, or a fragment.
    @inlinable public var dataStatus: AdvertisingDataStatus {
        AdvertisingDataStatus(rawValue: UInt8(truncatingIfNeeded: rawValue >> 5) & 0b11)
    }

    /// The legacy PDU type these properties stand for (legacy bit set, per the table in §7.7.65.13), else nil.
    public var legacyEventType: LegacyAdvertisingEventType? {
        switch rawValue {
        case 0b001_0011: .advInd
        case 0b001_0101: .advDirectInd
        case 0b001_0010: .advScanInd
        case 0b001_0000: .advNonconnInd
        case 0b001_1011, 0b001_1010: .scanRsp
        default: nil
        }
    }
}
