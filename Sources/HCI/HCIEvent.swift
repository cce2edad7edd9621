/// An HCI event from the controller, decoded from an event packet.
///
/// Core Spec 5.4, Vol 4, Part E, §5.4.4 (HCI Event packet: event code, parameter total length, parameters) and
/// §7.7 (events). Events not declared here are kept whole as `.unknown`; a declared event whose parameters are
/// malformed throws an `HCIDecodingError` naming the field.
public enum HCIEvent: Sendable, Hashable {
    /// Command Complete (§7.7.14).
    case commandComplete(CommandCompleteEvent)
    /// Command Status (§7.7.15).
    case commandStatus(CommandStatusEvent)
    /// Hardware Error (§7.7.16).
    case hardwareError(HardwareErrorEvent)
    /// LE Meta (§7.7.65) and its subevents.
    case leMeta(LEMetaEvent)
    /// Any other event, with its parameters.
    case unknown(code: UInt8, parameters: [UInt8])

    /// The event code.
    public var code: UInt8 {
        switch self {
        case .commandComplete: CommandCompleteEvent.code
        case .commandStatus: CommandStatusEvent.code
        case .hardwareError: HardwareErrorEvent.code
        case .leMeta: LEMetaEvent.code
        case let .unknown(code, _): code
        }
    }

    /// Decodes an event packet; the parameter total length must match the bytes present.
    public static func decode(_ packet: HCIPacket) throws(HCIDecodingError) -> HCIEvent {
        guard packet.type == .event else {
            throw .invalid(field: "HCI packet type", offset: 0, reason: "expected an event, found \(packet.type)")
        }
        var reader = ByteReader(packet.bytes)
        let code = try reader.u8("Event_Code")
        let length = try reader.u8("Parameter_Total_Length")
        let parameters = try reader.bytes(Int(length), "Event parameters")
        try reader.expectEnd("HCI event packet")
        switch code {
        case CommandCompleteEvent.code: return .commandComplete(try .decode(parameters: parameters))
        case CommandStatusEvent.code: return .commandStatus(try .decode(parameters: parameters))
        case HardwareErrorEvent.code: return .hardwareError(try .decode(parameters: parameters))
        case LEMetaEvent.code: return .leMeta(try .decode(parameters: parameters))
        default: return .unknown(code: code, parameters: Array(parameters))
        }
    }

    /// Writes the event's parameters (without the header).
    public func encodeParameters(into writer: inout ByteWriter) {
        switch self {
        case let .commandComplete(event): event.encodeParameters(into: &writer)
        case let .commandStatus(event): event.encodeParameters(into: &writer)
        case let .hardwareError(event): event.encodeParameters(into: &writer)
        case let .leMeta(event): event.encodeParameters(into: &writer)
        case let .unknown(_, parameters): writer.append(parameters)
        }
    }

    /// The whole event packet. Parameters longer than 255 bytes cannot be sent and are cut to 255.
    public var packet: HCIPacket {
        var body = ByteWriter(capacity: 64)
        encodeParameters(into: &body)
        let parameters = body.bytes.prefix(255)
        var writer = ByteWriter(capacity: 2 + parameters.count)
        writer.u8(code)
        writer.u8(UInt8(parameters.count))
        writer.append(parameters)
        return HCIPacket(type: .event, bytes: writer.bytes)
    }
}
