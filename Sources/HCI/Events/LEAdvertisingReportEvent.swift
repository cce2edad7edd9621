/// HCI_LE_Advertising_Report: one or more legacy advertising reports in one event.
///
/// Core Spec 5.4, Vol 4, Part E, §7.7.65.2. LE Meta subevent 0x02. Parameters after the subevent code:
/// Num_Reports, then each report whole (Event_Type, Address_Type, Address, Data_Length, Data, RSSI), the order
/// controllers send and BlueZ, Wireshark and Bumble read (see `AdvertisingReport.decodeLegacy`).
public struct LEAdvertisingReportEvent: Sendable, Hashable {
    /// The subevent code, 0x02.
    public static let subevent: UInt8 = 0x02

    /// The reports, in the order received. Entries should have legacy event types; an extended-only type is
    /// written as 0xFF (see `AdvertisingEventType.legacyRawValue`).
    public var reports: [AdvertisingReport]

    /// Creates the event.
    public init(reports: [AdvertisingReport]) {
        self.reports = reports
    }

    /// Writes Num_Reports and each report.
    public func encodeParameters(into writer: inout ByteWriter) {
        writer.u8(UInt8(truncatingIfNeeded: reports.count))
        for report in reports { report.encodeLegacy(into: &writer) }
    }

    /// Reads every report; any malformed entry or trailing byte throws. For the lenient path that keeps the
    /// entries before a bad one, use `AdvertisingReportBatch`.
    public static func decode(parameters: ArraySlice<UInt8>) throws(HCIDecodingError) -> LEAdvertisingReportEvent {
        let batch = AdvertisingReportBatch.decode(afterSubevent: parameters, extended: false)
        if let error = batch.error { throw error }
        return LEAdvertisingReportEvent(reports: batch.reports)
    }
}
