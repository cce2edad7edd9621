import CLibCrypto
import HCI

/// What a site receiver advertises while it scans (`advertise`, off by default), so that the other receivers hear
/// it and the solver gets a link between two known places: an Eddystone-UID frame whose id follows from the site
/// and the receiver's id, sent from the adapter's public address.
///
/// - Namespace: the first 10 bytes of SHA-256 of the text `BlueDot receiver` (`b8202f43bd98bf7f8fe8`), as
///   google/eddystone's UID specification suggests (a truncated hash; it names SHA-1 of a domain, which we have not).
/// - Instance: the first 6 bytes of SHA-256 of `<site>/<receiver>`: stable across restarts and adapters, and
///   different in two sites whose receivers share ids.
/// - Ranging data: -18 dBm at 0 m, which is -59 dBm at 1 m (a USB adapter at 0 dBm). The solver does not read
///   it: self-calibration fits every pair from what was heard.
///
/// Every scanner that knows Eddystone hears it as the known beacon `eddystone:b8202f43bd98bf7f8fe8:<instance>`;
/// the solver maps that id back to the receiver (`SiteSource`), and so does nothing else.
public struct ReceiverBeacon: Sendable, Hashable {
    /// The namespace of every receiver's frame.
    public static let namespace: [UInt8] = [0xB8, 0x20, 0x2F, 0x43, 0xBD, 0x98, 0xBF, 0x7F, 0x8F, 0xE8]
    /// What every receiver's beacon id starts with.
    public static let idPrefix = "eddystone:b8202f43bd98bf7f8fe8:"
    /// The ranging data of the frame, dBm at 0 m.
    public static let txPowerAt0mDBm: Int8 = -18

    /// The site.
    public let site: String
    /// The receiver's id (its anchor id at the solver).
    public let receiver: String
    /// The frame.
    public let frame: EddystoneUID

    /// The frame of `receiver` in `site`; nil only if libcrypto cannot hash.
    public init?(site: String, receiver: String) {
        guard let digest = Self.sha256(Array("\(site)/\(receiver)".utf8)),
              let frame = try? EddystoneUID(txPowerAt0mDBm: Self.txPowerAt0mDBm, namespace: Self.namespace,
                                            instance: Array(digest.prefix(6)))
        else { return nil }
        self.site = site
        self.receiver = receiver
        self.frame = frame
    }

    /// The frame's canonical beacon id, as receivers publish it.
    public var beaconID: String { frame.canonicalID }

    /// The advertising data (31 octets, a legacy PDU's whole payload): Flags, the Eddystone service UUID and the
    /// frame, as google/eddystone's protocol specification lays out an Eddystone advertisement.
    public var advertisingData: [UInt8] {
        // A fixed-size frame: 3 + 4 + 24 octets always encode.
        (try? Beacon.advertisingData([.eddystoneUID(frame)])) ?? []
    }

    /// SHA-256 by libcrypto's one-shot digest.
    static func sha256(_ bytes: [UInt8]) -> [UInt8]? {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        guard EVP_Digest(bytes, bytes.count, &digest, &length, EVP_sha256(), nil) == 1, length == 32 else { return nil }
        return digest
    }
}
