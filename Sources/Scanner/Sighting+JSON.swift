import HCI

extension Sighting {
    /// The sighting as one JSON line (no newline), keys in a fixed order:
    /// `t`, `address`, `addressType`, `rssi`, `txPower` (when known), `id`, `dataStatus` (only when not complete),
    /// `beacon` (for beacons: `type`, then the frame's fields).
    ///
    /// `t` is Unix seconds with 6 decimals; `rssi` is left out when the controller did not measure it.
    public var jsonLine: String {
        var json = JSONObjectWriter()
        json.raw("t", Self.fixed6(timestamp))
        json.string("address", address.description)
        json.string("addressType", Self.name(of: addressType))
        if let rssiDBm { json.raw("rssi", String(rssiDBm)) }
        if let txPowerDBm { json.raw("txPower", String(txPowerDBm)) }
        json.string("id", id)
        if dataStatus != .complete { json.string("dataStatus", dataStatus.description) }
        if let beacon { json.raw("beacon", Self.json(of: beacon)) }
        return json.finish()
    }

    /// The beacon object: `type`, then the frame's decoded fields.
    static func json(of beacon: Beacon) -> String {
        var json = JSONObjectWriter()
        json.string("type", beacon.type)
        switch beacon {
        case let .iBeacon(frame):
            json.string("uuid", frame.proximityUUID.description.lowercased())
            json.raw("major", String(frame.major))
            json.raw("minor", String(frame.minor))
            json.raw("measuredPower", String(frame.measuredPowerDBm))
        case let .eddystoneUID(frame):
            json.string("namespace", hex(frame.namespace))
            json.string("instance", hex(frame.instance))
            json.raw("txPower", String(frame.txPowerAt0mDBm))
        case let .eddystoneURL(frame):
            json.string("url", frame.url)
            json.raw("txPower", String(frame.txPowerAt0mDBm))
        case let .eddystoneTLM(.unencrypted(telemetry)):
            json.raw("battery", String(telemetry.batteryMillivolts))
            json.raw("temperature", telemetry.temperatureCelsius.map { String($0) } ?? "null")
            json.raw("advCount", String(telemetry.advertisingPDUCount))
            json.raw("uptime", String(telemetry.timeSinceBootSeconds))
        case let .eddystoneTLM(.encrypted(data)):
            json.string("encrypted", hex(data))
        case let .altBeacon(frame):
            json.string("id1", hex(frame.id1.bigEndianBytes))
            json.raw("id2", String(frame.id2))
            json.raw("id3", String(frame.id3))
            json.raw("referenceRSSI", String(frame.referenceRSSIDBm))
        }
        return json.finish()
    }

    /// `public`, `random`, `public-identity`, `random-identity`, `anonymous`, or `0xNN` for reserved values.
    public static func name(of type: BDAddressType) -> String {
        switch type.rawValue {
        case 0x00: "public"
        case 0x01: "random"
        case 0x02: "public-identity"
        case 0x03: "random-identity"
        case 0xFF: "anonymous"
        case let other: "0x" + hex([other])
        }
    }

    /// Lower-case hex digits, two per byte.
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        var out = [UInt8]()
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A number with exactly six decimals, rounded to the microsecond: `1639485930.123000`.
    static func fixed6(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        let micro = Int64((abs(value) * 1e6).rounded())
        let fraction = String(micro % 1_000_000)
        let sign = value < 0 && micro != 0 ? "-" : ""
        return sign + String(micro / 1_000_000) + "." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }
}

/// Writes one JSON object with keys in the order they are added, into a byte buffer (UTF-8).
struct JSONObjectWriter {
    private static let hexDigits = Array("0123456789abcdef".utf8)
    private var bytes: [UInt8] = [UInt8(ascii: "{")]
    private var first = true

    init() {
        bytes.reserveCapacity(256)
    }

    /// Adds a key whose value is already JSON (a number, `null`, a nested object).
    mutating func raw(_ key: String, _ value: String) {
        appendKey(key)
        bytes.append(contentsOf: value.utf8)
    }

    /// Adds a string value, escaped.
    mutating func string(_ key: String, _ value: String) {
        appendKey(key)
        Self.appendQuoted(value, to: &bytes)
    }

    /// Closes the object and returns it.
    func finish() -> String {
        var out = bytes
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    private mutating func appendKey(_ key: String) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        Self.appendQuoted(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    /// A JSON string literal (RFC 8259 §7): quotes, backslashes and control characters escaped.
    static func quoted(_ value: String) -> String {
        var out: [UInt8] = []
        appendQuoted(value, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `value` as a JSON string literal. Bytes of multi-byte UTF-8 sequences are copied as they are.
    static func appendQuoted(_ value: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                out.append(contentsOf: Array("\\u00".utf8))
                out.append(Self.hexDigits[Int(byte >> 4)])
                out.append(Self.hexDigits[Int(byte & 0x0F)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
