import FoundationEssentials
import JSON
import Positioning
import SystemIO

/// Streams an observation or survey JSONL file in time order, counting every line it cannot use.
///
/// Reads the input in chunks (memory stays flat in the file's size) and parses each line with a small JSON
/// scanner. Policy, per line, in this order:
/// 1. blank: skipped and counted, never an error;
/// 2. malformed (not an object of the format, mistyped or missing field, longer than 1 MiB): dropped;
/// 3. non-finite `t`, `rssi`, `txPower` or truth coordinate: dropped;
/// 4. `anchor` not among `Options.knownAnchors` (when given): dropped;
/// 5. older than the newest accepted time minus `Options.toleranceSeconds`: dropped as late; younger lines are
///    accepted and handed out re-sorted by time (see `ReorderBuffer`), so the output never goes back in time.
/// Dropped lines are counted in `report` with the first few line numbers. In `strict` mode the first dropped
/// line (blank lines excepted) throws a `JSONLinesError` naming the file and line instead.
public struct ObservationReader {
    /// How the reader treats imperfect input.
    public struct Options: Sendable {
        /// Disorder accepted and repaired, seconds (default 0.5).
        public var toleranceSeconds: Double
        /// Throw on the first bad line instead of counting it.
        public var strict: Bool
        /// The venue's anchor ids; nil accepts any anchor.
        public var knownAnchors: Set<String>?
        /// Bytes read per chunk.
        public var chunkSize: Int
        /// Examples kept per kind of dropped line.
        public var sampleLimit: Int

        /// Creates options.
        public init(toleranceSeconds: Double = 0.5, strict: Bool = false, knownAnchors: Set<String>? = nil,
                    chunkSize: Int = 1 << 16, sampleLimit: Int = 5) {
            self.toleranceSeconds = toleranceSeconds
            self.strict = strict
            self.knownAnchors = knownAnchors
            self.chunkSize = chunkSize
            self.sampleLimit = sampleLimit
        }
    }

    /// The counts so far; complete once `next()` has returned nil.
    public private(set) var report: ReadReport
    private var lines: LineSplitter
    private var order: ReorderBuffer<ObservationLine>
    private var table = StringTable()
    private let options: Options
    private var draining = false

    /// Reads the file at `path` (named by its last path component in errors and the report).
    public init(path: String, options: Options = Options()) throws(JSONLinesError) {
        let name = URL(fileURLWithPath: path).lastPathComponent
        self.init(source: try FileChunkSource(path: path, name: name), name: name, options: options)
    }

    /// Reads any chunked source; `name` stands for the file in errors and the report.
    public init(source: any ByteChunkSource, name: String, options: Options = Options()) {
        self.options = options
        self.report = ReadReport(file: name, sampleLimit: options.sampleLimit)
        self.lines = LineSplitter(source: source, chunkSize: options.chunkSize)
        self.order = ReorderBuffer(tolerance: options.toleranceSeconds)
    }

    /// The next accepted line in time order, or nil at the end of the input.
    public mutating func next() throws(JSONLinesError) -> ObservationLine? {
        while true {
            if let ready = draining ? order.popFirst() : order.popReady() {
                report.accepted += 1
                return ready
            }
            if draining { return nil }
            guard let line = try lines.next() else {
                draining = true
                continue
            }
            try take(line)
        }
    }

    /// Reads everything that is left.
    public mutating func readAll() throws(JSONLinesError) -> [ObservationLine] {
        var all: [ObservationLine] = []
        while let line = try next() { all.append(line) }
        return all
    }

    /// Classifies one line and admits it to the reorder buffer if it is good.
    private mutating func take(_ line: LineSplitter.Line) throws(JSONLinesError) {
        report.lines += 1
        if line.tooLong { return try drop(line.number, kind: .malformed, "line longer than 1 MiB") }
        // A local reference to the chunk (the splitter does not change it before the next line), so that the
        // parser can use the reader's string table while it reads the line's bytes.
        let chunk = lines.buffer
        var failure: JSONSyntaxError?
        let parsed: ObservationLine? = chunk.withUnsafeBufferPointer { all in
            let bytes = UnsafeBufferPointer(rebasing: all[line.range])
            var probe = JSONScanner(bytes)
            if probe.atEnd() { return nil }
            do throws(JSONSyntaxError) {
                return try ObservationLineParser.parse(bytes, lineNumber: line.number, table: &table)
            } catch {
                failure = error
                return nil
            }
        }
        if let failure { return try drop(line.number, kind: .malformed, failure.located) }
        // Moved, not copied, from here into the reorder buffer.
        guard let good = consume parsed else {
            report.blank += 1
            return
        }
        guard ObservationLineParser.isFinite(good) else {
            return try drop(line.number, kind: .nonFinite, "non-finite value")
        }
        if let known = options.knownAnchors, !known.contains(good.observation.anchor) {
            let id = good.observation.anchor
            if report.unknownAnchorIDs[id] != nil || report.unknownAnchorIDs.count < report.sampleLimit {
                report.unknownAnchorIDs[id, default: 0] += 1
            }
            return try drop(line.number, kind: .unknownAnchor, "unknown anchor \"\(id)\"")
        }
        let t = good.observation.t
        switch order.insert(consume good, t: t) {
        case .admitted(let reordered):
            if reordered { report.reordered += 1 }
        case .late:
            let message = "t \(t) is more than \(options.toleranceSeconds) s older than \(order.newest)"
            try drop(line.number, kind: .late, message)
        }
    }

    /// Counts a dropped line (or throws in strict mode).
    private mutating func drop(_ number: Int, kind: DropKind, _ message: String) throws(JSONLinesError) {
        if options.strict { throw JSONLinesError(file: report.file, line: number, message: message) }
        switch kind {
        case .malformed: report.malformed += 1
        case .nonFinite: report.nonFinite += 1
        case .unknownAnchor: report.unknownAnchor += 1
        case .late: report.late += 1
        }
        report.sample(kind: kind.rawValue, line: number, message: message)
    }

    /// Why a line was dropped.
    private enum DropKind: String {
        case malformed, nonFinite, unknownAnchor, late
    }
}
