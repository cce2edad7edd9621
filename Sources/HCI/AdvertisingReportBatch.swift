/// The report entries of one LE advertising report event, decoded leniently: the entries before a malformed one
/// are kept, and the error says which entry and field broke.
///
/// Core Spec 5.4, Vol 4, Part E, §7.7.65.2 and §7.7.65.13. This is the scanner's hot path: no existential or
/// protocol dispatch, and no copies of advertising data (each entry's `data` slices the packet's bytes).
public struct AdvertisingReportBatch: Sendable, Hashable {
    /// The entries decoded, in order.
    public var reports: [AdvertisingReport]
    /// Num_Reports as the event declared it (nil when the event was too short to say).
    public var declaredCount: Int?
    /// Why decoding stopped early or found trailing bytes; nil when the event was well formed.
    public var error: HCIDecodingError?

    /// Creates a batch.
    public init(reports: [AdvertisingReport], declaredCount: Int?, error: HCIDecodingError?) {
        self.reports = reports
        self.declaredCount = declaredCount
        self.error = error
    }

    /// Decodes the entries of an LE Meta packet carrying subevent 0x02 or 0x0D; nil for any other packet.
    public static func decode(_ packet: HCIPacket) -> AdvertisingReportBatch? {
        var reports: [AdvertisingReport] = []
        guard let outcome = forEachReport(in: packet, { reports.append($0) }) else { return nil }
        return AdvertisingReportBatch(reports: reports, declaredCount: outcome.declaredCount, error: outcome.error)
    }

    /// Decodes the parameters after the subevent code (Num_Reports, entries) in the legacy or extended layout.
    public static func decode(afterSubevent parameters: ArraySlice<UInt8>, extended: Bool) -> AdvertisingReportBatch {
        var reports: [AdvertisingReport] = []
        var reader = ByteReader(parameters)
        let outcome = visitReports(&reader, extended: extended) { reports.append($0) }
        return AdvertisingReportBatch(reports: reports, declaredCount: outcome.declaredCount, error: outcome.error)
    }

    /// Calls `body` with each entry of an LE Meta packet carrying subevent 0x02 or 0x0D, without collecting them;
    /// nil (and no calls) for any other packet. The fastest way through a recording or a live stream.
    @inlinable public static func forEachReport(
        in packet: HCIPacket, _ body: (AdvertisingReport) -> Void
    ) -> AdvertisingReportOutcome? {
        guard packet.type == .event else { return nil }
        var reader = ByteReader(packet.bytes)
        let extended: Bool
        do throws(HCIDecodingError) {
            guard try reader.u8("Event_Code") == LEMetaEvent.code else { return nil }
            let length = try reader.u8("Parameter_Total_Length")
            guard Int(length) == reader.remaining else {
                throw .invalid(field: "Parameter_Total_Length", offset: 1,
                               reason: "declares \(length) byte(s), \(reader.remaining) present")
            }
            switch try reader.u8("Subevent_Code") {
            case LEAdvertisingReportEvent.subevent: extended = false
            case LEExtendedAdvertisingReportEvent.subevent: extended = true
            default: return nil
            }
        } catch {
            return AdvertisingReportOutcome(count: 0, declaredCount: nil, error: error)
        }
        return visitReports(&reader, extended: extended, body)
    }

    /// Reads Num_Reports, then up to that many entries, calling `body` with each.
    @inlinable static func visitReports(
        _ reader: inout ByteReader, extended: Bool, _ body: (AdvertisingReport) -> Void
    ) -> AdvertisingReportOutcome {
        let declared: UInt8
        do throws(HCIDecodingError) {
            declared = try reader.u8("Num_Reports")
        } catch {
            return AdvertisingReportOutcome(count: 0, declaredCount: nil, error: error)
        }
        var count = 0
        while count < Int(declared) {
            do throws(HCIDecodingError) {
                let report = extended
                    ? try AdvertisingReport.decodeExtended(from: &reader)
                    : try AdvertisingReport.decodeLegacy(from: &reader)
                body(report)
                count += 1
            } catch {
                return AdvertisingReportOutcome(count: count, declaredCount: Int(declared), error: error.inReport(count))
            }
        }
        let trailing: HCIDecodingError? = reader.isAtEnd
            ? nil
            : .trailingBytes(type: extended ? "LE Extended Advertising Report" : "LE Advertising Report",
                             count: reader.remaining)
        return AdvertisingReportOutcome(count: count, declaredCount: Int(declared), error: trailing)
    }
}

/// What `AdvertisingReportBatch.forEachReport` did with one event: how many entries it delivered, and why it
/// stopped early if it did.
public struct AdvertisingReportOutcome: Sendable, Hashable {
    /// Entries delivered to the callback.
    public var count: Int
    /// Num_Reports as the event declared it (nil when the event was too short to say).
    public var declaredCount: Int?
    /// The first problem found, naming the entry and field; nil when the event was well formed.
    public var error: HCIDecodingError?

    /// Creates an outcome.
    @inlinable public init(count: Int, declaredCount: Int?, error: HCIDecodingError?) {
        self.count = count
        self.declaredCount = declaredCount
        self.error = error
    }
}

extension HCIDecodingError {
    /// The same error with the field prefixed by the entry's index, as `reports[2].Data`.
    @usableFromInline func inReport(_ index: Int) -> HCIDecodingError {
        switch self {
        case let .truncated(field, offset, needed, available):
            .truncated(field: "reports[\(index)].\(field)", offset: offset, needed: needed, available: available)
        case let .invalid(field, offset, reason):
            .invalid(field: "reports[\(index)].\(field)", offset: offset, reason: reason)
        case .trailingBytes:
            self
        }
    }
}
