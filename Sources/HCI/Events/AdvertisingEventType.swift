/// The event type of an advertising report, from either kind of report event.
///
/// A legacy LE Advertising Report (Core Spec 5.4, Vol 4, Part E, §7.7.65.2) names the PDU type; an LE Extended
/// Advertising Report (§7.7.65.13) carries property bits. Both are kept exactly as received.
public enum AdvertisingEventType: Sendable, Hashable, CustomStringConvertible {
    /// From an LE Advertising Report.
    case legacy(LegacyAdvertisingEventType)
    /// From an LE Extended Advertising Report.
    case extended(AdvertisingEventProperties)

    /// True for legacy reports and for extended reports of legacy PDUs.
    @inlinable public var isLegacy: Bool {
        switch self {
        case .legacy: true
        case let .extended(properties): properties.isLegacy
        }
    }

    /// True for a scan response (SCAN_RSP, or the scan response bit).
    @inlinable public var isScanResponse: Bool {
        switch self {
        case let .legacy(type): type == .scanRsp
        case let .extended(properties): properties.isScanResponse
        }
    }

    /// True for connectable advertising (ADV_IND, ADV_DIRECT_IND, or the connectable bit).
    public var isConnectable: Bool {
        switch self {
        case let .legacy(type): type == .advInd || type == .advDirectInd
        case let .extended(properties): properties.isConnectable
        }
    }

    /// True for directed advertising (ADV_DIRECT_IND, or the directed bit).
    public var isDirected: Bool {
        switch self {
        case let .legacy(type): type == .advDirectInd
        case let .extended(properties): properties.isDirected
        }
    }

    /// The data status: always complete for legacy reports.
    @inlinable public var dataStatus: AdvertisingDataStatus {
        switch self {
        case .legacy: .complete
        case let .extended(properties): properties.dataStatus
        }
    }

    /// The byte a legacy report would carry: the PDU type, or for extended properties the legacy type they stand
    /// for; 0xFF (not a defined type) when they stand for none.
    public var legacyRawValue: UInt8 {
        switch self {
        case let .legacy(type): type.rawValue
        case let .extended(properties): properties.legacyEventType?.rawValue ?? 0xFF
        }
    }

    /// The 16 bits an extended report would carry: the properties, or for a legacy type its equivalent (legacy bit
    /// set); an unknown legacy type becomes the bare legacy bit.
    public var extendedRawValue: UInt16 {
        switch self {
        case let .legacy(type): type.extendedProperties?.rawValue ?? AdvertisingEventProperties(legacy: true).rawValue
        case let .extended(properties): properties.rawValue
        }
    }

    /// `ADV_IND`... for legacy, `ext(0x0013)` for extended.
    public var description: String {
        switch self {
        case let .legacy(type): type.description
        case let .extended(properties): "ext(0x" + Opcode.hex(UInt64(properties.rawValue), width: 4) + ")"
        }
    }
}
