import BeaconLocation
import BlueDotCore
import Devices
import Formats
import HCI
import Logging
import Positioning
import Scanner
import Site
import SystemIO

/// Builds the inputs a configuration names. Files are read here, so a bad file stops start-up with its name and
/// line; a transport that cannot be opened fails when the scan starts (and is retried).
public enum SourceFactory {
    /// The inputs for `configuration` over `venue`, in the order given; `recorder` is set for the live source
    /// with `record`. Every input stamps and paces on `clock`; `devices` says who each report is.
    public static func make(
        _ configuration: GatewayConfiguration, venue: Venue, devices: DeviceIdentifier,
        recorder: (any HCIPacketRecorder)?, clock: any BlueDotClock, logger: Logger
    ) throws -> [any ObservationSource] {
        guard !configuration.sources.isEmpty else {
            throw ConfigurationError(location: "configuration", reason: .conflict("no source"))
        }
        return try configuration.sources.map { source in
            try make(source, configuration: configuration, venue: venue, devices: devices, recorder: recorder,
                     clock: clock, logger: logger)
        }
    }

    private static func make(
        _ source: GatewayConfiguration.Source, configuration: GatewayConfiguration, venue: Venue,
        devices: DeviceIdentifier, recorder: (any HCIPacketRecorder)?, clock: any BlueDotClock, logger: Logger
    ) throws -> any ObservationSource {
        let mapper = SightingMapper(mode: configuration.mode, receiverID: configuration.gatewayID, devices: devices)
        let scan = ScanConfiguration(advertisement: try receiverAdvertisement(configuration))
        func scanner(_ transport: any HCITransport) -> ScannerSource {
            ScannerSource(transport: transport, mapper: mapper, configuration: scan, recorder: recorder, clock: clock,
                          logger: logger)
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
            // Streamed, so that a long file costs no memory.
            return try PacedReplaySource(
                name: "observations:\(path)", path: path, options: ObservationReader.Options(knownAnchors: nil),
                speed: configuration.speed, loop: configuration.loop, clock: clock)
        case .site(let broker):
            return try siteSource(broker: broker, configuration: configuration, venue: venue, devices: devices,
                                  clock: clock, logger: logger)
        case .simulate(let trackPath):
            let tracks = Track.tracks(from: try TruthReader.read(path: trackPath))
            var rng = Xoshiro256StarStar(seed: 1)
            let packets = Simulator(venue: venue).simulate(tracks: tracks, using: &rng)
            return PacedReplaySource(
                name: "simulate:\(trackPath)", observations: packets.map(\.observation), speed: configuration.speed,
                loop: configuration.loop, clock: clock)
        }
    }

    /// Each anchor's model RSSI at 1 m, by id (ESPresense reports are moved onto it).
    static func measuredPower(_ venue: Venue) -> [String: Double] {
        Dictionary(venue.anchors.map { ($0.id, $0.model(default: venue.model).measuredPowerDBm) },
                   uniquingKeysWith: { a, _ in a })
    }

    /// With `advertise`, what the radio advertises beside its scan: this receiver's `ReceiverBeacon`.
    static func receiverAdvertisement(_ configuration: GatewayConfiguration) throws -> ScanConfiguration.Advertisement? {
        guard configuration.site.advertise, let site = configuration.site.site, let receiver = configuration.gatewayID
        else { return nil }
        guard let beacon = ReceiverBeacon(site: site, receiver: receiver) else {
            throw ConfigurationError(location: "configuration", key: "advertise",
                                     reason: .badValue("libcrypto could not hash the receiver's id"))
        }
        return ScanConfiguration.Advertisement(data: beacon.advertisingData)
    }

    /// The solver's input: the site's receivers through one MQTT connection whose last will (and farewell) is the
    /// solver's `offline` and whose birth message its retained `online`.
    static func siteSource(
        broker: String, configuration: GatewayConfiguration, venue: Venue, devices: DeviceIdentifier,
        clock: any BlueDotClock, logger: Logger
    ) throws -> SiteSource {
        guard let name = configuration.site.site, let topics = SiteTopics(site: name) else {
            throw ConfigurationError(location: "configuration", key: "site", reason: .conflict("mqtt needs site"))
        }
        let client: MQTTClient
        let offline = MQTTMessage(topic: topics.solverStatus, text: "offline", qos: 1, retain: true)
        do {
            let options = try configuration.site.options(url: broker, defaultClientID: "bluedot-solver-\(name)")
            client = try MQTTClient(
                options: options, will: offline,
                birth: [MQTTMessage(topic: topics.solverStatus, text: "online", qos: 1, retain: true)], clock: clock,
                logger: logger)
        } catch {
            throw ConfigurationError(location: "configuration", key: "mqtt", reason: .badValue("\(error)"))
        }
        var settings = SiteSource.Settings()
        settings.reorderWindowSeconds = configuration.site.reorderWindowSeconds
        settings.espresensePrefix = configuration.site.espresensePrefix
        return SiteSource(
            client: client, topics: topics, knownReceivers: Set(venue.anchors.map(\.id)),
            measuredPower: measuredPower(venue),
            devices: devices, settings: settings, farewell: [offline], clock: clock, logger: logger)
    }
}
