import Positioning

/// What a reader did with its input: lines accepted, and each kind of line it dropped, with examples.
public struct ReadReport: Sendable, Hashable, CustomStringConvertible {
    /// A dropped line: where and why.
    public struct Issue: Sendable, Hashable {
        /// 1-based line number.
        public var line: Int
        /// What was wrong.
        public var message: String

        /// Creates an issue.
        public init(line: Int, message: String) {
            self.line = line
            self.message = message
        }
    }

    /// The file's name.
    public var file: String
    /// Lines read (blank ones included).
    public var lines = 0
    /// Lines handed downstream.
    public var accepted = 0
    /// Accepted lines that arrived after a newer one (within the tolerance) and were put back in order.
    public var reordered = 0
    /// Empty or whitespace-only lines, skipped.
    public var blank = 0
    /// Lines that are not a valid object of the format (bad JSON, missing or mistyped field).
    public var malformed = 0
    /// Lines with a NaN or infinite time, RSSI, power or position.
    public var nonFinite = 0
    /// Lines naming an anchor the venue does not have.
    public var unknownAnchor = 0
    /// Lines older than the newest accepted time minus the tolerance, dropped.
    public var late = 0
    /// Up to `sampleLimit` examples of each dropped kind, in file order.
    public var samples: [Issue] = []
    /// Unknown anchor ids and how many lines named each (at most `sampleLimit` distinct ids kept).
    public var unknownAnchorIDs: [String: Int] = [:]
    /// How many examples of each kind are kept.
    public var sampleLimit: Int

    /// Creates an empty report.
    public init(file: String, sampleLimit: Int = 5) {
        self.file = file
        self.sampleLimit = sampleLimit
    }

    /// Lines dropped for any reason (blank lines excluded).
    public var dropped: Int { malformed + nonFinite + unknownAnchor + late }

    /// Whether nothing but blank lines was dropped.
    public var isClean: Bool { dropped == 0 }

    private var sampleCounts: [String: Int] = [:]

    /// Records an example of a dropped line of the given kind, if fewer than `sampleLimit` are kept.
    mutating func sample(kind: String, line: Int, message: String) {
        let kept = sampleCounts[kind, default: 0]
        guard kept < sampleLimit else { return }
        sampleCounts[kind] = kept + 1
        samples.append(Issue(line: line, message: message))
    }

    /// Multi-line summary, e.g. `x.jsonl: 1365 lines, 1365 accepted (3 reordered), 0 dropped`.
    public var description: String {
        var text = "\(file): \(lines) lines, \(accepted) accepted"
        if reordered > 0 { text += " (\(reordered) reordered)" }
        text += ", \(dropped) dropped"
        var parts: [String] = []
        if malformed > 0 { parts.append("\(malformed) malformed") }
        if nonFinite > 0 { parts.append("\(nonFinite) non-finite") }
        if unknownAnchor > 0 { parts.append("\(unknownAnchor) unknown anchor") }
        if late > 0 { parts.append("\(late) late") }
        if blank > 0 { parts.append("\(blank) blank skipped") }
        if !parts.isEmpty { text += " (" + parts.joined(separator: ", ") + ")" }
        if !unknownAnchorIDs.isEmpty {
            let ids = unknownAnchorIDs.sorted { $0.key < $1.key }.map { "\($0.key) x\($0.value)" }
            text += "\n  unknown anchors: " + ids.joined(separator: ", ")
        }
        for issue in samples { text += "\n  line \(issue.line): \(issue.message)" }
        return text
    }
}
