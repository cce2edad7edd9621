/// HCI_LE_Extended_Advertising_Report: one or more extended (or legacy, via extended scanning) reports.
///
/// Core Spec 5.4, Vol 4, Part E, §7.7.65.13. LE Meta subevent 0x0D. Parameters after the subevent code:
/// Num_Reports, then each report whole (Event_Type (2), Address_Type, Address, Primary_PHY, Secondary_PHY,
/// Advertising_SID, TX_Power, RSSI, Periodic_Advertising_Interval (2), Direct_Address_Type, Direct_Address,
/// Data_Length, Data).
public struct LEExtendedAdvertisingReportEvent: Sendable, Hashable {
    /// The subevent code, 0x0D.
    public static let subevent: UInt8 = 0x0D

    /// The reports, in the order received. A legacy-typed entry is written with its equivalent properties.
    public var reports: [AdvertisingReport]

    /// Creates the event.
    public init(reports: [AdvertisingReport]) {
        self.reports = reports
    }

    /// Writes Num_Reports and each report.
    public func encodeParameters(into writer: inout ByteWriter) {
        writer.u8(UInt8(truncatingIfNeeded: reports.count))
        for report in reports { report.encodeExtended(into: &writer) }
    }

    /// Reads every report; any malformed entry or trailing byte throws. For the lenient path that keeps the
    /// entries before a bad one, use `AdvertisingReportBatch`.
    public static func decode(parameters: ArraySlice<UInt8>) throws(HCIDecodingError) -> LEExtendedAdvertisingReportEvent {
        let batch = AdvertisingReportBatch.decode(afterSubevent: parameters, extended: true)
        if let error = batch.error { throw error }
        return LEExtendedAdvertisingReportEvent(reports: batch.reports)
    }
}
