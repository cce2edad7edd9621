/// Advertising or scan response data decoded into AD structures: the convenient, allocating form.
///
/// Core Spec 5.4, Vol 3, Part C, §11 and Core Spec Supplement v11, Part A, §1. Parsing never throws: structures
/// are kept up to any damage, and each problem is recorded in `errors` (an overrun ends parsing; a known type
/// with malformed data is kept as `.other` and parsing goes on). For a hot loop use `ADElementReader`.
public struct ADStructureList: Sendable, Hashable {
    /// Why structures cannot be encoded.
    public enum EncodingError: Error, Sendable, Hashable, CustomStringConvertible {
        /// A structure's type octet and data exceed the 255 bytes a length octet can announce.
        case tooLong(type: ADType, dataLength: Int)

        public var description: String {
            switch self {
            case let .tooLong(type, length):
                "AD structure \(type): \(length) data bytes exceed the 254 a length octet allows"
            }
        }
    }

    /// The structures, in the order they were sent.
    public var structures: [ADStructure]
    /// What was wrong with the data, in order; empty for well-formed data. An overrun, if any, is last.
    public var errors: [HCIDecodingError]

    /// Wraps structures, for encoding.
    public init(_ structures: [ADStructure]) {
        self.structures = structures
        errors = []
    }

    /// Parses advertising data.
    public init(parsing data: ArraySlice<UInt8>) {
        structures = []
        errors = []
        var reader = ADElementReader(data)
        while true {
            let element: ADElement?
            do { element = try reader.next() } catch {
                errors.append(error)
                break
            }
            guard let element else { break }
            do { structures.append(try ADStructure(decoding: element)) } catch {
                errors.append(error)
                structures.append(.other(type: element.type, data: Array(element.data)))
            }
        }
    }

    /// Parses advertising data.
    public init(parsing data: [UInt8]) {
        self.init(parsing: data[...])
    }

    /// Encodes the structures as advertising data: `length, type, data` for each, no padding.
    public func encoded() throws(EncodingError) -> [UInt8] {
        var w = ByteWriter()
        for structure in structures {
            let data = structure.data
            guard data.count <= 254 else { throw .tooLong(type: structure.type, dataLength: data.count) }
            w.u8(UInt8(data.count + 1))
            w.u8(structure.type.rawValue)
            w.append(data)
        }
        return w.bytes
    }

    /// The first local name, complete or shortened.
    public var localName: String? {
        for case let .localName(_, name) in structures { return name }
        return nil
    }

    /// The advertised Tx Power Level in dBm, if any.
    public var txPowerLevelDBm: Int8? {
        for case let .txPowerLevel(dBm) in structures { return dBm }
        return nil
    }

    /// The Flags, if sent.
    public var flags: ADFlags? {
        for case let .flags(flags) in structures { return flags }
        return nil
    }

    /// Every 16-bit service UUID listed, complete or not.
    public var serviceUUIDs16: [UInt16] {
        structures.flatMap { structure -> [UInt16] in
            if case let .serviceUUIDs16(_, uuids) = structure { uuids } else { [] }
        }
    }
}
