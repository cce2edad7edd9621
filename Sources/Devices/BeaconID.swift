/// The canonical beacon ids of `docs/formats.md` ("Beacon identifiers"), checked and made canonical: what a
/// registry may name and what counts as a known beacon.
enum BeaconID {
    /// `text` in canonical form (lower case; an AltBeacon id1 written as a UUID without its dashes), or nil when it
    /// is not an iBeacon, Eddystone-UID or AltBeacon id.
    static func canonical(_ text: String) -> String? {
        let parts = text.lowercased().split(separator: ":", omittingEmptySubsequences: false)
        guard let kind = parts.first else { return nil }
        switch (kind, parts.count) {
        case ("ibeacon", 4):
            let uuid = parts[1].split(separator: "-", omittingEmptySubsequences: false)
            guard [8, 4, 4, 4, 12].elementsEqual(uuid.map(\.count)), uuid.allSatisfy(isHex),
                  let major = UInt16(parts[2]), let minor = UInt16(parts[3]) else { return nil }
            return "ibeacon:\(parts[1]):\(major):\(minor)"
        case ("eddystone", 3):
            guard parts[1].count == 20, parts[2].count == 12, isHex(parts[1]), isHex(parts[2]) else { return nil }
            return "eddystone:\(parts[1]):\(parts[2])"
        case ("altbeacon", 4):
            let id1 = parts[1].filter { $0 != "-" }
            guard id1.count == 32, isHex(id1[...]), let id2 = UInt16(parts[2]), let id3 = UInt16(parts[3]) else {
                return nil
            }
            return "altbeacon:\(id1):\(id2):\(id3)"
        default:
            return nil
        }
    }

    /// The form of a kind's id, for error messages.
    static func form(_ kind: String) -> String {
        switch kind {
        case "ibeacon": "ibeacon:<uuid 8-4-4-4-12 hex>:<major>:<minor>"
        case "eddystone": "eddystone:<namespace, 20 hex>:<instance, 12 hex>"
        default: "altbeacon:<id1, 32 hex>:<id2>:<id3>"
        }
    }

    private static func isHex(_ s: Substring) -> Bool { !s.isEmpty && s.allSatisfy(\.isHexDigit) }
}
