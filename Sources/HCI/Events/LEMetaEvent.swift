/// HCI_LE_Meta_Event: the envelope of every LE controller event, told apart by its subevent code.
///
/// Core Spec 5.4, Vol 4, Part E, §7.7.65. Event code 0x3E; the first parameter is Subevent_Code. Subevents not
/// declared here are kept whole as `.unknown`, not treated as errors.
public enum LEMetaEvent: Sendable, Hashable {
    /// LE Advertising Report (subevent 0x02, §7.7.65.2).
    case advertisingReport(LEAdvertisingReportEvent)
    /// LE Extended Advertising Report (subevent 0x0D, §7.7.65.13).
    case extendedAdvertisingReport(LEExtendedAdvertisingReportEvent)
    /// Any other subevent, with the parameters after the subevent code.
    case unknown(subevent: UInt8, parameters: [UInt8])

    /// The event code, 0x3E.
    public static let code: UInt8 = 0x3E

    /// The subevent code.
    public var subevent: UInt8 {
        switch self {
        case .advertisingReport: LEAdvertisingReportEvent.subevent
        case .extendedAdvertisingReport: LEExtendedAdvertisingReportEvent.subevent
        case let .unknown(subevent, _): subevent
        }
    }

    /// Writes Subevent_Code and the subevent's parameters.
    public func encodeParameters(into writer: inout ByteWriter) {
        writer.u8(subevent)
        switch self {
        case let .advertisingReport(event): event.encodeParameters(into: &writer)
        case let .extendedAdvertisingReport(event): event.encodeParameters(into: &writer)
        case let .unknown(_, parameters): writer.append(parameters)
        }
    }

    /// Reads Subevent_Code, then the subevent's parameters; unknown subevents are kept raw.
    public static func decode(parameters: ArraySlice<UInt8>) throws(HCIDecodingError) -> LEMetaEvent {
        var reader = ByteReader(parameters)
        let subevent = try reader.u8("Subevent_Code")
        let rest = reader.rest()
        switch subevent {
        case LEAdvertisingReportEvent.subevent: return .advertisingReport(try .decode(parameters: rest))
        case LEExtendedAdvertisingReportEvent.subevent: return .extendedAdvertisingReport(try .decode(parameters: rest))
        default: return .unknown(subevent: subevent, parameters: Array(rest))
        }
    }
}
