/// One decoded AD structure of advertising or scan response data.
///
/// Core Spec Supplement v11, Part A, §1 defines the data types; the type octets are in Assigned Numbers §2.3.
/// Types this module does not decode, and known types whose data does not fit their definition (see
/// `init(decoding:)`), are kept raw in `.other` so that nothing is lost and the bytes re-encode unchanged.
public enum ADStructure: Sendable, Hashable {
    /// Flags (0x01), CSS v11, Part A, §1.3.
    case flags(ADFlags)
    /// Incomplete (0x02) or complete (0x03) list of 16-bit service UUIDs, CSS v11, Part A, §1.1.
    case serviceUUIDs16(complete: Bool, uuids: [UInt16])
    /// Incomplete (0x04) or complete (0x05) list of 32-bit service UUIDs, CSS v11, Part A, §1.1.
    case serviceUUIDs32(complete: Bool, uuids: [UInt32])
    /// Incomplete (0x06) or complete (0x07) list of 128-bit service UUIDs (little-endian on the wire), §1.1.
    case serviceUUIDs128(complete: Bool, uuids: [BluetoothUUID])
    /// Shortened (0x08) or complete (0x09) local name, UTF-8 decoded leniently, CSS v11, Part A, §1.2.
    case localName(complete: Bool, name: String)
    /// Tx Power Level (0x0A) in dBm, signed, CSS v11, Part A, §1.5.
    case txPowerLevel(dBm: Int8)
    /// Service Data for a 16-bit UUID (0x16), CSS v11, Part A, §1.11.
    case serviceData16(uuid: UInt16, data: [UInt8])
    /// Service Data for a 32-bit UUID (0x20), CSS v11, Part A, §1.11.
    case serviceData32(uuid: UInt32, data: [UInt8])
    /// Service Data for a 128-bit UUID (0x21, UUID little-endian on the wire), CSS v11, Part A, §1.11.
    case serviceData128(uuid: BluetoothUUID, data: [UInt8])
    /// Manufacturer Specific Data (0xFF): company identifier (little-endian) and the data after it, §1.4.
    case manufacturerData(companyID: UInt16, data: [UInt8])
    /// Any other type, or a known type whose data is malformed, kept as sent.
    case other(type: ADType, data: [UInt8])

    /// Decodes a raw element. A known type whose data cannot be decoded (an odd-length 16-bit UUID list, an
    /// empty manufacturer data, a Tx Power Level that is not one octet) throws; `ADStructureList` keeps such an
    /// element as `.other` and records the error.
    public init(decoding element: ADElement) throws(HCIDecodingError) {
        var r = ByteReader(element.data)
        let base = element.offset + 2
        func uuidList(_ width: Int, _ name: String) throws(HCIDecodingError) {
            guard element.data.count % width == 0 else {
                throw .invalid(
                    field: name, offset: base,
                    reason: "length \(element.data.count) is not a multiple of \(width)")
            }
        }
        switch element.type {
        case .flags:
            self = .flags(ADFlags(rawValue: element.data.first ?? 0))
        case .incompleteServiceUUIDs16, .completeServiceUUIDs16:
            try uuidList(2, "16-bit service UUID list")
            var uuids = [UInt16]()
            uuids.reserveCapacity(element.data.count / 2)
            while !r.isAtEnd { uuids.append(try r.u16("16-bit service UUID")) }
            self = .serviceUUIDs16(complete: element.type == .completeServiceUUIDs16, uuids: uuids)
        case .incompleteServiceUUIDs32, .completeServiceUUIDs32:
            try uuidList(4, "32-bit service UUID list")
            var uuids = [UInt32]()
            uuids.reserveCapacity(element.data.count / 4)
            while !r.isAtEnd { uuids.append(try r.u32("32-bit service UUID")) }
            self = .serviceUUIDs32(complete: element.type == .completeServiceUUIDs32, uuids: uuids)
        case .incompleteServiceUUIDs128, .completeServiceUUIDs128:
            try uuidList(16, "128-bit service UUID list")
            var uuids = [BluetoothUUID]()
            uuids.reserveCapacity(element.data.count / 16)
            while !r.isAtEnd {
                uuids.append(try BluetoothUUID(littleEndianBytes: try r.bytes(16, "128-bit service UUID")))
            }
            self = .serviceUUIDs128(complete: element.type == .completeServiceUUIDs128, uuids: uuids)
        case .shortenedLocalName, .completeLocalName:
            let name = String(decoding: element.data, as: UTF8.self)
            self = .localName(complete: element.type == .completeLocalName, name: name)
        case .txPowerLevel:
            guard element.data.count == 1 else {
                throw .invalid(field: "Tx Power Level", offset: base, reason: "length \(element.data.count), not 1")
            }
            self = .txPowerLevel(dBm: try r.i8("Tx Power Level"))
        case .serviceData16:
            let uuid = try r.u16("service data 16-bit UUID")
            self = .serviceData16(uuid: uuid, data: Array(r.rest()))
        case .serviceData32:
            let uuid = try r.u32("service data 32-bit UUID")
            self = .serviceData32(uuid: uuid, data: Array(r.rest()))
        case .serviceData128:
            let uuid = try BluetoothUUID(littleEndianBytes: try r.bytes(16, "service data 128-bit UUID"))
            self = .serviceData128(uuid: uuid, data: Array(r.rest()))
        case .manufacturerSpecificData:
            let company = try r.u16("manufacturer data company identifier")
            self = .manufacturerData(companyID: company, data: Array(r.rest()))
        default:
            self = .other(type: element.type, data: Array(element.data))
        }
    }

    /// The AD type octet this structure is sent with.
    public var type: ADType {
        switch self {
        case .flags: .flags
        case let .serviceUUIDs16(complete, _): complete ? .completeServiceUUIDs16 : .incompleteServiceUUIDs16
        case let .serviceUUIDs32(complete, _): complete ? .completeServiceUUIDs32 : .incompleteServiceUUIDs32
        case let .serviceUUIDs128(complete, _): complete ? .completeServiceUUIDs128 : .incompleteServiceUUIDs128
        case let .localName(complete, _): complete ? .completeLocalName : .shortenedLocalName
        case .txPowerLevel: .txPowerLevel
        case .serviceData16: .serviceData16
        case .serviceData32: .serviceData32
        case .serviceData128: .serviceData128
        case .manufacturerData: .manufacturerSpecificData
        case let .other(type, _): type
        }
    }

    /// The AD data after the type octet, as it is sent.
    public var data: [UInt8] {
        var w = ByteWriter()
        switch self {
        case let .flags(flags): w.u8(flags.rawValue)
        case let .serviceUUIDs16(_, uuids): for uuid in uuids { w.u16(uuid) }
        case let .serviceUUIDs32(_, uuids): for uuid in uuids { w.u32(uuid) }
        case let .serviceUUIDs128(_, uuids): for uuid in uuids { w.append(uuid.littleEndianBytes) }
        case let .localName(_, name): w.append(name.utf8)
        case let .txPowerLevel(dBm): w.i8(dBm)
        case let .serviceData16(uuid, data): w.u16(uuid); w.append(data)
        case let .serviceData32(uuid, data): w.u32(uuid); w.append(data)
        case let .serviceData128(uuid, data): w.append(uuid.littleEndianBytes); w.append(data)
        case let .manufacturerData(company, data): w.u16(company); w.append(data)
        case let .other(_, data): w.append(data)
        }
        return w.bytes
    }
}
