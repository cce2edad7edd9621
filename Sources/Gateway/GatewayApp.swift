import BeaconLocation
import BlueDotCore
import Devices
import Formats
import FoundationEssentials
import GNSS
import History
import HomeAssistant
import Hummingbird
import LocationBus
import LocationDisplay
import Logging
import Positioning
import ServiceLifecycle
import Site

/// The whole daemon for one configuration: inputs → one engine → the spine's `LocationSource` → the web feed,
/// API and metrics as its observers, and the web server, as a `ServiceGroup` that stops gracefully on SIGTERM and
/// SIGINT (inputs stopped, recording flushed, feed closed, server drained).
public struct GatewayApp: Sendable {
    /// The configuration in use.
    public let configuration: GatewayConfiguration
    /// The venue in use (`siteFiles` replaces it while running).
    public var venue: Venue { siteFiles.venue }
    /// The venue and the device registry in use, and where they are saved.
    public let siteFiles: SiteFiles
    /// The web feed: current locations and their drawing state.
    public let hub: LocationHub
    /// The metrics.
    public let metrics: GatewayMetrics
    /// The spine's service.
    public let locationService: LocationService
    /// Who each report is: registry devices, known beacons, strangers (counted in the metrics).
    public let devices: DeviceIdentifier
    /// The router (also used by the tests without sockets).
    public private(set) var dependencies: GatewayRouter.Dependencies
    /// Reads the targets earlier runs announced to Home Assistant, when discovery is on.
    private let homeAssistantRoster: HomeAssistantRosterService?
    private let logger: Logger

    /// Loads the venue, prepares the inputs (and the recording) and the routes; throws with the file and line (or
    /// JSON path) of what is wrong. `inputs` replace the configuration's sources when given (the demo). Everything
    /// reads the time from `clock`.
    public init(
        configuration: GatewayConfiguration, inputs: [any ObservationSource]? = nil, venue: Venue? = nil,
        defaultWebRoot: String? = nil, clock: any BlueDotClock = SystemClock(), logger: Logger
    ) throws {
        self.configuration = configuration
        self.logger = logger
        // A campus view takes each site's venue from its solver, and has none of its own.
        let campus = try configuration.isCampus ? Self.campusSource(configuration, clock: clock, logger: logger) : nil
        let start: (venue: Venue, loaded: Bool) = try venue.map { ($0, true) }
            ?? (campus != nil ? (Venue(name: "campus", anchors: []), true) : Self.loadVenue(configuration, logger: logger))
        let venue = start.venue, venueLoaded = start.loaded
        var settings = LocationHub.defaultSettings
        settings.staleAfterSeconds = configuration.staleAfterSeconds
        hub = LocationHub(settings: settings, clock: clock, planBearingDegrees: venue.origin?.bearingDegrees ?? 0)
        metrics = GatewayMetrics()
        var engine = EngineConfiguration.moving
        engine.intervalSeconds = configuration.intervalSeconds
        if configuration.selfCalibration.enabled { engine.selfCalibration = SelfCalibration.Settings() }
        let devices = try configuration.deviceIdentifier(anchorIDs: venue.anchors.map(\.id), logger: logger)
        self.devices = devices
        let siteFiles = SiteFiles(
            venuePath: configuration.venuePath, venue: venue, venueLoaded: venueLoaded,
            devicesPath: configuration.devicesPath, registry: devices.registry, logger: logger)
        self.siteFiles = siteFiles
        let recording = try configuration.recordPath.map { try BtsnoopRecording(path: $0, logger: logger) }
        let first = try inputs ?? (configuration.sources.isEmpty || campus != nil ? [] : SourceFactory.make(
            configuration, venue: venue, devices: devices, recorder: recording, clock: clock, logger: logger))
        let gnss = try configuration.gpsd.map { endpoint in
            do {
                return try GPSDLocationSource(
                    endpoint: endpoint, origin: venue.origin.map(GeographicOrigin.init), reconnectDelaySeconds: 2,
                    clock: clock, logger: logger)
            } catch {
                throw ConfigurationError(location: "configuration", key: "gpsd", reason: .badValue("\(error)"))
            }
        }
        let presence = PresenceRule(venue: venue, awayAfterSeconds: configuration.awayAfterSeconds,
                                    awayAfterSecondsInside: configuration.awayAfterSecondsInside)
        // What the set-up page lists and records, kept on an editable gateway only (it costs a look at every batch).
        let setup = configuration.editable && !first.isEmpty
        let heard = setup ? HeardList(mode: configuration.mode, devices: devices, files: siteFiles, clock: clock) : nil
        let survey = setup ? SurveyCollector(mode: configuration.mode, clock: clock) : nil
        var tap: (@Sendable (ObservationBatch) -> Void)?
        if let heard, let survey {
            tap = { batch in
                heard.take(batch)
                survey.take(batch)
            }
        }
        let spine = campus.map { GatewaySpine(source: $0, beacons: nil) } ?? GatewaySpine.make(
            mode: configuration.mode, inputs: first, venue: venue, engine: engine, clock: clock,
            restartDelaySeconds: 2, logger: logger, gnss: gnss, beacons: !first.isEmpty, presence: presence,
            waitsForAnchors: configuration.editable, tap: tap)
        // The solver role: fixes go back to the site's broker, and the site's counters into the metrics; the venue
        // is kept there, retained, for viewers of many sites (formats.md, "A site over MQTT").
        let site = first.lazy.compactMap { $0 as? SiteSource }.first
        if let site { site.client.keepPublished(Self.venueMessage(venue, site: site, directory: siteFiles.venueDirectory)) }
        // Where fixes (and Home Assistant's discovery) go out: a solver's site, or a campus view's own name.
        let outbound = site.map { (client: $0.client, topics: $0.topics) } ?? campus.flatMap { campus in
            campus.ownTopics.map { (client: campus.client, topics: $0) }
        }
        let publisher = outbound.map { LocationPublisher(client: $0.client, topics: $0.topics, clock: clock) }
        var siteMetrics: SiteMetrics?
        if let site, let publisher { siteMetrics = SiteMetrics(metrics: metrics, site: site, publisher: publisher) }
        var campusMetrics: CampusMetrics?
        if let campus { campusMetrics = CampusMetrics(metrics: metrics, campus: campus) }
        let deviceMetrics = DeviceMetrics(metrics: metrics, devices: devices)
        let learnedPath = try Self.learnedCalibrationPath(configuration.selfCalibration)
        let learned = spine.beacons?.runner.pipeline.map { [metrics] pipeline in
            LearnedCalibrationKeeper(pipeline: pipeline, path: learnedPath, venueName: venue.name, metrics: metrics,
                                     logger: logger)
        }
        var gnssMetrics: GNSSMetrics?
        if let gnss { gnssMetrics = GNSSMetrics(metrics: metrics, gpsd: gnss) }
        let history = try Self.openHistory(configuration.history, clock: clock, logger: logger)
        let recorder = history.map(HistoryRecorder.init)
        var outputs: [any LocationSourceObserver] = []
        if let publisher { outputs.append(publisher) }
        var homeAssistant: HomeAssistantPublisher?
        var homeAssistantRoster: HomeAssistantRosterService?
        if let outbound, configuration.homeAssistant.enabled {
            let settings = configuration.homeAssistant
            let names = Self.homeAssistantNames(devices.registry, settings: settings)
            let discovery = HomeAssistantDiscovery(
                prefix: settings.prefix, topics: outbound.topics, allow: settings.allow, names: names,
                roomNames: Self.roomNames(venue))
            let publisher = HomeAssistantPublisher(
                client: outbound.client, discovery: discovery, clock: clock, awayAfterSeconds: presence.timeoutWhereUnknown,
                removing: settings.remove)
            outputs.append(publisher)
            homeAssistant = publisher
            homeAssistantRoster = HomeAssistantRosterService(
                publisher: publisher, options: outbound.client.options, clock: clock, logger: logger)
        }
        self.homeAssistantRoster = homeAssistantRoster
        if let recorder { outputs.append(recorder) }
        // An editable venue may get rooms while running.
        let rooms = venue.rooms.isEmpty && !configuration.editable ? nil : RoomOccupancySource(
            id: "rooms", upstream: spine.source, rooms: venue.rooms.map(RoomOccupancySource.Room.init), clock: clock)
        locationService = LocationService(
            spine: spine, hub: hub, metrics: metrics, clock: clock, logger: logger, outputs: outputs,
            rooms: rooms, onHousekeeping: { [siteMetrics, campusMetrics, deviceMetrics, gnssMetrics, homeAssistant, learned,
                                              pipeline = spine.beacons?.runner.pipeline, metrics] in
                learned?.record()
                if let pipeline { metrics.record(pipeline.siteModelError) }
                siteMetrics?.record()
                campusMetrics?.record()
                deviceMetrics.record()
                gnssMetrics?.record()
                homeAssistant?.sweep()
            },
            onStop: { [learned] in
                // What was learned since the last housekeeping pass is kept too, and the fixes held for their
                // smoothed positions.
                learned?.record()
                recording?.close()
                recorder?.writeHeld()
                history?.close()
            })
        let webRoot = configuration.webRoot ?? defaultWebRoot ?? GatewayResources.webRoot
        dependencies = GatewayRouter.Dependencies(
            hub: hub, metrics: metrics, venue: venue,
            files: StaticFiles(webRoot: webRoot, leafletPath: configuration.leafletPath, logger: logger),
            token: configuration.token,
            sourceName: (first.map(\.name) + (gnss.map { ["gpsd:\($0.connection.name)"] } ?? [])
                + (campus.map { ["campus:\($0.client.options.url)/\($0.sitePatterns.joined(separator: ","))"] } ?? []))
                .joined(separator: " + "),
            source: spine.source, clock: clock, site: site,
            rooms: rooms, history: history, siteFiles: siteFiles, calibration: learned, editable: configuration.editable,
            mode: configuration.mode.rawValue, bluezKeys: configuration.bluezKeysPath)
        dependencies.campus = campus
        dependencies.scanners = first.compactMap { $0 as? ScannerSource }
        dependencies.heard = heard
        dependencies.survey = survey
        siteFiles.onChange { [weak siteFiles, hub, spine, rooms, site, devices, homeAssistant, learned, configuration] change in
            guard let siteFiles else { return }
            switch change {
            case .venue(let venue):
                let presence = PresenceRule(venue: venue, awayAfterSeconds: configuration.awayAfterSeconds,
                                            awayAfterSecondsInside: configuration.awayAfterSecondsInside)
                spine.beacons?.use(venue: venue, presence: presence)
                learned?.venueChanged()
                rooms?.use(rooms: venue.rooms.map(RoomOccupancySource.Room.init))
                hub.planBearingDegrees = venue.origin?.bearingDegrees ?? 0
                devices.replace(anchorIDs: venue.anchors.map(\.id))
                site?.use(knownReceivers: Set(venue.anchors.map(\.id)), measuredPower: SourceFactory.measuredPower(venue))
                if let site {
                    site.client.keepPublished(Self.venueMessage(venue, site: site, directory: siteFiles.venueDirectory))
                }
            case .registry(let registry):
                devices.replace(registry: registry, anchorIDs: siteFiles.venue.anchors.map(\.id))
            }
            // The map draws the venue and the names again.
            hub.venueChanged(revision: siteFiles.revision)
            if let homeAssistant {
                var discovery = homeAssistant.discovery
                discovery.names = Self.homeAssistantNames(siteFiles.registry, settings: configuration.homeAssistant)
                discovery.roomNames = Self.roomNames(siteFiles.venue)
                homeAssistant.use(discovery: discovery)
            }
        }
        if GatewayResources.root == nil {
            // Positioning and its outputs go on without them; the page and /api/openapi.json cannot.
            logger.error("the gateway's page and API document are missing",
                         metadata: ["reason": "\(GatewayResources.missingMessage)"])
        }
        if dependencies.files.leafletRoot == nil {
            logger.warning(
                "Leaflet not found; the page shows how to install it",
                metadata: ["path": "\(configuration.leafletPath)", "package": "libjs-leaflet"])
        }
    }

    /// The venue the configuration names, and whether it was read: an editable gateway starts with an empty venue
    /// when its file does not exist yet (a fresh install), named after the file, and positions once one is saved.
    static func loadVenue(_ configuration: GatewayConfiguration, logger: Logger) throws -> (Venue, Bool) {
        let path = configuration.venuePath ?? ""
        if configuration.editable, !path.isEmpty, !FileManager.default.fileExists(atPath: path) {
            logger.notice("no venue yet: open the set-up page (/setup) to make one", metadata: ["path": "\(path)"])
            let name = URL(fileURLWithPath: path).deletingPathExtension().deletingPathExtension().lastPathComponent
            return (Venue(name: name, anchors: []), false)
        }
        return (try VenueLoader.load(path: path), true)
    }

    /// The campus view's input: the sites' locations, statuses, venues and bridges through one MQTT connection.
    static func campusSource(_ configuration: GatewayConfiguration, clock: any BlueDotClock, logger: Logger) throws
        -> CampusSource
    {
        guard let broker = configuration.site.solverBroker else {
            throw ConfigurationError(location: "configuration", key: "sites", reason: .conflict("sites needs mqtt"))
        }
        do {
            let options = try configuration.site.options(
                url: broker, defaultClientID: configuration.site.site.map { "bluedot-campus-\($0)" } ?? "bluedot-campus")
            // With a name of its own (`site`), the view publishes its one answer per target there, as a solver does,
            // with a status of its own: Home Assistant and other consumers follow targets across buildings.
            let own = configuration.site.site.flatMap(SiteTopics.init(site:))
            let offline = own.map { MQTTMessage(topic: $0.solverStatus, text: "offline", qos: 1, retain: true) }
            let client = try MQTTClient(
                options: options, will: offline,
                birth: own.map { [MQTTMessage(topic: $0.solverStatus, text: "online", qos: 1, retain: true)] } ?? [],
                clock: clock, logger: logger)
            return CampusSource(client: client, sites: configuration.site.sites, ownTopics: own,
                                farewell: offline.map { [$0] } ?? [], clock: clock, logger: logger)
        } catch {
            throw ConfigurationError(location: "configuration", key: "mqtt", reason: .badValue("\(error)"))
        }
    }

    /// The site's venue as its solver publishes it, retained: the venue file (plan images named relative to it).
    static func venueMessage(_ venue: Venue, site: SiteSource, directory: String?) -> MQTTMessage {
        MQTTMessage(topic: site.topics.venue, text: VenueWriter.json(venue, relativeTo: directory), qos: 1,
                    retain: true)
    }

    /// Target names for Home Assistant: the registry's, with `ha-names` over them (the one seam it takes names from).
    static func homeAssistantNames(_ registry: DeviceRegistry, settings: HomeAssistantSettings) -> [String: String] {
        registry.names.merging(settings.names) { _, given in given }
    }

    /// Room names by room id, as Home Assistant's room sensor shows them.
    static func roomNames(_ venue: Venue) -> [String: String] {
        Dictionary(venue.rooms.map { ($0.id, $0.name ?? $0.id) }, uniquingKeysWith: { a, _ in a })
    }

    /// Where self-calibration keeps what it learned; nil: memory (or off).
    static func learnedCalibrationPath(_ settings: SelfCalibrationSettings) throws -> String? {
        switch settings.store ?? .memory {
        case .off, .memory: return nil
        case .file(let file): return file
        case .stateDirectory:
            guard let file = StateDirectory.file(SelfCalibrationSettings.fileName,
                                                 environment: ProcessInfo.processInfo.environment) else {
                throw ConfigurationError(location: "learned-calibration", reason: .conflict(
                    "no state directory to keep the learned calibration in (STATE_DIRECTORY, XDG_STATE_HOME, HOME): "
                        + "set learned-calibration"))
            }
            return file
        }
    }

    /// The history store the settings ask for (nil when off); throws naming the file when it cannot be opened.
    static func openHistory(_ settings: HistorySettings, clock: any BlueDotClock, logger: Logger) throws -> HistoryStore? {
        var store = HistoryStore.Settings()
        store.retentionSeconds = settings.retentionDays * 86_400
        store.maxBytes = settings.maxBytes
        let path: String?
        switch settings.store ?? .off {
        case .off: return nil
        case .memory: path = nil
        case .file(let file): path = file
        case .stateDirectory:
            guard let file = HistorySettings.defaultPath(environment: ProcessInfo.processInfo.environment) else {
                throw ConfigurationError(location: "history", reason: .conflict(
                    "no state directory to keep the history in (STATE_DIRECTORY, XDG_STATE_HOME, HOME): set history"))
            }
            path = file
        }
        let opened = try HistoryStore(path: path, settings: store, clock: clock, logger: logger)
        logger.info("history", metadata: ["path": "\(opened.path)"])
        return opened
    }

    /// Runs until SIGTERM or SIGINT; `onListening` gets the bound address (the real port when 0 was asked).
    public func run(onListening: @escaping @Sendable (ListenAddress) -> Void = { _ in }) async throws {
        let listen = configuration.listen
        let app = Application(
            router: GatewayRouter.build(dependencies),
            configuration: .init(address: .hostname(listen.host, port: listen.port), serverName: "bluedot"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? listen.port
                onListening(ListenAddress(host: listen.host, port: port))
            },
            logger: logger)
        // Shut down in reverse order: the spine first (closes the feed), then the server drains.
        var group = ServiceGroupConfiguration(
            services: [.init(service: app), .init(service: locationService), .init(service: HangupReload(files: siteFiles))]
                + (homeAssistantRoster.map { [.init(service: $0)] } ?? []),
            gracefulShutdownSignals: [.sigterm, .sigint], cancellationSignals: [], logger: logger)
        group.maximumGracefulShutdownDuration = .seconds(5)
        group.maximumCancellationDuration = .seconds(2)
        try await ServiceGroup(configuration: group).run()
    }
}
