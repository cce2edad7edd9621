import BlueDotCore
import HCI
import JSON

extension Sighting {
    /// The sighting as one JSON line (no newline), keys in a fixed order:
    /// `t`, `address`, `addressType`, `rssi`, `txPower` (when known), `id`, `dataStatus` (only when not complete),
    /// `beacon` (for beacons: `type`, then the frame's fields).
    ///
    /// `t` is Unix seconds with 6 decimals; `rssi` is left out when the controller did not measure it.
    public var jsonLine: String {
        JSONText.text(estimatedBytes: 320) { writeJSON(to: &$0) }
    }

    /// Appends `jsonLine` (no newline) to UTF-8 bytes: the output path of `scan` and `decode`.
    public func appendJSON(to out: inout [UInt8]) {
        JSONText.append(to: &out, estimatedBytes: 320) { writeJSON(to: &$0) }
    }

    /// Writes `jsonLine`.
    public func writeJSON(to w: inout JSONWriter) {
        w.literal(#"{"t":"#)
        w.fixed(timestamp, decimals: 6)
        w.literal(#","address":""#)
        address.writeDescription(to: &w)
        w.literal(#"","addressType":"#)
        if let name = Self.staticName(of: addressType) {
            w.byte(UInt8(ascii: "\""))
            w.literal(name)
            w.byte(UInt8(ascii: "\""))
        } else {
            w.quoted(Self.name(of: addressType))
        }
        if let rssiDBm {
            w.literal(#","rssi":"#)
            w.integer(rssiDBm)
        }
        if let txPowerDBm {
            w.literal(#","txPower":"#)
            w.integer(txPowerDBm)
        }
        w.literal(#","id":""#)
        writeID(to: &w)
        w.byte(UInt8(ascii: "\""))
        if dataStatus != .complete {
            w.literal(#","dataStatus":"#)
            w.quoted(dataStatus.description)
        }
        if let beacon {
            w.literal(#","beacon":"#)
            Self.write(beacon, to: &w)
        }
        w.byte(UInt8(ascii: "}"))
    }

    /// The beacon object: `type`, then the frame's decoded fields.
    static func json(of beacon: Beacon) -> String {
        JSONText.text(estimatedBytes: 160) { write(beacon, to: &$0) }
    }

    /// Writes the beacon object.
    static func write(_ beacon: Beacon, to w: inout JSONWriter) {
        w.literal(#"{"type":""#)
        w.literal(beacon.typeName)
        w.byte(UInt8(ascii: "\""))
        switch beacon {
        case let .iBeacon(frame):
            w.literal(#","uuid":""#)
            frame.proximityUUID.writeDescription(to: &w)
            w.literal(#"","major":"#)
            w.integer(Int(frame.major))
            w.literal(#","minor":"#)
            w.integer(Int(frame.minor))
            w.literal(#","measuredPower":"#)
            w.integer(Int(frame.measuredPowerDBm))
        case let .eddystoneUID(frame):
            w.literal(#","namespace":""#)
            for b in frame.namespace { w.hex(b) }
            w.literal(#"","instance":""#)
            for b in frame.instance { w.hex(b) }
            w.literal(#"","txPower":"#)
            w.integer(Int(frame.txPowerAt0mDBm))
        case let .eddystoneURL(frame):
            w.literal(#","url":"#)
            w.quoted(frame.url)
            w.literal(#","txPower":"#)
            w.integer(Int(frame.txPowerAt0mDBm))
        case let .eddystoneTLM(.unencrypted(telemetry)):
            w.literal(#","battery":"#)
            w.integer(Int(telemetry.batteryMillivolts))
            w.literal(#","temperature":"#)
            if let celsius = telemetry.temperatureCelsius { w.string(utf8: String(celsius)) } else { w.literal("null") }
            w.literal(#","advCount":"#)
            w.integer(Int(telemetry.advertisingPDUCount))
            w.literal(#","uptime":"#)
            w.string(utf8: String(telemetry.timeSinceBootSeconds))
        case let .eddystoneTLM(.encrypted(data)):
            w.literal(#","encrypted":""#)
            for b in data { w.hex(b) }
            w.byte(UInt8(ascii: "\""))
        case let .altBeacon(frame):
            w.literal(#","id1":""#)
            frame.id1.writeHexDigits(to: &w)
            w.literal(#"","id2":"#)
            w.integer(Int(frame.id2))
            w.literal(#","id3":"#)
            w.integer(Int(frame.id3))
            w.literal(#","referenceRSSI":"#)
            w.integer(Int(frame.referenceRSSIDBm))
        }
        w.byte(UInt8(ascii: "}"))
    }

    /// `public`, `random`, `public-identity`, `random-identity`, `anonymous`, or `0xNN` for reserved values.
    public static func name(of type: BDAddressType) -> String {
        staticName(of: type)?.description ?? "0x" + hex([type.rawValue])
    }

    /// The name of a defined address type as static text; nil for reserved values.
    static func staticName(of type: BDAddressType) -> StaticString? {
        switch type.rawValue {
        case 0x00: "public"
        case 0x01: "random"
        case 0x02: "public-identity"
        case 0x03: "random-identity"
        case 0xFF: "anonymous"
        default: nil
        }
    }

    /// Lower-case hex digits, two per byte.
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        JSONText.text(estimatedBytes: 64) { w in for b in bytes { w.hex(b) } }
    }
}
