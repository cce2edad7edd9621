import BeaconLocation
import BlueDotCore
import Formats
import HCI
import HCILinux
import Logging
import Positioning
import Scanner

/// Builds the inputs a configuration names. Files are read here, so a bad file stops start-up with its name and
/// line; a transport that cannot be opened fails when the scan starts (and is retried).
public enum SourceFactory {
    /// The inputs for `configuration` over `venue`, in the order given; `recorder` is set for the live source
    /// with `record`. Every input stamps and paces on `clock`.
    public static func make(
        _ configuration: GatewayConfiguration, venue: Venue, recorder: (any HCIPacketRecorder)?,
        clock: any BlueDotClock, logger: Logger
    ) throws -> [any ObservationSource] {
        guard !configuration.sources.isEmpty else {
            throw ConfigurationError(location: "configuration", reason: .conflict("no source"))
        }
        return try configuration.sources.map { source in
            try make(source, configuration: configuration, venue: venue, recorder: recorder, clock: clock,
                     logger: logger)
        }
    }

    private static func make(
        _ source: GatewayConfiguration.Source, configuration: GatewayConfiguration, venue: Venue,
        recorder: (any HCIPacketRecorder)?, clock: any BlueDotClock, logger: Logger
    ) throws -> any ObservationSource {
        let mapper = SightingMapper(mode: configuration.mode, receiverID: configuration.gatewayID)
        func scanner(_ transport: any HCITransport) -> ScannerSource {
            ScannerSource(transport: transport, mapper: mapper, recorder: recorder, clock: clock, logger: logger)
        }
        switch source {
        case .hci(let adapter, let userChannel):
            return scanner(try BlueZSocketTransport(adapter: adapter, channel: userChannel ? .user : .raw))
        case .h4TCP(let endpoint):
            return scanner(try H4StreamTransport(tcp: endpoint))
        case .h4TTY(let path, let baud):
            return scanner(try H4StreamTransport(serialPath: path, baudRate: baud))
        case .replay(let path):
            return RecordingSource(path: path, mapper: mapper, speed: configuration.speed, loop: configuration.loop,
                                   clock: clock)
        case .observations(let path):
            let options = ObservationReader.Options(knownAnchors: nil)
            var reader = try ObservationReader(path: path, options: options)
            let observations = try reader.readAll().map(\.observation)
            return PacedReplaySource(
                name: "observations:\(path)", observations: observations, speed: configuration.speed,
                loop: configuration.loop, clock: clock)
        case .simulate(let trackPath):
            let tracks = Track.tracks(from: try TruthReader.read(path: trackPath))
            var rng = Xoshiro256StarStar(seed: 1)
            let packets = Simulator(venue: venue).simulate(tracks: tracks, using: &rng)
            return PacedReplaySource(
                name: "simulate:\(trackPath)", observations: packets.map(\.observation), speed: configuration.speed,
                loop: configuration.loop, clock: clock)
        }
    }
}
