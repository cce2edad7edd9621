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
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A number with exactly six decimals, rounded to the microsecond: `1639485930.123000`.
    static func fixed6(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        let micro = Int64((abs(value) * 1e6).rounded())
        let fraction = String(micro % 1_000_000)
        let sign = value < 0 && micro != 0 ? "-" : ""
        return sign + String(micro / 1_000_000) + "." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }
}

/// Writes one JSON object with keys in the order they are added.
struct JSONObjectWriter {
    private var text = "{"
    private var first = true

    /// Adds a key whose value is already JSON (a number, `null`, a nested object).
    mutating func raw(_ key: String, _ value: String) {
        if !first { text += "," }
        first = false
        text += Self.quoted(key) + ":" + value
    }

    /// Adds a string value, escaped.
    mutating func string(_ key: String, _ value: String) {
        raw(key, Self.quoted(value))
    }

    /// Closes the object and returns it.
    func finish() -> String { text + "}" }

    /// A JSON string literal (RFC 8259 §7): quotes, backslashes and control characters escaped.
    static func quoted(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20:
                let hex = String(c.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
