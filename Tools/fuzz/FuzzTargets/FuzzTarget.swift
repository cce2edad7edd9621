/// The fuzz targets: each takes arbitrary bytes, feeds them to one of BlueDot's decoders or parsers the way real
/// input reaches it, and checks what must hold whatever the bytes (round trips, chunking not changing the result,
/// two decoders of the same bytes agreeing). A violated check traps, which libFuzzer reports as a crash like any
/// other.
///
/// Shared by the libFuzzer binary (`Tools/fuzz`, built with `-sanitize=fuzzer,address`) and the regression tests
/// (`Tests/FuzzRegressionTests`), which run every seed and every input that once crashed through the same code.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// The H4 (UART) framer, fed in chunks.
    case h4
    /// One HCI event packet: the full event decoder against the scanner's fast advertising-report path, and the
    /// sightings decoded from it (legacy and extended reports, fragments included).
    case hciEvent = "hci-event"
    /// A whole btsnoop file (H4 and Linux monitor datalinks), decoded whole and in chunks.
    case btsnoop
    /// An observation JSONL file, read in one chunk and in small chunks.
    case observations
    /// A venue JSON file.
    case venue
    /// An IMDF archive's GeoJSON files, NUL-separated in the order of `IMDFArchive.fileNames`.
    case imdf
    /// An IMDF archive as a zip file, opened by libzip.
    case imdfZip = "imdf-zip"
    /// A GeoJSON floor plan; the first byte chooses WGS84 or local coordinates.
    case geojson
    /// An ESPresense-companion YAML configuration, read by libyaml.
    case espresenseConfig = "espresense-config"
    /// A `bluedot run` configuration file.
    case config
    /// A GPX file (the GPX location source), read by expat and the GPX builder.
    case gpx
    /// A site sighting batch (MQTT payload of a receiver).
    case sightingBatch = "sighting-batch"
    /// An ESPresense MQTT message: the topic, a newline, the payload.
    case espresense
    /// An HTTP request line's path and query: the path, a newline, the query string.
    case http
    /// A device registry file (`--devices`).
    case devices
    /// A BlueZ `info` file (`bluedot devices import --bluez`).
    case bluezInfo = "bluez-info"
    /// What gpsd sends: JSON reports, one per line (`--gpsd`).
    case gpsd
    /// What self-calibration learned (`learned-calibration.json` in the state directory), taken up at start.
    case learnedCalibration = "learned-calibration"

    /// Runs the target on one input.
    public func run(_ bytes: [UInt8]) {
        switch self {
        case .h4: RadioTargets.h4(bytes)
        case .hciEvent: RadioTargets.hciEvent(bytes)
        case .btsnoop: RadioTargets.btsnoop(bytes)
        case .observations: FileTargets.observations(bytes)
        case .venue: FileTargets.venue(bytes)
        case .imdf: FileTargets.imdf(bytes)
        case .imdfZip: FileTargets.imdfZip(bytes)
        case .geojson: FileTargets.geojson(bytes)
        case .espresenseConfig: FileTargets.espresenseConfig(bytes)
        case .config: FileTargets.config(bytes)
        case .gpx: FileTargets.gpx(bytes)
        case .sightingBatch: SiteTargets.sightingBatch(bytes)
        case .espresense: SiteTargets.espresense(bytes)
        case .http: HTTPTargets.request(bytes)
        case .devices: DeviceTargets.registry(bytes)
        case .gpsd: GNSSTargets.gpsd(bytes)
        case .bluezInfo: DeviceTargets.bluezInfo(bytes)
        case .learnedCalibration: FileTargets.learnedCalibration(bytes)
        }
    }
}

/// Stops the process when a property that must hold does not: libFuzzer saves the input as a crash.
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
           file: StaticString = #fileID, line: UInt = #line) {
    if !condition() { fatalError("fuzz check failed: \(message())", file: file, line: line) }
}

/// Splits `bytes` at the first byte equal to `separator`: (before, after); after is empty when there is none.
func split(_ bytes: [UInt8], at separator: UInt8) -> ([UInt8], [UInt8]) {
    guard let index = bytes.firstIndex(of: separator) else { return (bytes, []) }
    return (Array(bytes[..<index]), Array(bytes[(index + 1)...]))
}

/// A chunk size between 1 and 64 taken from the input's first byte, so that the fuzzer explores chunk boundaries.
func chunkSize(_ bytes: [UInt8]) -> Int { 1 + Int(bytes.first ?? 0) % 64 }
