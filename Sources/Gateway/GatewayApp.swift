import Foundation
import Hummingbird
import Logging
import Positioning
import ServiceLifecycle
import Formats

/// The whole daemon for one configuration: source -> pipeline -> hub, and the web server, as a `ServiceGroup`
/// that stops gracefully on SIGTERM and SIGINT (source stopped, recording flushed, feed closed, server drained).
public struct GatewayApp: Sendable {
    /// The configuration in use.
    public let configuration: GatewayConfiguration
    /// The venue.
    public let venue: Venue
    /// Current fixes and the feed.
    public let hub: LocationHub
    /// The metrics.
    public let metrics: GatewayMetrics
    /// The pipeline service.
    public let pipelineService: PipelineService
    /// The router (also used by the tests without sockets).
    public let dependencies: GatewayRouter.Dependencies
    private let logger: Logger

    /// Loads the venue, opens the source (and the recording) and prepares the routes; throws with the file and
    /// line (or JSON path) of what is wrong. `source` replaces the configuration's source when given (the demo).
    public init(
        configuration: GatewayConfiguration, source: (any ObservationSource)? = nil, venue: Venue? = nil,
        defaultWebRoot: String? = nil, logger: Logger
    ) throws {
        self.configuration = configuration
        self.logger = logger
        let wallClock: @Sendable () -> Double = { Date().timeIntervalSince1970 }
        let venue = try venue ?? VenueLoader.load(path: configuration.venuePath ?? "")
        self.venue = venue
        var settings = LocationHub.defaultSettings
        settings.staleAfterSeconds = configuration.staleAfterSeconds
        hub = LocationHub(settings: settings, planBearingDegrees: venue.origin?.bearingDegrees ?? 0)
        metrics = GatewayMetrics()
        var engine = EngineConfiguration.moving
        engine.intervalSeconds = configuration.intervalSeconds
        let pipeline = Pipeline(venue: venue, configuration: engine, hub: hub, metrics: metrics, wallClock: wallClock)
        let recording = try configuration.recordPath.map { try BtsnoopRecording(path: $0, logger: logger) }
        let source = try source
            ?? SourceFactory.make(configuration, venue: venue, recorder: recording, wallClock: wallClock, logger: logger)
        pipelineService = PipelineService(
            source: source, pipeline: pipeline, wallClock: wallClock, logger: logger, onStop: { recording?.close() })
        let webRoot = configuration.webRoot ?? defaultWebRoot ?? GatewayResources.webRoot
        dependencies = GatewayRouter.Dependencies(
            hub: hub, metrics: metrics, venue: venue,
            files: StaticFiles(webRoot: webRoot, leafletPath: configuration.leafletPath), token: configuration.token,
            sourceName: source.name, wallClock: wallClock)
        if dependencies.files.leafletRoot == nil {
            logger.warning(
                "Leaflet not found; the page shows how to install it",
                metadata: ["path": "\(configuration.leafletPath)", "package": "libjs-leaflet"])
        }
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
        // Shut down in reverse order: the pipeline first (closes the feed), then the server drains.
        var group = ServiceGroupConfiguration(
            services: [.init(service: app), .init(service: pipelineService)],
            gracefulShutdownSignals: [.sigterm, .sigint], cancellationSignals: [], logger: logger)
        group.maximumGracefulShutdownDuration = .seconds(5)
        group.maximumCancellationDuration = .seconds(2)
        try await ServiceGroup(configuration: group).run()
    }
}
