import BlueDotCore
import JSON

/// One beacon frame found in advertising data: iBeacon, Eddystone-UID/URL/TLM or AltBeacon.
///
/// Each case's type cites its own specification. `type` and `id` follow the interchange formats
/// (docs/formats.md): `id` is nil for Eddystone-URL and TLM frames, which carry no id of their own (a sender's
/// canonical id then falls back to `mac:<address>`).
public enum Beacon: Sendable, Hashable {
    /// An Apple iBeacon.
    case iBeacon(IBeacon)
    /// An Eddystone-UID frame.
    case eddystoneUID(EddystoneUID)
    /// An Eddystone-URL frame.
    case eddystoneURL(EddystoneURL)
    /// An Eddystone-TLM frame.
    case eddystoneTLM(EddystoneTLM)
    /// An AltBeacon.
    case altBeacon(AltBeacon)

    /// The frame type: exactly `ibeacon`, `eddystone-uid`, `eddystone-url`, `eddystone-tlm` or `altbeacon`.
    public var type: String { typeName.description }

    /// `type` as static text, for writers that copy it without making a `String`.
    public var typeName: StaticString {
        switch self {
        case .iBeacon: "ibeacon"
        case .eddystoneUID: "eddystone-uid"
        case .eddystoneURL: "eddystone-url"
        case .eddystoneTLM: "eddystone-tlm"
        case .altBeacon: "altbeacon"
        }
    }

    /// The canonical, lower-case beacon id, or nil when the frame carries none (Eddystone-URL and TLM).
    public var id: String? {
        switch self {
        case let .iBeacon(frame): frame.canonicalID
        case let .eddystoneUID(frame): frame.canonicalID
        case let .altBeacon(frame): frame.canonicalID
        case .eddystoneURL, .eddystoneTLM: nil
        }
    }

    /// Writes the canonical id and returns true; false, with nothing written, when the frame carries none.
    public func writeID(to w: inout JSONWriter) -> Bool {
        switch self {
        case let .iBeacon(frame): frame.writeCanonicalID(to: &w)
        case let .eddystoneUID(frame): frame.writeCanonicalID(to: &w)
        case let .altBeacon(frame): frame.writeCanonicalID(to: &w)
        case .eddystoneURL, .eddystoneTLM: return false
        }
        return true
    }

    /// Whether the frame carries an id of its own (`id` is not nil), without building the id string.
    public var hasCanonicalID: Bool {
        switch self {
        case .iBeacon, .eddystoneUID, .altBeacon: true
        case .eddystoneURL, .eddystoneTLM: false
        }
    }

    /// The reference power the frame advertises in dBm, at `referenceDistanceMeters`: the iBeacon measured
    /// power and the AltBeacon reference RSSI at 1 m, the Eddystone TX power at 0 m. Nil for TLM frames.
    public var referencePowerDBm: Int8? {
        switch self {
        case let .iBeacon(frame): frame.measuredPowerDBm
        case let .altBeacon(frame): frame.referenceRSSIDBm
        case let .eddystoneUID(frame): frame.txPowerAt0mDBm
        case let .eddystoneURL(frame): frame.txPowerAt0mDBm
        case .eddystoneTLM: nil
        }
    }

    /// The distance in metres `referencePowerDBm` refers to: 1 for iBeacon and AltBeacon, 0 for Eddystone.
    public var referenceDistanceMeters: Double? {
        switch self {
        case .iBeacon, .altBeacon: 1
        case .eddystoneUID, .eddystoneURL: 0
        case .eddystoneTLM: nil
        }
    }

    /// The expected RSSI at 1 m in dBm: the reference power as is, or for Eddystone the TX power at 0 m less the
    /// 41 dB that Eddystone's calibration note assumes between 0 m and 1 m.
    public var measuredPowerAt1mDBm: Double? {
        guard let power = referencePowerDBm, let distance = referenceDistanceMeters else { return nil }
        return distance == 0 ? Double(power) - Eddystone.pathLossFrom0To1MeterDB : Double(power)
    }

    /// The frame as one AD structure. Throws only for an Eddystone-URL whose URL cannot be encoded.
    public func adStructure() throws(HCIDecodingError) -> ADStructure {
        switch self {
        case let .iBeacon(frame): frame.adStructure
        case let .eddystoneUID(frame): frame.adStructure
        case let .eddystoneURL(frame): try frame.adStructure()
        case let .eddystoneTLM(frame): frame.adStructure
        case let .altBeacon(frame): frame.adStructure
        }
    }
}
