import HCI
import HCILinux
import Logging
import Positioning
import Scanner
import Formats

/// Builds the observation source a configuration names. Files are read here, so a bad file stops start-up with
/// its name and line; a transport that cannot be opened fails when the scan starts (and is retried).
public enum SourceFactory {
    /// The source for `configuration` over `venue`; `recorder` is set for live sources with `record`.
    public static func make(
        _ configuration: GatewayConfiguration, venue: Venue, recorder: (any HCIPacketRecorder)?,
        wallClock: @escaping @Sendable () -> Double, logger: Logger
    ) throws -> any ObservationSource {
        let mapper = SightingMapper(mode: configuration.mode, gatewayID: configuration.gatewayID)
        guard let source = configuration.source else {
            throw ConfigurationError(location: "configuration", reason: .conflict("no source"))
        }
        switch source {
        case .hci(let adapter):
            let transport = try BlueZSocketTransport(adapter: adapter, channel: .raw)
            return ScannerSource(
                transport: transport, mapper: mapper, recorder: recorder, wallClock: wallClock, logger: logger)
        case .h4TCP(let endpoint):
            return ScannerSource(
                transport: try H4StreamTransport(tcp: endpoint), mapper: mapper, recorder: recorder,
                wallClock: wallClock, logger: logger)
        case .h4TTY(let path, let baud):
            return ScannerSource(
                transport: try H4StreamTransport(serialPath: path, baudRate: baud), mapper: mapper,
                recorder: recorder, wallClock: wallClock, logger: logger)
        case .replay(let path):
            return RecordingSource(
                path: path, mapper: mapper, speed: configuration.speed, loop: configuration.loop, wallClock: wallClock)
        case .observations(let path):
            let options = ObservationReader.Options(knownAnchors: nil)
            var reader = try ObservationReader(path: path, options: options)
            let observations = try reader.readAll().map(\.observation)
            return PacedReplaySource(
                name: "observations:\(path)", observations: observations, speed: configuration.speed,
                loop: configuration.loop, wallClock: wallClock)
        case .simulate(let trackPath):
            let tracks = Track.tracks(from: try TruthReader.read(path: trackPath))
            var rng = Xoshiro256StarStar(seed: 1)
            let packets = Simulator(venue: venue).simulate(tracks: tracks, using: &rng)
            return PacedReplaySource(
                name: "simulate:\(trackPath)", observations: packets.map(\.observation), speed: configuration.speed,
                loop: configuration.loop, wallClock: wallClock)
        }
    }
}
