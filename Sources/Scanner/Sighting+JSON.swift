import BlueDotCore
import HCI

extension Sighting {
    /// The sighting as one JSON line (no newline), keys in a fixed order:
    /// `t`, `address`, `addressType`, `rssi`, `txPower` (when known), `id`, `dataStatus` (only when not complete),
    /// `beacon` (for beacons: `type`, then the frame's fields).
    ///
    /// `t` is Unix seconds with 6 decimals; `rssi` is left out when the controller did not measure it.
    public var jsonLine: String {
        var json = JSONObjectWriter()
        json.raw("t", JSONText.fixed(timestamp, decimals: 6))
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
}
