import Formats
import JSON

/// One ESPresense node's report of one device: what the firmware publishes to `<prefix>/devices/<device>/<node>`
/// (prefix `espresense`; the node is its room name made a slug, `id = slugify(room)` in the firmware's
/// `src/main.cpp`; the payload is built by `BleFingerprint::fill` in `src/BleFingerprint.cpp`).
///
/// Two payload generations are read, both as flat JSON objects:
/// - firmware 4.0 from beta 7 on (ESPresense commit 20d09fd3, April 2025, "Apply rxAdj to rssi not to rssi@1m"):
///   `{"mac", "id", "name", "rssi@1m", "rssi", "rxAdj", "rssiVar", "distance", "var", "int", ...}`. `rssi` is
///   the node's filtered RSSI with its receiver adjustment already taken off (`raw − rxAdj`, two decimals);
///   `rssi@1m` is the device's expected RSSI at 1 m without any adjustment.
/// - firmware 3.x (and 4.0 betas 0 to 6, with `last` and `cnt` instead of `raw`):
///   `{"mac", "id", "idType", "rssi@1m", "rssi", "raw", "distance", "var", "int", ...}`, no
///   `rxAdj`, no `rssiVar`. `rssi` is unadjusted (in 3.x an integer: the last packet's, up to 3.3.0 the median of
///   the last three), and the adjustment is added to `rssi@1m` instead; `raw` is the unfiltered *distance*, metres.
///
/// Either way the firmware's distance is `10^((rssi@1m − rssi) / (10 · absorption))`: the receiver adjustment sits
/// in exactly one of the two published numbers, so `rssi@1m` as published is the reference power for `rssi` as
/// published (`referencePowerDBm`). Only `rssi` is required. Unknown keys are skipped whatever their value and
/// `null` counts as absent; the distances are not used.
public struct ESPresenseReport: Sendable, Hashable {
    /// The base topic ESPresense firmware publishes under.
    public static let defaultPrefix = "espresense"
    /// Largest payload parsed at all, bytes (real reports are a few hundred).
    public static let maximumPayloadBytes = 16 * 1024
    /// Where `rssi`, `rssi@1m` and `rxAdj` must lie, dB(m): finite numbers beyond it are corruption, not radio.
    public static let plausibleDBm: ClosedRange<Double> = -300...300

    /// The device id from the topic (`irk:…`, `iBeacon:<uuid>-<major>-<minor>`, `name:…`, a MAC, an alias).
    public var device: String
    /// The node (room) name from the topic, as the firmware slugs it.
    public var node: String
    /// RSSI as the node published it, dBm (4.x: filtered and receiver-adjusted; 3.x: unadjusted).
    public var rssi: Double
    /// `rssi@1m`: the device's expected RSSI at 1 m, dBm, when the node knows it.
    public var rssiAt1m: Double?
    /// `rxAdj`: the node's receiver adjustment, dB (4.x only; already subtracted from `rssi`).
    public var rxAdj: Double?
    /// `rssiVar`: the variance of the node's recent RSSI readings, dB² (4.x only).
    public var rssiVariance: Double?
    /// The device's Bluetooth address as twelve hex digits, when sent.
    public var mac: String?

    /// The RSSI expected at 1 m to compare `rssi` with, dBm: `rssi@1m` as published, in both generations. The
    /// firmware applies `rxAdj` once, to `rssi` (4.x) or to `rssi@1m` (3.x), so adding it again would count it
    /// twice; the distance the node itself reports is `10^((referencePowerDBm − rssi) / (10 · absorption))`.
    public var referencePowerDBm: Double? { rssiAt1m }

    /// Creates a report.
    public init(device: String, node: String, rssi: Double, rssiAt1m: Double? = nil, rxAdj: Double? = nil,
                rssiVariance: Double? = nil, mac: String? = nil) {
        self.device = device
        self.node = node
        self.rssi = rssi
        self.rssiAt1m = rssiAt1m
        self.rxAdj = rxAdj
        self.rssiVariance = rssiVariance
        self.mac = mac
    }

    /// Parses topic + payload; `prefix` is the ESPresense base topic. Throws ESPresenseError naming the field.
    ///
    /// The topic must be `<prefix>/devices/<device>/<node>` with both levels non-empty (the firmware's query
    /// results, one level deeper, are refused as `badTopic`). Then, in this order: a payload over
    /// `maximumPayloadBytes` is `oversized`; text that is not one JSON object is `malformedJSON`; a known field
    /// of the wrong kind is `wrongType`; a missing (or null) `rssi` is `missingField`; a non-finite or
    /// implausible number is `outOfRange`.
    public static func parse(topic: String, payload: [UInt8], prefix: String = "espresense")
        throws(ESPresenseError) -> ESPresenseReport
    {
        guard let (device, node) = deviceAndNode(topic: topic, prefix: prefix) else {
            throw ESPresenseError(.badTopic, topic: topic,
                                  detail: "not a device topic \(prefix)/devices/<device>/<node>")
        }
        guard payload.count <= maximumPayloadBytes else {
            throw ESPresenseError(.oversized, topic: topic,
                                  detail: "payload of \(payload.count) bytes is larger than \(maximumPayloadBytes)")
        }
        var fields = Fields()
        do {
            try payload.withUnsafeBufferPointer { (buffer) throws(JSONSyntaxError) in try fields.scan(buffer) }
        } catch {
            throw ESPresenseError(.malformedJSON, topic: topic, detail: "malformed JSON: \(error.located)")
        }
        return try fields.report(device: device, node: node, topic: topic)
    }

    /// The node status topic `<prefix>/rooms/<node>/status` -> node, or nil.
    ///
    /// The firmware publishes `online` there (retained) once connected and leaves `offline` as its last will;
    /// `*`, which addresses every node in settings topics, is no node and gives nil.
    public static func statusNode(topic: String, prefix: String = "espresense") -> String? {
        guard let levels = levels(of: topic, after: prefix + "/rooms/"), levels.count == 2, levels[1] == "status",
              !levels[0].isEmpty, levels[0] != "*"
        else { return nil }
        return String(levels[0])
    }

    /// `<prefix>/devices/<device>/<node>` -> (device, node), or nil.
    static func deviceAndNode(topic: String, prefix: String) -> (device: String, node: String)? {
        guard let levels = levels(of: topic, after: prefix + "/devices/"), levels.count == 2,
              !levels[0].isEmpty, !levels[1].isEmpty
        else { return nil }
        return (String(levels[0]), String(levels[1]))
    }

    /// The topic levels after `base`, or nil when the topic does not start with it.
    private static func levels(of topic: String, after base: String) -> [Substring]? {
        guard topic.hasPrefix(base) else { return nil }
        return topic.dropFirst(base.count).split(separator: "/", omittingEmptySubsequences: false)
    }
}

/// The fields of one payload as scanned, with the first problem of kind found (a syntax error wins over it).
private struct Fields {
    var rssi: Double?, rssiAt1m: Double?, rxAdj: Double?, rssiVariance: Double?, mac: String?
    var problem: (kind: ESPresenseError.Kind, detail: String)?

    /// Reads one JSON object, keeping the known fields and skipping the others (nesting bounded by the scanner).
    mutating func scan(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) {
        var s = JSONScanner(bytes)
        try s.beginObject()
        var first = true
        while let key = try s.nextKey(first: &first) {
            switch key {
            case "rssi": rssi = try number(&s, key)
            case "rssi@1m": rssiAt1m = try number(&s, key)
            case "rxAdj": rxAdj = try number(&s, key)
            case "rssiVar": rssiVariance = try number(&s, key)
            case "mac": mac = try string(&s, key)
            default: _ = try s.value(depth: 1)
            }
        }
        guard s.atEnd() else { throw s.error("unexpected text after the object") }
    }

    /// A number field's value; nil for null or for a value of another kind, which is noted as the problem.
    private mutating func number(_ s: inout JSONScanner, _ field: String) throws(JSONSyntaxError) -> Double? {
        let value = try s.value(depth: 1)
        switch value {
        case .number(let x): return x
        case .null: return nil
        default:
            note(.wrongType(field: field), "expected a number, got \(value.kindName)")
            return nil
        }
    }

    /// A string field's value; nil for null or for a value of another kind, which is noted as the problem.
    private mutating func string(_ s: inout JSONScanner, _ field: String) throws(JSONSyntaxError) -> String? {
        let value = try s.value(depth: 1)
        switch value {
        case .string(let text): return text
        case .null: return nil
        default:
            note(.wrongType(field: field), "expected a string, got \(value.kindName)")
            return nil
        }
    }

    /// Keeps the first problem found.
    private mutating func note(_ kind: ESPresenseError.Kind, _ detail: String) {
        if problem == nil { problem = (kind, detail) }
    }

    /// The report, or the first problem: a field of the wrong kind, `rssi` missing, a number out of range.
    func report(device: String, node: String, topic: String) throws(ESPresenseError) -> ESPresenseReport {
        if let problem { throw ESPresenseError(problem.kind, topic: topic, detail: problem.detail) }
        guard let rssi else { throw ESPresenseError(.missingField("rssi"), topic: topic, detail: "missing") }
        let dBm = ESPresenseReport.plausibleDBm
        for (field, value) in [("rssi", rssi), ("rssi@1m", rssiAt1m), ("rxAdj", rxAdj)] {
            guard let value, !(value.isFinite && dBm.contains(value)) else { continue }
            throw ESPresenseError(.outOfRange(field: field), topic: topic,
                                  detail: "expected a finite number from \(Int(dBm.lowerBound)) to "
                                      + "\(Int(dBm.upperBound)), got \(value)")
        }
        if let v = rssiVariance, !(v.isFinite && v >= 0) {
            throw ESPresenseError(.outOfRange(field: "rssiVar"), topic: topic,
                                  detail: "expected a finite number not below 0, got \(v)")
        }
        return ESPresenseReport(device: device, node: node, rssi: rssi, rssiAt1m: rssiAt1m, rxAdj: rxAdj,
                                rssiVariance: rssiVariance, mac: mac)
    }
}

/// Why an ESPresense message was refused: the topic, the kind of problem (with the field) and what is wrong.
///
/// Its description reads `espresense/devices/irk:…/kitchen: rssi: expected a number, got a string`.
public struct ESPresenseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kinds of problem, each counted on its own by a consumer.
    public enum Kind: Sendable, Hashable {
        /// The topic is not `<prefix>/devices/<device>/<node>`.
        case badTopic
        /// The payload is larger than `ESPresenseReport.maximumPayloadBytes`.
        case oversized
        /// The payload is not one JSON object (truncated, not JSON, text after it).
        case malformedJSON
        /// A known field holds a value of another kind (a string for `rssi`, say).
        case wrongType(field: String)
        /// A required field is absent or null.
        case missingField(String)
        /// A number is non-finite or outside what a radio can report.
        case outOfRange(field: String)
    }

    /// What kind of problem.
    public var kind: Kind
    /// The topic the message came on.
    public var topic: String
    /// What is wrong, without the topic or field (`expected a number, got a string`).
    public var detail: String

    /// Creates an error.
    public init(_ kind: Kind, topic: String, detail: String) {
        self.kind = kind
        self.topic = topic
        self.detail = detail
    }

    /// The field the problem is in, when it is in one.
    public var field: String? {
        switch kind {
        case .wrongType(let field), .missingField(let field), .outOfRange(let field): field
        case .badTopic, .oversized, .malformedJSON: nil
        }
    }

    /// A short name of the kind, for counting and logging once per kind (`wrong type`).
    public var kindName: String {
        switch kind {
        case .badTopic: "bad topic"
        case .oversized: "oversized"
        case .malformedJSON: "malformed JSON"
        case .wrongType: "wrong type"
        case .missingField: "missing field"
        case .outOfRange: "out of range"
        }
    }

    /// `topic: field: detail` (no field for problems of the whole message).
    public var description: String {
        field.map { "\(topic): \($0): \(detail)" } ?? "\(topic): \(detail)"
    }
}
