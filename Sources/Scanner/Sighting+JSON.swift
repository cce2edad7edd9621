import BlueDotCore
import HCI

extension Sighting {
    /// The sighting as one JSON line (no newline), keys in a fixed order:
    /// `t`, `address`, `addressType`, `rssi`, `txPower` (when known), `id`, `dataStatus` (only when not complete),
    /// `beacon` (for beacons: `type`, then the frame's fields).
    ///
    /// `t` is Unix seconds with 6 decimals; `rssi` is left out when the controller did not measure it.
    public var jsonLine: String {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        appendJSON(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `jsonLine` (no newline) to UTF-8 bytes: the output path of `scan` and `decode`.
    public func appendJSON(to out: inout [UInt8]) {
        JSONObjectWriter.append(to: &out) { json in
            json.fixed("t", timestamp, decimals: 6)
            json.value("address") { out in
                out.append(UInt8(ascii: "\""))
                address.appendDescription(to: &out)
                out.append(UInt8(ascii: "\""))
            }
            json.string("addressType", Self.name(of: addressType))
            if let rssiDBm { json.integer("rssi", rssiDBm) }
            if let txPowerDBm { json.integer("txPower", txPowerDBm) }
            json.value("id") { out in
                out.append(UInt8(ascii: "\""))
                appendID(to: &out)
                out.append(UInt8(ascii: "\""))
            }
            if dataStatus != .complete { json.string("dataStatus", dataStatus.description) }
            if let beacon { json.value("beacon") { Self.appendJSON(of: beacon, to: &$0) } }
        }
    }

    /// The beacon object: `type`, then the frame's decoded fields.
    static func json(of beacon: Beacon) -> String {
        HexText.text(capacity: 128) { appendJSON(of: beacon, to: &$0) }
    }

    /// Appends the beacon object.
    static func appendJSON(of beacon: Beacon, to out: inout [UInt8]) {
        JSONObjectWriter.append(to: &out) { json in
            json.string("type", beacon.type)
            switch beacon {
            case let .iBeacon(frame):
                json.value("uuid") { out in
                    out.append(UInt8(ascii: "\""))
                    frame.proximityUUID.appendDescription(to: &out)
                    out.append(UInt8(ascii: "\""))
                }
                json.integer("major", Int(frame.major))
                json.integer("minor", Int(frame.minor))
                json.integer("measuredPower", Int(frame.measuredPowerDBm))
            case let .eddystoneUID(frame):
                json.string("namespace", hex(frame.namespace))
                json.string("instance", hex(frame.instance))
                json.integer("txPower", Int(frame.txPowerAt0mDBm))
            case let .eddystoneURL(frame):
                json.string("url", frame.url)
                json.integer("txPower", Int(frame.txPowerAt0mDBm))
            case let .eddystoneTLM(.unencrypted(telemetry)):
                json.integer("battery", Int(telemetry.batteryMillivolts))
                json.raw("temperature", telemetry.temperatureCelsius.map { String($0) } ?? "null")
                json.integer("advCount", Int(telemetry.advertisingPDUCount))
                json.integer("uptime", Int(telemetry.timeSinceBootSeconds))
            case let .eddystoneTLM(.encrypted(data)):
                json.string("encrypted", hex(data))
            case let .altBeacon(frame):
                json.string("id1", hex(frame.id1.bigEndianBytes))
                json.integer("id2", Int(frame.id2))
                json.integer("id3", Int(frame.id3))
                json.integer("referenceRSSI", Int(frame.referenceRSSIDBm))
            }
        }
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
        HexText.string(bytes)
    }
}
